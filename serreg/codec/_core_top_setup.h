/* What the top-level entries of serreg/codec/_core.c (_core_top.h) work with: the registry's tables
 * (current_tables, _core_tables.h; here without a call when nothing was published), the result
 * class they make and read (its slot offsets; made without zeroing and freed by result_dealloc when
 * its layout allows), the stacks kept between calls, and set_top_level, which tells them all of it. */

/* The tables of the registry's snapshot now: current_tables without a call when nothing was
 * published since the last call (the common case: the snapshot slot read, a pointer compared). */
static inline int top_tables(Codec *self, Tables *out) {
    if (self->snapshot_slot > 0) {
        PyObject *snapshot = *(PyObject **)((char *)self->snapshots + self->snapshot_slot);
        if (snapshot == self->cached_snapshot && snapshot != NULL) {
            *out = self->tables;
            return 0;
        }
    }
    return current_tables(self, out);
}


/* packed_as_is[type] (borrowed), or NULL (an error set if the lookup failed). */
static PyObject *packed_as_is(Codec *self, Tables *t, PyTypeObject *type) {
    if (self->n_packed >= 0) {
        for (int i = 0; i < self->n_packed; i++) {
            if (self->packed_type[i] == (PyObject *)type) return self->packed_hash[i];
        }
        return NULL;
    }
    return t->packed_as_is == NULL ? NULL : PyDict_GetItemWithError(t->packed_as_is, (PyObject *)type);
}

/* unpacked_as_is[hash] for the 8 bytes at p (borrowed), or NULL (an error set if the lookup failed). */
static PyObject *unpacked_as_is(Codec *self, Tables *t, const char *p) {
    if (self->n_unpacked >= 0) {
        uint64_t h;
        memcpy(&h, p, HASH_SIZE);
        for (int i = 0; i < self->n_unpacked; i++) {
            if (self->unpacked_hash[i] == h) return self->unpacked_type[i];
        }
        return NULL;
    }
    PyObject *hash = PyBytes_FromStringAndSize(p, HASH_SIZE);
    if (hash == NULL) return NULL;
    PyObject *type = PyDict_GetItemWithError(t->unpacked_as_is, hash);
    Py_DECREF(hash);
    return type;
}

static PyTypeObject *result_type; /* serreg.result.SerializationResult */
/* Offsets of its slots (serreg/result.py): _in_band, _class_hash, _buffers (None: no buffers), _key, _frame
 * (None, or the result's whole frame, its in-band section after the header: then _in_band is None). */
enum { R_IN_BAND, R_CLASS_HASH, R_BUFFERS, R_KEY, R_FRAME, N_RESULT_SLOTS };
static const char *RESULT_SLOTS[N_RESULT_SLOTS] = {"_in_band", "_class_hash", "_buffers", "_key", "_frame"};
static Py_ssize_t result_slot[N_RESULT_SLOTS];

#define SLOT(obj, i) (*(PyObject **)((char *)(obj) + result_slot[i]))

/* Stacks kept by the codec between calls: the encoder's, the decoder's and its value stack. */
enum { KEPT_ENC, KEPT_DEC, KEPT_VALS };
#define KEPT_MAX 1024 /* entries: a stack grown past this is given back */

/* Take the kept stacks first .. last (the others stay kept: no other call takes any while busy). */
static int take_kept(Codec *self, void **stacks, Py_ssize_t *caps, int first, int last) {
    if (self->kept_busy) return 0; /* a call inside a call (a finalizer): its own stacks */
    self->kept_busy = 1;
    for (int i = first; i <= last; i++) {
        stacks[i] = self->kept[i];
        caps[i] = self->kept_cap[i];
        self->kept[i] = NULL;
        self->kept_cap[i] = 0;
    }
    return 1;
}

static void give_back(Codec *self, int took, void *stack, Py_ssize_t cap, int which) {
    if (took && cap <= KEPT_MAX && self->kept[which] == NULL) {
        self->kept[which] = stack;
        self->kept_cap[which] = cap;
    } else {
        PyMem_Free(stack);
    }
}

/* Runs a set-up decoder on the codec's kept stacks (or its own, when a nested call holds them) and
 * answers the value it read (NULL with an error set, or not: the caller decides). */
