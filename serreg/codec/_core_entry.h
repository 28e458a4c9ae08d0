/* Registry.serialize and Registry.deserialize as methods written in C (twin: serreg/codec/top.py's
 * top_method, which leaves the Python methods as they are).
 *
 * top_method(kind, function) wraps the Python method ``function``. Called with the value alone
 * (``registry.serialize(obj)``, ``serreg.deserialize(frame)``), it tries the codec's top-level
 * entry (_core_top.h; deserialize then _core_top_value.h) with no Python frame in between, and on
 * NotImplemented calls the registry's
 * full path as the Python method would after its own try (the callables given to
 * MsgpackCodec.bind_registry). Called with anything else (options, keywords, wrong arguments), or
 * on a registry whose codec is not bound, it calls ``function`` itself, which does everything
 * (and words the TypeError of a wrong call). So the Python method stays the one definition of
 * what the call does; this only skips its frame on the common call. */

enum { TOP_SERIALIZE = 0, TOP_DESERIALIZE = 1 };

typedef struct {
    PyObject_HEAD
    PyObject *function; /* the Python method */
    int kind;
    vectorcallfunc vectorcall;
} TopMethod;

/* The registry dict last looked in and what it held: its codec is that one as long as the dict's
 * version is (a version is never given to two dict states, so a freed dict cannot match). */
static PyObject *seen_dict;
static uint64_t seen_version;
static Codec *seen_codec;

static PyObject *str_codec;
static PyTypeObject TopMethodType;

/* The registry's compiled codec, bound to it, or NULL (borrowed; no error set). */
static Codec *bound_codec(PyObject *registry) {
    PyObject **dictptr = _PyObject_GetDictPtr(registry);
    if (dictptr == NULL || *dictptr == NULL || !PyDict_CheckExact(*dictptr)) return NULL;
    PyObject *dict = *dictptr;
#if PY_VERSION_HEX < 0x030C0000
    uint64_t version = ((PyDictObject *)dict)->ma_version_tag;
#else
    uint64_t version = 0; /* no dict versions to rely on: looked up on every call */
    seen_dict = NULL;
#endif
    if (dict == seen_dict && version == seen_version)
        return seen_codec->full_serialize != NULL && seen_codec->owner == registry ? seen_codec : NULL;
    PyObject *codec = PyDict_GetItemWithError(dict, str_codec);
    if (codec == NULL || !PyObject_TypeCheck(codec, &CodecType) || ((Codec *)codec)->full_serialize == NULL ||
        ((Codec *)codec)->owner != registry) /* another registry's codec: the Python method decides */
        return NULL;
    seen_dict = dict;
    seen_version = version;
    seen_codec = (Codec *)codec; /* borrowed: the dict holds it while its version is unchanged */
    return (Codec *)codec;
}

/* The one-call path gives up on a value as soon as it meets a part that is not plain, and the full
 * path then writes the whole value again: for values that are mostly plain with such a part late
 * (1,000 records, then a registered object), every call would write them twice. So when a call gave
 * up after writing W >= WASTE_MIN bytes, the next calls of this registry go straight to the full path:
 * 1 call, then 2, 4 ... after each such call in a row, at most W / 1024 (a skipped call costs the
 * full path's fixed costs, tens of instructions per byte were wasted) and SKIP_MAX; each value then
 * written in one call halves the count. The full path writes the same bytes: only the time differs. */
#define WASTE_MIN 4096
#define SKIP_MAX 64

static PyObject *serialize_top_adaptive(Codec *codec, PyObject *value) {
    if (codec->skip_left > 0) {
        codec->skip_left--;
        Py_RETURN_NOTIMPLEMENTED;
    }
    Py_ssize_t wasted;
    PyObject *result = serialize_top(codec, value, &wasted);
    if (wasted >= WASTE_MIN) {
        Py_ssize_t cap = wasted / 1024 < SKIP_MAX ? wasted / 1024 : SKIP_MAX;
        Py_ssize_t next = codec->skip_next == 0 ? 1 : 2 * (Py_ssize_t)codec->skip_next;
        codec->skip_left = codec->skip_next = (int)(next < cap ? next : cap);
    } else if (codec->skip_next > 0 && result != NULL && result != Py_NotImplemented) {
        codec->skip_next /= 2;
    }
    return result;
}

static PyObject *top_plain(Codec *self);

