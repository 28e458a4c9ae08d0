/* The compiled in-band codec: twin of serreg/codec/pure.py (docs/FORMAT.md, section 3).
 *
 * MsgpackCodec.pack writes a whole value tree of standard types into one buffer: the
 * msgpack-native values (None, bool, int, float, str, bytes, list, dict) directly, and the
 * standard types that travel as ext 0 (tuple, big int, bytearray, complex, datetime, date,
 * time, timedelta, uuid) as ext 0 with their standard serializer's in-band, written here
 * too, as long as the registry still serves those types with its standard serializers.
 * Every other value goes through encode_nested (a registered serializer, a plug-in, the
 * fallback), exactly as the pure codec does it, in document order, so out-of-band
 * buffers keep their order.  MsgpackCodec.unpack reads a document with an explicit stack
 * (no C recursion per level) and decodes ext 0 values of the standard types in place,
 * under the same trust and depth rules as the nested decoder (allow-list, max_depth); any
 * other ext 0 goes to decode_nested.
 *
 * Bytes and errors are those of the pure codec: whenever this code meets something it
 * does not handle itself (a malformed document, a str that is not UTF-8, nesting beyond
 * msgpack's limits, a hash-flooded map in untrusted mode, any error inside a value it
 * decodes in place) it undoes what it did (out-of-band position, nesting depth, memory
 * budget) and hands the whole call to the pure codec it was given, which raises the error
 * serreg has always raised.  Errors raised by encode_nested propagate unchanged.
 *
 * Struct instances (ext 1) and lists of them (ext 2, by columns) are written and read from each
 * class's StructPlan (_core_structs*.h, docs/FORMAT.md section 10).
 *
 * MsgpackCodec.serialize_top and unpack_top (_core_top.h, with _core_top_setup.h) are Registry.serialize and
 * deserialize for plain values, in one call each (also for values holding structs with a plan,
 * _core_structs_top.h, and for one implicit struct instance, _core_implicit_top.h with its class checks in
 * _core_implicit_class.h); top_value (_core_top_value.h, with _core_top_value_setup.h) reads a trusted frame or
 * result whose value its serializer reads, out-of-band buffers included; _core_entry.h makes those two methods C methods that call them with no
 * Python frame first; _core_keys.h keeps one str per short map key; _core_tables.h reads the registry's
 * snapshot into the codec's tables. The output buffer and the
 * msgpack writing primitives are in _core_out.h, dict tables read and filled in place in
 * _core_dict_layout.h; the encoder is _core_encode*.h with _core_pack.h,
 * the decoder _core_decode*.h with _core_unpack.h. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <datetime.h>
#include <structmember.h>
#include <stdint.h>
#include <string.h>

#define MSGPACK_MAX_NESTING 1024 /* msgpack-python's own limit, reading and writing */
#define MAX_INLINE_LEVELS 200     /* nested ext 0 values written in place in one call */
#define MAX_KEYS_PER_HASH 64      /* untrusted mode: serreg/codec/checks.py */
#define HASH_SIZE 8
#define SCRATCH_KEEP (1 << 16)
#define N_AS_IS 8 /* plain top-level types kept in arrays (_core_tables.h: as_is_arrays) */

enum {
    K_NONE = 0, K_TUPLE, K_SET, K_FROZENSET, K_BYTEARRAY, K_COMPLEX, K_DATETIME, K_DATE, K_TIME,
    K_TIMEDELTA, K_UUID, K_INT, N_KINDS
};
static const char *KIND_IDS[N_KINDS] = {
    NULL, "tuple", "set", "frozenset", "bytearray", "complex", "datetime", "date", "time", "timedelta", "uuid", "int",
};
/* Native types, as bits of the override mask. */
enum { N_NONE = 1, N_BOOL = 2, N_INT = 4, N_FLOAT = 8, N_STR = 16, N_BYTES = 32, N_LIST = 64, N_DICT = 128 };

