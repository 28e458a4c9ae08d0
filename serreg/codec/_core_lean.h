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

static int lean_skip_left, lean_skip_next; /* one count for the process: a heuristic, no state of a call */

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

/* A dict's items in order, read as dict_next reads them (_core_dict_layout.h); a table of str keys holding its
 * values walked in place, its layout checked once (the dict cannot change while the short way writes it). */
typedef struct {
    PyObject *dict;
    Py_ssize_t pos;
    const void *entry, *stop; /* DictUnicodeEntry, or NULL: dict_next */
} LeanDictWalk;

static inline LeanDictWalk lean_dict_walk(PyObject *dict) {
    LeanDictWalk w = {dict, 0, NULL, NULL};
#if DICT_LAYOUT_MIRRORED
    DictKeys *keys = (DictKeys *)((PyDictObject *)dict)->ma_keys;
    if (dict_layout_ok && ((PyDictObject *)dict)->ma_values == NULL && keys->dk_kind == DICT_KEYS_UNICODE) {
        w.entry = dict_entries(dict);
        w.stop = (const DictUnicodeEntry *)w.entry + keys->dk_nentries;
    }
#endif
    return w;
}

static inline int lean_dict_next(LeanDictWalk *w, PyObject **key, PyObject **value) {
#if DICT_LAYOUT_MIRRORED
    if (w->entry != NULL) {
        const DictUnicodeEntry *e = w->entry;
        while (e < (const DictUnicodeEntry *)w->stop && e->me_value == NULL) e++; /* deleted entries */
        if (e >= (const DictUnicodeEntry *)w->stop) return 0;
        *key = e->me_key;
        *value = e->me_value;
        w->entry = e + 1;
        return 1;
    }
#endif
    return dict_next(w->dict, &w->pos, key, value);
}

/* A dict or list item into o: 0 written, 1 not here. */
static int lean_container(Out *o, PyObject *obj, int depth);

static inline int lean_item_out(Out *o, PyObject *obj, int depth) {
    PyTypeObject *type = Py_TYPE(obj);
    return type == &PyDict_Type || type == &PyList_Type ? lean_container(o, obj, depth) : lean_leaf(o, obj);
}

/* A dict or list (obj) into o: 0 written, 1 not here. */
static int lean_container(Out *o, PyObject *obj, int depth) {
    if (depth >= LEAN_DEPTH || o->cap - o->len < 5) return 1;
    if (Py_TYPE(obj) == &PyDict_Type) {
        LeanDictWalk w = lean_dict_walk(obj);
        PyObject *key, *value;
        if (MAP_HEADER(o, PyDict_GET_SIZE(obj)) < 0) return 1;
        while (lean_dict_next(&w, &key, &value)) { /* no Python code runs here: the dict cannot change */
            if (lean_leaf(o, key) || lean_item_out(o, value, depth + 1)) return 1;
        }
        return 0;
    }
    Py_ssize_t n = PyList_GET_SIZE(obj);
    if (ARRAY_HEADER(o, n) < 0) return 1;
    for (Py_ssize_t i = 0; i < n; i++) { /* no Python code runs here: the list cannot change */
        if (lean_item_out(o, PyList_GET_ITEM(obj, i), depth + 1)) return 1;
    }
    return 0;
}