static PyObject *TopMethod_vectorcall(TopMethod *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    Codec *codec = nargs == 2 && kwnames == NULL ? bound_codec(args[0]) : NULL;
    if (codec == NULL) {
        if (PyErr_Occurred()) return NULL;
        return PyObject_Vectorcall(self->function, args, nargsf, kwnames);
    }
    PyObject *value = args[1], *result, *full[5];
    Py_INCREF(codec); /* the registry's codec attribute may be replaced meanwhile */
    full[0] = value;
    if (self->kind == TOP_SERIALIZE) {
        result = serialize_top_adaptive(codec, value);
        if (result == Py_NotImplemented) {
            Py_DECREF(result);
            full[1] = full[2] = Py_False;
            full[3] = Py_None;
            result = PyObject_Vectorcall(codec->full_serialize, full, 4, NULL);
        }
    } else {
        result = unpack_top(codec, value, top_plain(codec));
        if (result == Py_NotImplemented) { /* not plain: read by its serializer (_core_top_value.h) */
            Py_DECREF(result);
            result = top_value(codec, value);
        }
        if (result == Py_NotImplemented) {
            Py_DECREF(result);
            full[1] = full[2] = full[3] = full[4] = Py_None;
            result = PyObject_Vectorcall(codec->full_deserialize, full, 5, NULL);
        }
    }
    Py_DECREF(codec);
    return result;
}

static PyObject *TopMethod_get(PyObject *self, PyObject *obj, PyObject *type) {
    if (obj == NULL || obj == Py_None) return Py_NewRef(self);
    return PyMethod_New(self, obj);
}

/* __doc__, __name__, __qualname__, __module__: the Python method's. */
static PyObject *TopMethod_getattro(TopMethod *self, PyObject *name) {
    PyObject *found = PyObject_GenericGetAttr((PyObject *)self, name);
    if (found != NULL || !PyErr_ExceptionMatches(PyExc_AttributeError)) return found;
    PyErr_Clear();
    return PyObject_GetAttr(self->function, name);
}

static PyObject *TopMethod_doc(TopMethod *self, void *closure) {
    return PyObject_GetAttrString(self->function, "__doc__");
}

static PyObject *TopMethod_reduce(TopMethod *self, PyObject *unused) {
    return PyObject_GetAttrString(self->function, "__qualname__");
}

static int TopMethod_traverse(TopMethod *self, visitproc visit, void *arg) {
    Py_VISIT(self->function);
    return 0;
}

static void TopMethod_dealloc(TopMethod *self) {
    PyObject_GC_UnTrack(self);
    Py_CLEAR(self->function);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef TopMethod_members[] = {
    {"__wrapped__", T_OBJECT, offsetof(TopMethod, function), READONLY, "the Python method"},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef TopMethod_getset[] = {
    {"__doc__", (getter)TopMethod_doc, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef TopMethod_methods[] = {
    {"__reduce__", (PyCFunction)TopMethod_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject TopMethodType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "serreg.codec._core.TopMethod",
    .tp_basicsize = sizeof(TopMethod),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_vectorcall_offset = offsetof(TopMethod, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_descr_get = TopMethod_get,
    .tp_getattro = (getattrofunc)TopMethod_getattro,
    .tp_dealloc = (destructor)TopMethod_dealloc,
    .tp_traverse = (traverseproc)TopMethod_traverse,
    .tp_members = TopMethod_members,
    .tp_getset = TopMethod_getset,
    .tp_methods = TopMethod_methods,
};

/* top_method(kind, function): kind is "serialize" or "deserialize". */
static PyObject *top_method(PyObject *module, PyObject *args) {
    const char *kind;
    PyObject *function;
    if (!PyArg_ParseTuple(args, "sO", &kind, &function)) return NULL;
    int k = strcmp(kind, "serialize") == 0 ? TOP_SERIALIZE : strcmp(kind, "deserialize") == 0 ? TOP_DESERIALIZE : -1;
    if (k < 0 || !PyCallable_Check(function)) {
        PyErr_SetString(PyExc_ValueError, "top_method(kind, function): kind is 'serialize' or 'deserialize'");
        return NULL;
    }
    TopMethod *self = PyObject_GC_New(TopMethod, &TopMethodType);
    if (self == NULL) return NULL;
    self->function = Py_NewRef(function);
    self->kind = k;
    self->vectorcall = (vectorcallfunc)TopMethod_vectorcall;
    PyObject_GC_Track(self);
    return (PyObject *)self;
}

/* The registry's settings.plain (borrowed), or NULL with an error set. */
static PyObject *top_plain(Codec *self) {
    if (self->plain_slot > 0) {
        PyObject *plain = *(PyObject **)((char *)self->settings + self->plain_slot);
        if (plain != NULL) return plain;
    }
    PyObject *plain = PyObject_GetAttr(self->settings, str_plain);
    Py_XDECREF(plain); /* the settings keep it */
    return plain;
}

/* bind_registry(registry, settings, full_serialize, full_deserialize) */
static PyObject *Codec_bind_registry(Codec *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4 || !PyCallable_Check(args[2]) || !PyCallable_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "bind_registry(registry, settings, full_serialize, full_deserialize)");
        return NULL;
    }
    self->owner = args[0];
    args++;
    self->plain_slot = object_slot(Py_TYPE(args[0]), "plain");
    Py_XSETREF(self->settings, Py_NewRef(args[0]));
    Py_XSETREF(self->full_serialize, Py_NewRef(args[1]));
    Py_XSETREF(self->full_deserialize, Py_NewRef(args[2]));
    Py_RETURN_NONE;
}