static PyTypeObject *uuid_type;   /* uuid.UUID */
static PyObject *str_in_band, *str_oob_buffers, *str_int, *str_snapshot, *str_native_overrides,
    *str_standard_writers, *str_standard_readers, *str_depth, *str_allowed, *str_max_depth, *str_budget,
    *str_pack, *str_pack_array, *str_unpack, *str_explain, *str_via, *str_position, *str_rewind, *str_ext_writers,
    *decode_state_var, *decode_error_type, *hash_spread_check, *str_packed_as_is, *str_unpacked_as_is, *str_plain,
    *str_by_hash;
static PyObject *limit_error_type; /* LimitExceededError: msgpack's nesting limit, as the pure codec words it */

/* What the registry's current snapshot lets this codec do itself. */
typedef struct {
    unsigned native_overrides;       /* natives a user serializer took over: always ext 0 */
    char write[N_KINDS];             /* written in place (the standard serializer serves the type) */
    char read[N_KINDS];              /* read in place (the hash is the standard serializer's) */
    PyObject *ext_writers;           /* type -> struct writer (borrowed from the cached snapshot); NULL: none */
    PyObject *packed_as_is, *unpacked_as_is; /* plain top-level types <-> ClassIDHashes (borrowed, as above) */
    char top_write[2], top_read[2];  /* float, bytes: served by their standard serializers (_core_top.h) */
    PyObject *by_hash;               /* ClassIDHash -> Registration (borrowed, as above; _core_top_value.h) */
} Tables;

static unsigned char kind_hash[N_KINDS][HASH_SIZE];

typedef struct {
    PyObject_HEAD
    PyObject *encode_nested, *decode_nested, *snapshots, *pure;
    PyObject *cached_snapshot;
    Tables tables;
    char *scratch;
    Py_ssize_t scratch_cap;
    int scratch_busy;
    void *kept[3];          /* the top-level entries' stacks, kept for the next call (_core_top_setup.h) */
    Py_ssize_t kept_cap[3];
    int kept_busy;
    PyObject *oob_scratch;  /* an empty list serialize_top collects buffers in, kept while none is met (_core_top.h) */
    Py_ssize_t snapshot_slot; /* offset of the snapshot source's "snapshot" slot; <= 0: read the attribute */
    /* Set by bind_registry (_core_entry.h): the registry's Settings (its "plain" slot at plain_slot), and
       its full paths, Encoder.serialize(obj, False, False, None) and Decoder.deserialize(data, None x 4),
       and refine_error(data, error), which gives the error a failed deserialize raises. */
    PyObject *settings, *full_serialize, *full_deserialize, *refine_error;
    PyObject *owner;        /* the registry bound (borrowed: only compared, never used) */
    int skip_left, skip_next; /* calls the registry's serialize sends to the full path (_core_entry.h) */
    Py_ssize_t plain_slot;
    PyObject *top_reading;  /* (owner, located, all_used) of the registry's decoder (_core_top_value.h) */
    PyObject *plain_seen;   /* the last "plain" unpack_top was given, parsed into the two below */
    long long plain_depth;
    uint64_t plain_size;
    /* The cached snapshot's packed_as_is and unpacked_as_is as short arrays (borrowed, as the Tables'
       are), scanned instead of a dict lookup; n_packed / n_unpacked is -1 when they do not fit. */
    int n_packed, n_unpacked;
    PyObject *packed_type[N_AS_IS], *packed_hash[N_AS_IS], *unpacked_type[N_AS_IS];
    uint64_t unpacked_hash[N_AS_IS];
    /* One implicit struct instance at the top level (_core_implicit_top.h): ClassIDHash("serreg.pyobjects"),
       the context variables that keep it from being written, and what the Python writer and reader published;
       implicit_last: the entry of implicit_writes used last (cleared whenever implicit_writes is replaced). */
    PyObject *implicit_hash, *implicit_guards, *implicit_writes, *implicit_read, *implicit_last;
} Codec;

static PyTypeObject CodecType;

/* The offset of type's object slot ``name`` (a __slots__ entry), or -1 (no error set). */
static Py_ssize_t object_slot(PyTypeObject *type, const char *name) {
    PyObject *key = PyUnicode_FromString(name);
    if (key == NULL) {
        PyErr_Clear();
        return -1;
    }
    PyObject *descr = _PyType_Lookup(type, key);
    Py_DECREF(key);
    if (descr == NULL || Py_TYPE(descr) != &PyMemberDescr_Type) return -1;
    PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
    return member->type == T_OBJECT_EX || member->type == T_OBJECT ? member->offset : -1;
}