/* lean_serialize of a dict or a list. */
static PyObject *lean_serialize_container(Codec *self, PyObject *obj) {
    PyTypeObject *type = Py_TYPE(obj);
    if (result_type == NULL || self->snapshot_slot <= 0) return NULL;
    Py_ssize_t items = type == &PyDict_Type ? 2 * PyDict_GET_SIZE(obj) : PyList_GET_SIZE(obj);
    if (items >= LEAN_BYTES) return NULL; /* a byte an item at least: it cannot fit (no call skipped for it) */
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
    int r = lean_container(&o, obj, 0);
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

/* obj's SerializationResult, or NULL: with an error set, an error; without, not here (anything but a dict or
 * a list without a call). */
static inline PyObject *lean_serialize(Codec *self, PyObject *obj) {
    return Py_TYPE(obj) == &PyDict_Type || Py_TYPE(obj) == &PyList_Type ? lean_serialize_container(self, obj) : NULL;
}

/* ------------------------------------------------------------------ reading */

/* The short way of unpack_top, its twin: a trusted frame or result without buffers, of a dict or a list,
 * whose in-band is at most LEAN_BYTES of fixed-size scalars (nil, bools, ints, floats), str and such
 * dicts and lists, read with one recursive reader and no decoder state. The values are those the
 * decoder makes (str through the same decode_str and key cache, ints and floats of the same values;
 * a repeated map key: the last one, as PyDict_SetItem leaves it). Anything else (bin, ext, a map key
 * that is a container, bytes that end early or run on, a str that is not UTF-8, more than LEAN_DEPTH
 * containers deep) is "not here", the error cleared: unpack_top reads the frame again from the start
 * and words what it finds. */

/* The w-byte big-endian unsigned int at p (w: 0, 1, 2, 4 or 8). */
static inline uint64_t lean_be(const unsigned char *p, int w) {
    switch (w) {
    case 1: return p[0];
    case 2: return ((uint64_t)p[0] << 8) | p[1];
    case 4: return ((uint64_t)p[0] << 24) | ((uint64_t)p[1] << 16) | ((uint64_t)p[2] << 8) | p[3];
    case 8: return load_be64(p);
    default: return 0;
    }
}

static PyObject *lean_read_container(const unsigned char *p, Py_ssize_t *at, Py_ssize_t end, Py_ssize_t n, int map,
                                     int depth);

/* The item at p[*at..end), *at moved past it: a new reference, or NULL (not here; an error may be set).
 * Scalars and str are read here, in the caller's loop; a map or array by lean_read_container. */
static inline PyObject *lean_read(const unsigned char *p, Py_ssize_t *at, Py_ssize_t end, int is_key, int depth) {
    Py_ssize_t pos = *at;
    if (pos >= end) return NULL;
    unsigned char b = p[pos++];
    Py_ssize_t left = end - pos, n;
    int map = 0;
    PyObject *v = NULL;
    switch (b >> 5) { /* one jump by the type byte's top three bits, as the decoder's scalar loop */
    case 0: case 1: case 2: case 3: /* positive fixint */
        *at = pos;
        return PyLong_FromLong(b);
    case 7: /* negative fixint */
        *at = pos;
        return PyLong_FromLong((signed char)b);
    case 5: /* fixstr */
        n = b & 0x1f;
        goto str;
    case 4: /* fixmap, fixarray */
        n = b & 0x0f;
        map = b <= 0x8f;
        goto container;
    default:
        break;
    }
    static const signed char size[32] = { /* 0xc0 .. 0xdf: the bytes after the type byte, -1: not here */
        0, -1, 0, 0, -1, -1, -1, -1, -1, -1, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8, -1, -1, -1, -1, -1, 1, 2, 4, 2, 4, 2, 4};
    int w = size[b - 0xc0];
    if (w < 0 || left < w) return NULL;
    uint64_t u = lean_be(p + pos, w);
    pos += w;
    left -= w;
    switch (b) {
    case 0xc0: v = Py_NewRef(Py_None); break;
    case 0xc2: v = Py_NewRef(Py_False); break;
    case 0xc3: v = Py_NewRef(Py_True); break;
    case 0xca: { uint32_t bits = (uint32_t)u; float x; memcpy(&x, &bits, 4); v = PyFloat_FromDouble(x); break; }
    case 0xcb: { double x; memcpy(&x, &u, 8); v = PyFloat_FromDouble(x); break; }
    case 0xcc: case 0xcd: case 0xce: v = PyLong_FromLongLong((long long)u); break;
    case 0xcf: v = PyLong_FromUnsignedLongLong(u); break;
    case 0xd0: v = PyLong_FromLong((int8_t)u); break;
    case 0xd1: v = PyLong_FromLong((int16_t)u); break;
    case 0xd2: v = PyLong_FromLong((int32_t)u); break;
    case 0xd3: v = PyLong_FromLongLong((int64_t)u); break;
    case 0xd9: case 0xda: case 0xdb: n = (Py_ssize_t)u; goto str;
    case 0xdc: case 0xdd: n = (Py_ssize_t)u; goto container;
    default: n = (Py_ssize_t)u; map = 1; goto container; /* 0xde, 0xdf */
    }
    *at = pos;
    return v;
str:
    if (left < n) return NULL;
    *at = pos + n;
    return decode_str(p + pos, n, left, is_key);
container: /* n items, each at least one byte */
    if (is_key || depth >= LEAN_DEPTH || n > left || (map && 2 * n > left)) return NULL;
    *at = pos;
    return lean_read_container(p, at, end, n, map, depth);
}

/* A map of 1 .. MAP_SHAPE_MAX keys at p[*at..end): its keys and values read first, then the dict made as the
 * decoder makes it (build_container, _core_decode_values.h): a copy of the dict of a shape its keys are, else
 * key by key (its keys then kept as a shape when met twice running). */
static PyObject *lean_read_shaped(const unsigned char *p, Py_ssize_t *at, Py_ssize_t end, Py_ssize_t n, int depth) {
    PyObject *items[2 * (MAP_SHAPE_MAX > 0 ? MAP_SHAPE_MAX : 1)], *dict = NULL;
    Py_ssize_t got = 0;
    int failed = 0;
    while (got < 2 * n && (items[got] = lean_read(p, at, end, !(got & 1), depth + 1)) != NULL) got++;
    if (got == 2 * n && (dict = map_from_shape(items, n, &failed)) != NULL) { /* the values' references went to it */
        for (Py_ssize_t i = 0; i < got; i += 2) Py_DECREF(items[i]);
        return dict;
    }
    if (got == 2 * n && !failed && (dict = _PyDict_NewPresized(n)) != NULL) {
        for (Py_ssize_t i = 0; i < got; i += 2) {
            if (PyDict_SetItem(dict, items[i], items[i + 1]) < 0) {
                Py_CLEAR(dict);
                break;
            }
        }
        if (dict != NULL) map_shape_keep(items, n, dict);
    }
    for (Py_ssize_t i = 0; i < got; i++) Py_DECREF(items[i]);
    return dict;
}

/* The map (map set) or array of n items at p[*at..end). */
static PyObject *lean_read_container(const unsigned char *p, Py_ssize_t *at, Py_ssize_t end, Py_ssize_t n, int map,
                                     int depth) {
    if (map && n >= 1 && n <= MAP_SHAPE_MAX) return lean_read_shaped(p, at, end, n, depth);
    if (!map) {
        PyObject *list = PyList_New(n);
        for (Py_ssize_t i = 0; list != NULL && i < n; i++) {
            PyObject *item = lean_read(p, at, end, 0, depth + 1);
            if (item == NULL) Py_CLEAR(list);
            else PyList_SET_ITEM(list, i, item);
        }
        return list;
    }
    PyObject *dict = _PyDict_NewPresized(n);
    for (Py_ssize_t i = 0; dict != NULL && i < n; i++) {
        PyObject *key = lean_read(p, at, end, 1, depth + 1), *item;
        if (key == NULL || (item = lean_read(p, at, end, 0, depth + 1)) == NULL) {
            Py_XDECREF(key);
            Py_CLEAR(dict);
            break;
        }
        if (PyDict_SetItem(dict, key, item) < 0) Py_CLEAR(dict);
        Py_DECREF(key);
        Py_DECREF(item);
    }
    return dict;
}

/* The header of an unsigned frame without out-of-band buffers (as unpack_top checks it), size bytes long. */
static inline int lean_frame_head(const unsigned char *p, uint64_t size) {
    if (size < FRAME_HEADER + HASH_SIZE || memcmp(p, SECTION_HEAD, 16) != 0) return 0; /* magic ... no buffers */
#if !PY_BIG_ENDIAN
    uint64_t lengths[2];
    memcpy(lengths, p + 16, 16);
    return lengths[0] == size - FRAME_HEADER && lengths[1] == size;
#else
    return frame_le(p + 16, 8) == size - FRAME_HEADER && frame_le(p + 24, 8) == size;
#endif
}

/* The value of data (a frame or result) read the short way, or NULL: with an error set, an error;
 * without, not here. plain: the registry's settings.plain, as unpack_top is given it. */
static PyObject *lean_deserialize(Codec *self, PyObject *data, PyObject *plain) {
    if (plain == NULL || plain != self->plain_seen || self->plain_depth == 0 || result_type == NULL ||
        decode_state_var == NULL || self->snapshot_slot <= 0 || self->n_unpacked < 0)
        return NULL; /* limits not parsed yet, untrusted, max_depth 0 ...: unpack_top */
    PyObject *frame;
    if (Py_TYPE(data) == result_type) {
        frame = SLOT(data, R_FRAME);
        if (frame == NULL || !PyBytes_CheckExact(frame) || SLOT(data, R_BUFFERS) != Py_None ||
            PyBytes_GET_SIZE(frame) < FRAME_HEADER + HASH_SIZE)
            return NULL;
    } else if (PyBytes_CheckExact(data)) {
        frame = data;
        if ((uint64_t)PyBytes_GET_SIZE(frame) > self->plain_size ||
            !lean_frame_head((const unsigned char *)PyBytes_AS_STRING(frame), (uint64_t)PyBytes_GET_SIZE(frame)))
            return NULL;
    } else {
        return NULL;
    }
    Py_ssize_t size = PyBytes_GET_SIZE(frame);
    if (size - FRAME_HEADER - HASH_SIZE > LEAN_BYTES) return NULL;
    PyObject *snapshot = *(PyObject **)((char *)self->snapshots + self->snapshot_slot);
    if (snapshot == NULL || snapshot != self->cached_snapshot) return NULL;
    const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(frame);
    PyObject *type = unpacked_as_is(self, &self->tables, (const char *)p + FRAME_HEADER);
    if (type != (PyObject *)&PyDict_Type && type != (PyObject *)&PyList_Type) return NULL;
    int inside = decode_nested();
    if (inside) return NULL; /* a nested call: it follows the rules of the outer one (unpack_top says so) */
    Py_INCREF(frame); /* bytes: read in place, kept alive (the result's slot may be replaced meanwhile) */
    Py_ssize_t pos = FRAME_HEADER + HASH_SIZE;
    PyObject *value = lean_read(p, &pos, size, 0, 0);
    Py_DECREF(frame);
    if (value != NULL && (pos != size || (PyObject *)Py_TYPE(value) != type)) Py_CLEAR(value);
    if (value == NULL) PyErr_Clear(); /* unpack_top reads it again and reports what is wrong */
    return value;
}
