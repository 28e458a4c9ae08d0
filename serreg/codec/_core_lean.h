/* The short way of serialize_top (_core_top.h) for the commonest small value: a dict or list of
 * plain leaves (str of ASCII, int of 64 bits, float, bool, None) and of such dicts and lists, whose
 * in-band fits in LEAN_BYTES. It writes into a buffer on the C stack with no encoder state, no kept
 * stacks, no buffer list and no struct table, then makes the frame and the result exactly as
 * serialize_top does (the same bytes: the same leaf writer, enc_plain_leaf, and the same headers).
 * Anything else (another type anywhere, a native type taken over by a user serializer, a value
 * nested deeper than LEAN_DEPTH, more bytes than LEAN_BYTES, the registry's tables republished
 * since the codec last read them) is "not here": the caller goes on to serialize_top, which writes
 * the value from the start. The work thrown away is at most LEAN_BYTES of writing, and after each
 * value not taken here the next 1, 2, 4 ... LEAN_SKIP_MAX calls do not try (halved by each value
 * taken), so values that never fit cost next to nothing. */

#define LEAN_BYTES 512
#define LEAN_DEPTH 8
#define LEAN_SKIP_MAX 64

static int lean_skip_left, lean_skip_next;

/* A plain leaf into o, only if it fits in o's room: 0 written, 1 not here. */
static inline int lean_leaf(Out *o, PyObject *obj) {
    Py_ssize_t room = o->cap - o->len;
    if (Py_TYPE(obj) == &PyUnicode_Type) {
        if (!PyUnicode_IS_COMPACT_ASCII(obj) || PyUnicode_GET_LENGTH(obj) + 5 > room) return 1;
    } else if (room < 9) {
        return 1;
    }
    return enc_plain_leaf(o, obj, 0) == 0 ? 0 : 1;
}

/* obj into o: 0 written, 1 not here. */
static int lean_value(Out *o, PyObject *obj, int depth) {
    PyTypeObject *type = Py_TYPE(obj);
    if (type == &PyDict_Type) {
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        if (depth >= LEAN_DEPTH || o->cap - o->len < 5 || MAP_HEADER(o, PyDict_GET_SIZE(obj)) < 0) return 1;
        while (DICT_NEXT(obj, &pos, &key, &value)) {
            if (lean_leaf(o, key) || lean_value(o, value, depth + 1)) return 1;
        }
        return 0;
    }
    if (type == &PyList_Type) {
        Py_ssize_t n = PyList_GET_SIZE(obj);
        if (depth >= LEAN_DEPTH || o->cap - o->len < 5 || ARRAY_HEADER(o, n) < 0) return 1;
        for (Py_ssize_t i = 0; i < n; i++) { /* no Python code runs here: the list cannot change */
            if (lean_value(o, PyList_GET_ITEM(obj, i), depth + 1)) return 1;
        }
        return 0;
    }
    return lean_leaf(o, obj);
}

/* obj's SerializationResult, or NULL: with an error set, an error; without, not here. */
static PyObject *lean_serialize(Codec *self, PyObject *obj) {
    PyTypeObject *type = Py_TYPE(obj);
    if ((type != &PyDict_Type && type != &PyList_Type) || result_type == NULL || self->snapshot_slot <= 0) return NULL;
    if (lean_skip_left > 0) {
        lean_skip_left--;
        return NULL;
    }
    PyObject *snapshot = *(PyObject **)((char *)self->snapshots + self->snapshot_slot);
    if (snapshot == NULL || snapshot != self->cached_snapshot || self->tables.native_overrides != 0) return NULL;
    PyObject *hash = packed_as_is(self, &self->tables, type); /* borrowed: the cached snapshot holds it */
    if (hash == NULL || !PyBytes_CheckExact(hash) || PyBytes_GET_SIZE(hash) != HASH_SIZE) return NULL;
    char buf[LEAN_BYTES];
    Out o = {buf, 0, LEAN_BYTES, 0};
    int r = lean_value(&o, obj, 0);
    if (o.owns) { /* grown past the stack buffer after all (never, given the room checks): not here */
        PyMem_Free(o.buf);
        r = 1;
    }
    if (r != 0) {
        PyErr_Clear(); /* serialize_top writes it again and reports what it finds */
        lean_skip_next = lean_skip_next == 0 ? 1 : lean_skip_next * 2 > LEAN_SKIP_MAX ? LEAN_SKIP_MAX : lean_skip_next * 2;
        lean_skip_left = lean_skip_next;
        return NULL;
    }
    lean_skip_next /= 2;
    Py_INCREF(hash);
    PyObject *frame = section_frame(PyBytes_AS_STRING(hash), o.buf, o.len), *result = NULL;
    if (frame != NULL)
        result = result_fast ? (PyObject *)PyObject_GC_New(PyObject, result_type) : result_type->tp_alloc(result_type, 0);
    if (result == NULL) {
        Py_DECREF(hash);
        Py_XDECREF(frame);
        return NULL;
    }
    /* As serialize_top makes a result without buffers: its in-band read from the frame (serreg/result.py). */
    SLOT(result, R_IN_BAND) = Py_NewRef(Py_None);
    SLOT(result, R_CLASS_HASH) = hash;
    SLOT(result, R_BUFFERS) = Py_NewRef(Py_None);
    SLOT(result, R_KEY) = Py_NewRef(Py_None);
    SLOT(result, R_FRAME) = frame;
    if (result_fast && !result_untracked_ok) PyObject_GC_Track(result);
    return result;
}