#include "_core_tables.h"

#include "_core_out.h"
#include "_core_dict_layout.h"

#include "_core_types.h"
#include "_core_structs.h"
#include "_core_encode_state.h"
#include "_core_stack.h"
#include "_core_encode_calls.h"
#include "_core_encode_leaves.h"
#include "_core_encode.h"
#include "_core_pack.h"
#include "_core_structs_scope.h"
#include "_core_structs_put.h"
#include "_core_structs_encode.h"
#include "_core_structs_list_encode.h"
#include "_core_keys.h"
#include "_core_walk.h"
#include "_core_decode_state.h"
#include "_core_decode_values.h"
#include "_core_decode_calls.h"
#include "_core_decode_scalars.h"
#include "_core_decode_refuse_lists.h"
#include "_core_decode_refuse.h"
#include "_core_decode.h"
#include "_core_unpack.h"
#include "_core_implicit_build.h"
#include "_core_structs_decode.h"
#include "_core_structs_list_decode.h"
#include "_core_top_setup.h"
#include "_core_structs_top.h"
#include "../wire/_frame_layout.h"
#define WALK_DICT_NEXT dict_next
#include "../implicit/_walk_core.h"
#include "_core_implicit_class.h"
#include "_core_implicit_top.h"
#include "_core_top.h"
#include "_core_lean.h"
#include "_core_top_value_setup.h"
#include "_core_copy.h"
#include "_core_top_value.h"
#include "_core_entry.h"

/* ------------------------------------------------------------------ the type */