static PyObject *dec_run_kept(Codec *self, Dec *d) {
    void *stacks[3] = {NULL, NULL, NULL};
    Py_ssize_t caps[3] = {0, 0, 0};
    int took = take_kept(self, stacks, caps, KEPT_DEC, KEPT_VALS);
    d->stack = stacks[KEPT_DEC];
    d->cap = caps[KEPT_DEC];
    d->vals = stacks[KEPT_VALS];
    d->capvals = caps[KEPT_VALS];
    int r = dec_run(d);
    PyObject *value = r == 0 ? d->vals[--d->nvals] : NULL;
    for (Py_ssize_t i = 0; i < d->nvals; i++) Py_DECREF(d->vals[i]);
    give_back(self, took, d->stack, d->cap, KEPT_DEC);
    give_back(self, took, d->vals, d->capvals, KEPT_VALS);
    if (took) self->kept_busy = 0;
    if (d->ext_kinds != NULL) PyMem_Free(d->ext_kinds);
    return value;
}

#define FRAME_HEADER 32

static PyObject *top_hash[2];          /* ClassIDHashes of float and bytes (TOP_IDS) */
static PyObject *kind_hash_bytes[N_KINDS]; /* kind_hash as bytes objects */
static Py_ssize_t bytes_in_band_max;   /* bytes at least this long travel out of band (serialize_top_bytes) */
static PyObject *nil_in_band;          /* b"\xc0": the in-band of bytes that travel out of band */

/* Results made and freed cheaply. SerializationResult is a Python class whose instances are the
 * object header and its five slots, nothing else (no __dict__, no __weakref__, no finalizer, base
 * object): when set_top_level finds it so, serialize_top makes one without zeroing it first (every
 * slot is set at once), and its tp_dealloc is result_dealloc, which frees the five slots and the
 * object: what subtype_dealloc does for such a class, without its general steps. A subclass keeps
 * subtype_dealloc, which clears the subclass's own slots and then calls result_dealloc for these. */
static int result_fast;

static int plain_result_layout(PyTypeObject *type) {
    return (type->tp_flags & Py_TPFLAGS_HEAPTYPE) && (type->tp_flags & Py_TPFLAGS_HAVE_GC) &&
           type->tp_base == &PyBaseObject_Type && type->tp_basicsize == (Py_ssize_t)(sizeof(PyObject) +
           N_RESULT_SLOTS * sizeof(PyObject *)) && type->tp_itemsize == 0 && type->tp_dictoffset == 0 &&
           type->tp_weaklistoffset == 0 && type->tp_finalize == NULL && type->tp_del == NULL &&
           type->tp_free == PyObject_GC_Del;
}

static void result_dealloc(PyObject *self) {
    PyTypeObject *type = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    for (int i = 0; i < N_RESULT_SLOTS; i++) Py_XDECREF(SLOT(self, i)); /* freed: no slot is read again */
    type->tp_free(self);
    Py_DECREF(type); /* a heap type's instances hold a reference to it */
}

/* The first 16 bytes of an unsigned frame without out-of-band buffers (docs/FORMAT.md, section 4):
 * magic, format version 1, flags, reserved, no buffers, reserved. */
static const unsigned char SECTION_HEAD[16] = {'S', 'R', 'E', 'G', 1};

/* A new bytes object holding the unsigned frame, without out-of-band buffers, of the in-band section
 * hash (8 bytes) + body (n bytes): the frame a result's to_bytes returns, written in one allocation. */
/* The frame of one in-band section: hash, then body[0..n) (body NULL: left for the caller to fill). */
static PyObject *section_frame(const char *hash, const char *body, Py_ssize_t n) {
    PyObject *frame = PyBytes_FromStringAndSize(NULL, FRAME_HEADER + HASH_SIZE + n);
    if (frame == NULL) return NULL;
    unsigned char *out = (unsigned char *)PyBytes_AS_STRING(frame);
    uint64_t in_band = (uint64_t)(HASH_SIZE + n), total = in_band + FRAME_HEADER;
    memcpy(out, SECTION_HEAD, 16);
#if !PY_BIG_ENDIAN
    memcpy(out + 16, &in_band, 8);
    memcpy(out + 24, &total, 8);
#else
    for (int i = 0; i < 8; i++) {
        out[16 + i] = (unsigned char)(in_band >> (8 * i));
        out[24 + i] = (unsigned char)(total >> (8 * i));
    }
#endif
    memcpy(out + FRAME_HEADER, hash, HASH_SIZE);
    if (n && body != NULL) memcpy(out + FRAME_HEADER + HASH_SIZE, body, n);
    return frame;
}