static int Codec_init(Codec *self, PyObject *args, PyObject *kwds) {
    PyObject *encode_nested, *decode_nested, *snapshots, *pure;
    static char *names[] = {"encode_nested", "decode_nested", "snapshots", "pure", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOO", names, &encode_nested, &decode_nested, &snapshots, &pure))
        return -1;
    Py_INCREF(encode_nested); Py_XSETREF(self->encode_nested, encode_nested);
    Py_INCREF(decode_nested); Py_XSETREF(self->decode_nested, decode_nested);
    Py_INCREF(snapshots); Py_XSETREF(self->snapshots, snapshots);
    Py_INCREF(pure); Py_XSETREF(self->pure, pure);
    self->snapshot_slot = object_slot(Py_TYPE(snapshots), "snapshot");
    return 0;
}

static int Codec_traverse(Codec *self, visitproc visit, void *arg) {
    Py_VISIT(self->encode_nested);
    Py_VISIT(self->decode_nested);
    Py_VISIT(self->snapshots);
    Py_VISIT(self->pure);
    Py_VISIT(self->cached_snapshot);
    Py_VISIT(self->settings);
    Py_VISIT(self->full_serialize);
    Py_VISIT(self->full_deserialize);
    Py_VISIT(self->refine_error);
    Py_VISIT(self->plain_seen);
    Py_VISIT(self->oob_scratch);
    Py_VISIT(self->top_reading);
    Py_VISIT(self->implicit_hash);
    Py_VISIT(self->implicit_guards);
    Py_VISIT(self->implicit_writes);
    Py_VISIT(self->implicit_read);
    Py_VISIT(self->implicit_last);
    return 0;
}

static int Codec_clear(Codec *self) {
    Py_CLEAR(self->encode_nested);
    Py_CLEAR(self->decode_nested);
    Py_CLEAR(self->snapshots);
    Py_CLEAR(self->pure);
    Py_CLEAR(self->cached_snapshot);
    Py_CLEAR(self->settings);
    Py_CLEAR(self->full_serialize);
    Py_CLEAR(self->full_deserialize);
    Py_CLEAR(self->refine_error);
    Py_CLEAR(self->plain_seen);
    Py_CLEAR(self->oob_scratch);
    Py_CLEAR(self->top_reading);
    Py_CLEAR(self->implicit_hash);
    Py_CLEAR(self->implicit_guards);
    Py_CLEAR(self->implicit_writes);
    Py_CLEAR(self->implicit_read);
    Py_CLEAR(self->implicit_last);
    return 0;
}

static void Codec_dealloc(Codec *self) {
    PyObject_GC_UnTrack(self);
    Codec_clear(self);
    PyMem_Free(self->scratch);
    for (int i = 0; i < 3; i++) PyMem_Free(self->kept[i]);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Codec_methods[] = {
    {"pack", (PyCFunction)(void (*)(void))Codec_pack, METH_FASTCALL,
     "pack(obj, oob: list, list_value=True) -> bytes: msgpack bytes of obj; nested values' buffers are appended "
     "to oob. A list of struct instances of one definition is ext 2; with list_value False, obj itself stays an "
     "array (a tuple's items)."},
    {"unpack", (PyCFunction)(void (*)(void))Codec_unpack, METH_FASTCALL,
     "unpack(data, oob, plain_only=False) -> value: one msgpack value, nested values decoded by their "
     "serializers; with plain_only, NotImplemented as soon as a nested value (any ext) is met."},
    {"serialize_top", (PyCFunction)Codec_serialize_top, METH_O,
     "serialize_top(obj) -> SerializationResult: obj's result when it is a plain value (see _core_top.h), "
     "else NotImplemented."},
    {"unpack_top", (PyCFunction)(void (*)(void))Codec_unpack_top, METH_FASTCALL,
     "unpack_top(data, plain) -> value: the value of a plain frame or result, else NotImplemented."},
    {"bind_registry", (PyCFunction)(void (*)(void))Codec_bind_registry, METH_FASTCALL,
     "bind_registry(registry, settings, full_serialize, full_deserialize, refine_error): what registry's "
     "top_method entries call (see _core_entry.h): settings.plain is unpack_top's plain; full_serialize(obj, False, "
     "False, None) and full_deserialize(data, None, None, None, None) are its full paths; refine_error(data, error) "
     "is the error a failed deserialize raises."},
    TOP_VALUE_METHODS /* bind_decoder, top_value (_core_top_value_setup.h) */
    IMPLICIT_TOP_METHODS /* bind_implicit, publish_implicit, publish_implicit_read (_core_implicit_top.h) */
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CodecType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "serreg.codec._core.MsgpackCodec",
    .tp_basicsize = sizeof(Codec),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "MsgpackCodec(encode_nested, decode_nested, snapshots, pure): the compiled in-band codec; "
              "pure is the pure-Python codec it hands what it does not handle itself.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Codec_init,
    .tp_dealloc = (destructor)Codec_dealloc,
    .tp_traverse = (traverseproc)Codec_traverse,
    .tp_clear = (inquiry)Codec_clear,
    .tp_methods = Codec_methods,
};

static PyObject *set_class_hashes(PyObject *module, PyObject *hashes) {
    /* {class ID: ClassIDHash} of the kinds written and read in place. */
    for (int k = 1; k < N_KINDS; k++) {
        PyObject *h = PyDict_GetItemString(hashes, KIND_IDS[k]);
        if (h == NULL || !PyBytes_Check(h) || PyBytes_GET_SIZE(h) != HASH_SIZE) {
            PyErr_Format(PyExc_ValueError, "no 8-byte ClassIDHash given for %s", KIND_IDS[k]);
            return NULL;
        }
        memcpy(kind_hash[k], PyBytes_AS_STRING(h), HASH_SIZE);
    }
    Py_RETURN_NONE;
}

static PyObject *set_decode_state(PyObject *module, PyObject *args) {
    PyObject *var, *error_type, *check, *limit_type = NULL;
    if (!PyArg_ParseTuple(args, "OOO|O", &var, &error_type, &check, &limit_type)) return NULL;
    Py_XINCREF(limit_type);
    Py_XSETREF(limit_error_type, limit_type);
    Py_INCREF(check);
    Py_XSETREF(hash_spread_check, check);
    Py_INCREF(var);
    Py_XSETREF(decode_state_var, var);
    Py_INCREF(error_type);
    Py_XSETREF(decode_error_type, error_type);
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"set_class_hashes", set_class_hashes, METH_O, "set_class_hashes({class ID: ClassIDHash}) for the types written in place."},
    {"set_decode_state", set_decode_state, METH_VARARGS,
     "set_decode_state(contextvar, DeserializationError, check_hash_spread, LimitExceededError=None): where a "
     "deserialize call keeps its DecodeState, the error raised for malformed documents, what refuses "
     "hash-flooded keys, and the error raised for documents nested beyond msgpack's limit."},
    {"set_struct_state", set_struct_state, METH_VARARGS,
     "set_struct_state(encode scope contextvar, decode scope contextvar, read_instance, check state): where "
     "a serialize or deserialize call keeps its struct table, what words a refused instance, and the state "
     "a struct field's Python writer is called with when its check refuses a value."},
    {"set_implicit_state", set_implicit_state, METH_O,
     "set_implicit_state(implicit tables contextvar): where a pack call finds the tables it reads instead of the "
     "snapshot's while a value is written with implicit structs (docs/FORMAT.md 10.9)."},
    {"top_method", top_method, METH_VARARGS,
     "top_method(kind, function, text_signature=None) -> method: the Registry method function ('serialize' or "
     "'deserialize') calling the registry's codec first when called with the value alone; with text_signature, "
     "bound to a registry it is a builtin method with that signature (see _core_entry.h)."},
    {"set_top_level", set_top_level, METH_VARARGS,
     "set_top_level(SerializationResult, {'float': hash, 'bytes': hash}, bytes_out_of_band_threshold, untracked_ok): "
     "the class serialize_top returns and unpack_top reads, the ClassIDHashes of the scalars they write and read "
     "themselves, the length from which bytes travel out of band (those are left to the full path), and whether a "
     "result without buffers may be left untracked by the garbage collector (see _core_top_setup.h)."},
    {"set_top_value", set_top_value, METH_VARARGS,
     "set_top_value(DecodeState, OutOfBandBuffers, NO_BUFFERS): what top_value builds a call's state from."},
    DICT_LAYOUT_METHODS
    STREAM_COPY_METHODS
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "serreg.codec._core", NULL, -1, module_methods};

#define INTERN(var, text) if ((var = PyUnicode_InternFromString(text)) == NULL) return NULL

PyMODINIT_FUNC PyInit__core(void) {
    enc_structs = &STRUCT_ENC_OPS; /* the codec reaches its struct parts through these */
    dict_layout_check();
    dec_structs = &STRUCT_DEC_OPS;
    PyDateTime_IMPORT;
    if (PyDateTimeAPI == NULL) return NULL;
    PyObject *uuid = PyImport_ImportModule("uuid");
    if (uuid == NULL) return NULL;
    uuid_type = (PyTypeObject *)PyObject_GetAttrString(uuid, "UUID");
    Py_DECREF(uuid);
    if (uuid_type == NULL) return NULL;
    INTERN(str_in_band, "in_band_buffer");
    INTERN(str_oob_buffers, "out_of_band_buffers");
    INTERN(str_int, "int");
    INTERN(str_snapshot, "snapshot");
    INTERN(str_native_overrides, "native_overrides");
    INTERN(str_standard_writers, "standard_writers");
    INTERN(str_ext_writers, "ext_writers");
    INTERN(str_standard_readers, "standard_readers");
    INTERN(str_depth, "depth");
    INTERN(str_allowed, "allowed");
    INTERN(str_max_depth, "max_depth");
    INTERN(str_budget, "budget");
    INTERN(str_pack, "pack");
    INTERN(str_pack_array, "pack_array");
    INTERN(str_unpack, "unpack");
    INTERN(str_explain, "explain_pack_error");
    INTERN(str_via, "via");
    INTERN(str_position, "position");
    INTERN(str_rewind, "rewind");
    INTERN(str_packed_as_is, "packed_as_is");
    INTERN(str_unpacked_as_is, "unpacked_as_is");
    INTERN(str_codec, "codec");
    INTERN(str_plain, "plain");
    INTERN(str_by_hash, "by_hash");
    if (PyType_Ready(&CodecType) < 0 || PyType_Ready(&TopMethodType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (structs_module_init(m) < 0 || implicit_module_init() < 0) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&CodecType);
    if (PyModule_AddObject(m, "MsgpackCodec", (PyObject *)&CodecType) < 0) {
        Py_DECREF(&CodecType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