/* A result without buffers made by serialize_top holds only bytes and None: no reference cycle can pass
 * through it, so the garbage collector need not track it, until Python code gives it a container (the
 * out_of_band_buffers property, the in_band_buffer setter): serreg/result.py then tracks it (track, in
 * serreg/wire/_frame.c). Set when that twin is compiled; 0: every result is tracked. */
static int result_untracked_ok;

/* set_top_level(SerializationResult, {"float": hash, "bytes": hash}, bytes out-of-band threshold,
 *               results may be left untracked) */
static PyObject *set_top_level(PyObject *module, PyObject *args) {
    PyObject *type, *hashes;
    Py_ssize_t threshold;
    int untracked_ok;
    if (!PyArg_ParseTuple(args, "O!O!np", &PyType_Type, &type, &PyDict_Type, &hashes, &threshold, &untracked_ok))
        return NULL;
    Py_ssize_t offsets[N_RESULT_SLOTS];
    for (int i = 0; i < N_RESULT_SLOTS; i++) {
        PyObject *descr = PyDict_GetItemString(((PyTypeObject *)type)->tp_dict, RESULT_SLOTS[i]);
        if (descr == NULL || Py_TYPE(descr) != &PyMemberDescr_Type ||
            ((PyMemberDescrObject *)descr)->d_member->type != T_OBJECT_EX) {
            PyErr_Format(PyExc_TypeError, "%s has no object slot %s", ((PyTypeObject *)type)->tp_name, RESULT_SLOTS[i]);
            return NULL;
        }
        offsets[i] = ((PyMemberDescrObject *)descr)->d_member->offset;
    }
    for (int i = 0; i < 2; i++) {
        PyObject *h = PyDict_GetItemString(hashes, TOP_IDS[i]);
        if (h == NULL || !PyBytes_CheckExact(h) || PyBytes_GET_SIZE(h) != HASH_SIZE) {
            PyErr_Format(PyExc_ValueError, "no 8-byte ClassIDHash given for %s", TOP_IDS[i]);
            return NULL;
        }
        Py_INCREF(h);
        Py_XSETREF(top_hash[i], h);
    }
    for (int k = 1; k < N_KINDS; k++) {
        PyObject *h = PyBytes_FromStringAndSize((const char *)kind_hash[k], HASH_SIZE);
        if (h == NULL) return NULL;
        Py_XSETREF(kind_hash_bytes[k], h);
    }
    if (nil_in_band == NULL && (nil_in_band = PyBytes_FromStringAndSize("\xc0", 1)) == NULL) return NULL;
    memcpy(result_slot, offsets, sizeof offsets);
    bytes_in_band_max = threshold;
    Py_INCREF(type);
    Py_XSETREF(result_type, (PyTypeObject *)type);
    result_fast = plain_result_layout(result_type);
    result_untracked_ok = untracked_ok;
    if (result_fast) result_type->tp_dealloc = result_dealloc;
    Py_RETURN_NONE;
}

enum { TOP_FLOAT = 0, TOP_BYTES = 1 };

/* The ClassIDHash of obj's type when its standard serializer writes obj as the codec writes it
 * (inside an ext 0 for the kinds: *ext set), or NULL (borrowed; no error set). */
static PyObject *top_class_hash(Codec *self, Tables *t, PyObject *obj, int *ext) {
    PyTypeObject *type = Py_TYPE(obj);
    *ext = 0;
    PyObject *hash = packed_as_is(self, t, type);
    if (hash != NULL || PyErr_Occurred()) return hash;
    if (type == &PyLong_Type) return t->write[K_INT] ? kind_hash_bytes[K_INT] : NULL;
    if (type == &PyFloat_Type) return t->top_write[TOP_FLOAT] ? top_hash[TOP_FLOAT] : NULL;
    if (type == &PyBytes_Type)
        return t->top_write[TOP_BYTES] && PyBytes_GET_SIZE(obj) < bytes_in_band_max ? top_hash[TOP_BYTES] : NULL;
    int kind = kind_of(type);
    if (kind == K_NONE || kind == K_SET || kind == K_FROZENSET || kind == K_BYTEARRAY || !t->write[kind]) return NULL;
    *ext = 1;
    return kind_hash_bytes[kind];
}

/* The length of the ext header at the start of buf (written by ext_begin/ext_end). */
static Py_ssize_t ext_header(const unsigned char *buf) {
    switch (buf[0]) {
    case 0xc7: return 3;
    case 0xc8: return 4;
    case 0xc9: return 6;
    default: return 2; /* fixext */
    }
}
