/* MsgpackCodec.unpack of serreg/codec/_core.c: one msgpack document, with an explicit stack.
 *
 * Open arrays and maps, and the ext 0 values of standard containers (tuple, set, frozenset)
 * read in place, are frames on a heap stack; their items wait on a value stack until the
 * container is complete.  Declared counts are never trusted beyond the bytes left: every
 * item still owed by an open container needs at least one byte after the current position,
 * so what is allocated stays proportional to the document's length, in every mode.
 * Return codes: as in the encoder (-1 a Python error, -2 not handled here). */

enum { D_ARRAY, D_MAP, D_EXT };

typedef struct {
    int kind, ext_kind, saved_doc_depth;
    Py_ssize_t remaining, vstart, saved_doc_end;
} DFrame;

typedef struct {
    Codec *codec;
    Tables t;
    const unsigned char *p;
    Py_ssize_t pos, end, doc_end, pending;
    int doc_depth;
    PyObject *oob;
    /* the DecodeState of the deserialize call running (loaded at the first need) */
    int state_loaded, inline_ok, untrusted, called, rewindable, plain_only;
    int saw_timestamp; /* an ext -1 was met: refused with the pure codec's words */
    PyObject *state, *saved_budget, *saved_position;
    long long depth, initial_depth, written_depth, max_depth;
    char allowed[N_KINDS];
    PyObject **vals;
    Py_ssize_t nvals, capvals;
    int *ext_kinds;           /* the values read in place around a failing nested value, outermost first */
    Py_ssize_t ext_open;
    DFrame *stack;
    Py_ssize_t sp, cap;
    PyObject *struct_plans, *struct_readers, *struct_leaves; /* the struct table in scope, read at the first ext 1 */
    int plain_top; /* unpack_top: a value that calls a serializer is not plain (-1, no error set) */
    int struct_top; /* unpack_top of a struct table's value: its structs are read here (DecodeScope set) */
} Dec;

static long long as_long_long(PyObject *v, long long fallback) {
    if (v == NULL || !PyLong_Check(v)) return fallback;
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow > 0) return LLONG_MAX;
    if (overflow < 0) return LLONG_MIN;
    return x;
}

static int dec_load_state(Dec *d) {
    if (d->state_loaded) return 0;
    d->state_loaded = 1;
    if (decode_state_var == NULL || PyContextVar_Get(decode_state_var, NULL, &d->state) < 0) return -1;
    if (d->state == NULL || d->state == Py_None) return 0;
    PyObject *allowed = PyObject_GetAttr(d->state, str_allowed);
    PyObject *depth = PyObject_GetAttr(d->state, str_depth);
    PyObject *max_depth = PyObject_GetAttr(d->state, str_max_depth);
    d->saved_budget = PyObject_GetAttr(d->state, str_budget);
    int ok = allowed != NULL && depth != NULL && max_depth != NULL && d->saved_budget != NULL;
    if (ok) {
        d->untrusted = allowed != Py_None;
        d->initial_depth = d->written_depth = d->depth = as_long_long(depth, LLONG_MAX / 2);
        d->max_depth = as_long_long(max_depth, 0);
        for (int k = 1; k < N_KINDS && ok; k++) {
            if (!d->untrusted) { d->allowed[k] = 1; continue; }
            PyObject *h = PyBytes_FromStringAndSize((const char *)kind_hash[k], HASH_SIZE);
            int has = h == NULL ? -1 : PySequence_Contains(allowed, h);
            Py_XDECREF(h);
            if (has < 0) ok = 0;
            d->allowed[k] = (char)(has > 0);
        }
        d->inline_ok = ok && d->depth >= 0 && d->depth < LLONG_MAX / 2;
    }
    Py_XDECREF(allowed);
    Py_XDECREF(depth);
    Py_XDECREF(max_depth);
    return ok ? 0 : -1;
}

static int dec_write_depth(Dec *d, long long depth) {
    if (d->written_depth == depth) return 0;
    PyObject *v = PyLong_FromLongLong(depth);
    if (v == NULL) return -1;
    int r = PyObject_SetAttr(d->state, str_depth, v);
    Py_DECREF(v);
    if (r == 0) d->written_depth = depth;
    return r;
}

static int dec_load_state(Dec *d);
static int read_int(const unsigned char *p, Py_ssize_t *at, Py_ssize_t end, long long *out);

#define STRUCTURE_CHECK_THRESHOLD 1024 /* serreg/codec/checks.py: longer untrusted documents are walked first */
#define K_STRUCT N_KINDS /* ext_kind of a D_EXT frame holding a struct instance's array */
#define K_STRUCTS (N_KINDS + 1) /* ... of one holding a list of instances' columns (ext 2) */

/* The struct reader (_core_structs_decode.h) and this decoder call each other: the decoder
 * reaches it through this table, which _core.c fills at import. */
typedef struct {
    /* an ext 1 payload: 1 and *out an instance read whole, 0 to open its array, -1/-2 errors */
    int (*here)(Dec *d, const unsigned char *payload, Py_ssize_t n, PyObject **out);
    PyObject *(*finish)(Dec *d, PyObject *items); /* an instance from its decoded array */
    /* an ext 2 payload, and the list of instances from its decoded array, alike */
    int (*here_list)(Dec *d, const unsigned char *payload, Py_ssize_t n, PyObject **out);
    PyObject *(*finish_list)(Dec *d, PyObject *items);
} DecStructOps;

static const DecStructOps *dec_structs;

static int push_val(Dec *d, PyObject *v) {
    if (v == NULL) return -2;
    if (d->nvals == d->capvals) {
        Py_ssize_t cap = d->capvals ? 2 * d->capvals : 64;
        PyObject **vals = PyMem_Realloc(d->vals, cap * sizeof(PyObject *));
        if (vals == NULL) { Py_DECREF(v); PyErr_NoMemory(); return -1; }
        d->vals = vals;
        d->capvals = cap;
    }
    d->vals[d->nvals++] = v;
    return 0;
}

static int push_frame(Dec *d, int kind, Py_ssize_t items) {
    if (d->sp == d->cap) {
        Py_ssize_t cap = d->cap ? 2 * d->cap : 32;
        DFrame *stack = PyMem_Realloc(d->stack, cap * sizeof(DFrame));
        if (stack == NULL) { PyErr_NoMemory(); return -1; }
        d->stack = stack;
        d->cap = cap;
    }
    DFrame *f = &d->stack[d->sp++];
    f->kind = kind;
    f->remaining = items;
    f->vstart = d->nvals;
    return 0;
}

static int cmp_hash(const void *a, const void *b) {
    Py_hash_t x = *(const Py_hash_t *)a, y = *(const Py_hash_t *)b;
    return x < y ? -1 : x > y;
}

/* Untrusted mode: more than MAX_KEYS_PER_HASH keys repeating a hash is hash flooding. */
static int check_spread(Dec *d, PyObject **keys, Py_ssize_t n, Py_ssize_t step) {
    if (n <= MAX_KEYS_PER_HASH) return 0;
    if (dec_load_state(d) < 0) return -2;
    if (!d->untrusted) return 0;
    Py_hash_t *hashes = PyMem_Malloc(n * sizeof(Py_hash_t));
    if (hashes == NULL) return -2;
    for (Py_ssize_t i = 0; i < n; i++) {
        hashes[i] = PyObject_Hash(keys[i * step]);
        if (hashes[i] == -1 && PyErr_Occurred()) { PyMem_Free(hashes); return -2; }
    }
    qsort(hashes, n, sizeof(Py_hash_t), cmp_hash);
    Py_ssize_t repeats = 0;
    for (Py_ssize_t i = 1; i < n; i++) repeats += hashes[i] == hashes[i - 1];
    PyMem_Free(hashes);
    if (repeats <= MAX_KEYS_PER_HASH) return 0;
    if (hash_spread_check == NULL) return -2;
    /* The refusal serreg words (serreg/codec/checks.py), raised before anything is built. */
    PyObject *list = PyList_New(n);
    if (list == NULL) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_INCREF(keys[i * step]);
        PyList_SET_ITEM(list, i, keys[i * step]);
    }
    PyObject *done = PyObject_CallFunction(hash_spread_check, "Os", list, step == 2 ? "map" : "set");
    Py_DECREF(list);
    if (done == NULL) return -1;
    Py_DECREF(done);
    return -2;
}

static PyObject *build_container(Dec *d, DFrame *f) {
    Py_ssize_t n = d->nvals - f->vstart;
    PyObject **items = d->vals + f->vstart, *out;
    if (f->kind == D_ARRAY) {
        out = PyList_New(n);
        if (out == NULL) return NULL;
        for (Py_ssize_t i = 0; i < n; i++) PyList_SET_ITEM(out, i, items[i]);
        d->nvals = f->vstart;
        return out;
    }
    out = NULL;
    if (check_spread(d, items, n / 2, 2) == 0 && (out = _PyDict_NewPresized(n / 2)) != NULL) {
        for (Py_ssize_t i = 0; i < n; i += 2) {
            if (PyDict_SetItem(out, items[i], items[i + 1]) < 0) { Py_CLEAR(out); break; }
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) Py_DECREF(items[i]);
    d->nvals = f->vstart;
    return out;
}

static PyObject *finish_ext(Dec *d, int kind, PyObject *inner) {
    if (!PyList_CheckExact(inner)) return NULL;
    if (kind == K_STRUCT) return dec_structs->finish(d, inner);
    if (kind == K_STRUCTS) return dec_structs->finish_list(d, inner);
    if (kind == K_TUPLE) return PyList_AsTuple(inner);
    if (check_spread(d, &PyList_GET_ITEM(inner, 0), PyList_GET_SIZE(inner), 1) < 0) return NULL;
    PyObject *set = kind == K_SET ? PySet_New(NULL) : PyFrozenSet_New(NULL);
    for (Py_ssize_t i = 0; set != NULL && i < PyList_GET_SIZE(inner); i++) {
        if (PySet_Add(set, PyList_GET_ITEM(inner, i)) < 0) Py_CLEAR(set);
    }
    return set;
}

/* A msgpack int at p[*at..end) whose unsigned form fits an int: 1 and its value, or 0. */
static int read_int(const unsigned char *p, Py_ssize_t *at, Py_ssize_t end, long long *out) {
    return read_int_upto(p, at, end, out, (unsigned long long)INT_MAX);
}

static int read_ints(const unsigned char *p, Py_ssize_t *at, Py_ssize_t end, int count, int *out) {
    for (int k = 0; k < count; k++) {
        long long v;
        if (!read_int(p, at, end, &v) || v < INT_MIN || v > INT_MAX) return 0;
        out[k] = (int)v;
    }
    return 1;
}

/* The value of a standard leaf ext 0 in its usual form; NULL (no error set) to let its
 * serializer decode it (another form, or a value it refuses with its own message). */
static PyObject *dec_leaf(int kind, const unsigned char *p, Py_ssize_t m) {
    Py_ssize_t at = 1;
    int f[8];
    PyObject *v = NULL;
    if (m < 1) return NULL;
    switch (kind) {
    case K_INT: {
        Py_ssize_t n, head;
        if (p[0] == 0xc4 && m >= 2) { n = p[1]; head = 2; }
        else if (p[0] == 0xc5 && m >= 3) { n = (p[1] << 8) | p[2]; head = 3; }
        else return NULL;
        if (n < 1 || head + n != m) return NULL;
        v = _PyLong_FromByteArray(p + head, n, 1, 1);
        break;
    }
    case K_COMPLEX: {
        if (m != 19 || p[0] != 0x92 || p[1] != 0xcb || p[10] != 0xcb) return NULL;
        double x[2];
        for (int k = 0; k < 2; k++) {
            uint64_t bits = 0;
            for (int i = 0; i < 8; i++) bits = (bits << 8) | p[2 + 9 * k + i];
            memcpy(&x[k], &bits, 8);
        }
        v = PyComplex_FromDoubles(x[0], x[1]);
        break;
    }
    case K_DATETIME: {
        if (p[0] != 0x99 || !read_ints(p, &at, m, 8, f)) return NULL;
        PyObject *tz = dec_tz(p, &at, m);
        if (tz == NULL) return NULL;
        if (at == m)
            v = PyDateTimeAPI->DateTime_FromDateAndTimeAndFold(f[0], f[1], f[2], f[3], f[4], f[5], f[6], tz, f[7],
                                                               PyDateTimeAPI->DateTimeType);
        Py_DECREF(tz);
        break;
    }
    case K_DATE:
        if (p[0] != 0x93 || !read_ints(p, &at, m, 3, f) || at != m) return NULL;
        v = PyDateTimeAPI->Date_FromDate(f[0], f[1], f[2], PyDateTimeAPI->DateType);
        break;
    case K_TIME: {
        if (p[0] != 0x96 || !read_ints(p, &at, m, 5, f)) return NULL;
        PyObject *tz = dec_tz(p, &at, m);
        if (tz == NULL) return NULL;
        if (at == m) v = PyDateTimeAPI->Time_FromTimeAndFold(f[0], f[1], f[2], f[3], tz, f[4], PyDateTimeAPI->TimeType);
        Py_DECREF(tz);
        break;
    }
    case K_TIMEDELTA:
        if (p[0] != 0x93 || !read_ints(p, &at, m, 3, f) || at != m) return NULL;
        v = PyDateTimeAPI->Delta_FromDelta(f[0], f[1], f[2], 1, PyDateTimeAPI->DeltaType);
        break;
    case K_UUID: {
        if (m != 18 || p[0] != 0xc4 || p[1] != 16) return NULL;
        PyObject *raw = PyBytes_FromStringAndSize((const char *)p + 2, 16), *kwargs = NULL, *empty = NULL;
        if (raw != NULL && (kwargs = PyDict_New()) != NULL && PyDict_SetItemString(kwargs, "bytes", raw) == 0 &&
            (empty = PyTuple_New(0)) != NULL)
            v = PyObject_Call((PyObject *)uuid_type, empty, kwargs);
        Py_XDECREF(raw);
        Py_XDECREF(kwargs);
        Py_XDECREF(empty);
        break;
    }
    default:
        return NULL;
    }
    if (v == NULL) PyErr_Clear(); /* out of range and the like: the serializer says so */
    return v;
}

static int hash_kind(Dec *d, const unsigned char *hash) {
    for (int k = 1; k < N_KINDS; k++) {
        if (d->t.read[k] && memcmp(hash, kind_hash[k], HASH_SIZE) == 0) return k;
    }
    return K_NONE;
}

/* A nested value this code does not read in place: decode_nested(ClassIDHash, in-band, oob, None). */
static int dec_before_call(Dec *d) {
    if (d->plain_top) return -1;
    if (d->state != NULL && d->state != Py_None && dec_write_depth(d, d->depth) < 0) return -1;
    if (!d->called) {
        d->called = 1;
        d->saved_position = PyObject_GetAttr(d->oob, str_position);
        d->rewindable = d->saved_position != NULL;
        if (!d->rewindable) PyErr_Clear();
    }
    return 0;
}

/* A struct instance (ext 1): the pure codec reads it, as a document of that one value. */
static PyObject *dec_struct(Dec *d, Py_ssize_t start, Py_ssize_t end) {
    if (dec_load_state(d) < 0 || dec_before_call(d) < 0) return NULL;
    PyObject *doc = PyBytes_FromStringAndSize((const char *)d->p + start, end - start);
    if (doc == NULL) return NULL;
    PyObject *v = PyObject_CallMethodObjArgs(d->codec->pure, str_unpack, doc, d->oob, NULL);
    Py_DECREF(doc);
    return v;
}

static PyObject *dec_nested(Dec *d, const unsigned char *payload, Py_ssize_t n) {
    if (dec_before_call(d) < 0) return NULL;
    PyObject *args[4] = {NULL, NULL, NULL, NULL}, *body = NULL, *v = NULL;
    args[0] = PyBytes_FromStringAndSize((const char *)payload, HASH_SIZE);
    body = PyBytes_FromStringAndSize((const char *)payload + HASH_SIZE, n - HASH_SIZE);
    if (args[0] != NULL && body != NULL && (args[1] = PyMemoryView_FromObject(body)) != NULL) {
        args[2] = d->oob;
        args[3] = Py_None;
        v = PyObject_Vectorcall(d->codec->decode_nested, args, 4, NULL);
    }
    Py_XDECREF(args[0]);
    Py_XDECREF(args[1]);
    Py_XDECREF(body);
    return v;
}

#define NEED(k) do { if (d->doc_end - d->pos < (Py_ssize_t)(k)) return -2; } while (0)

static uint64_t rd_be(Dec *d, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = (v << 8) | d->p[d->pos + i];
    d->pos += n;
    return v;
}

/* The scalar items of the open array or map that do not complete it, read in a tight loop:
 * fixints, ints of up to 32 bits, floats, nil, bools and fixstrs. Stops at anything else, at the
 * container's last item (the general loop completes it) and at the end of the bytes. */
static int dec_scalars(Dec *d) {
    DFrame *f = &d->stack[d->sp - 1];
    const unsigned char *p = d->p;
    while (f->remaining > 1 && d->pos < d->doc_end) {
        unsigned char b = p[d->pos];
        Py_ssize_t left = d->doc_end - d->pos - 1;
        PyObject *v;
        if (b <= 0x7f) v = PyLong_FromLong(b);
        else if (b >= 0xe0) v = PyLong_FromLong((signed char)b);
        else if (b >= 0xa0 && b <= 0xbf) {
            Py_ssize_t n = b & 0x1f;
            if (left < n) return 0;
            v = decode_str(p + d->pos + 1, n, f->kind == D_MAP && !((d->nvals - f->vstart) & 1));
            if (v == NULL) return -2;
            d->pos += n;
        } else if (b == 0xc0) v = Py_NewRef(Py_None);
        else if (b == 0xc2) v = Py_NewRef(Py_False);
        else if (b == 0xc3) v = Py_NewRef(Py_True);
        else if (b == 0xcb) {
            if (left < 8) return 0;
            uint64_t bits = 0;
            for (int i = 1; i <= 8; i++) bits = (bits << 8) | p[d->pos + i];
            double x;
            memcpy(&x, &bits, 8);
            v = PyFloat_FromDouble(x);
            d->pos += 8;
        } else if (b == 0xcc) {
            if (left < 1) return 0;
            v = PyLong_FromLong(p[d->pos + 1]);
            d->pos += 1;
        } else if (b == 0xcd) {
            if (left < 2) return 0;
            v = PyLong_FromLong((p[d->pos + 1] << 8) | p[d->pos + 2]);
            d->pos += 2;
        } else if (b == 0xd1) {
            if (left < 2) return 0;
            v = PyLong_FromLong((int16_t)((p[d->pos + 1] << 8) | p[d->pos + 2]));
            d->pos += 2;
        } else if (b == 0xd2) {
            if (left < 4) return 0;
            v = PyLong_FromLong((int32_t)(((uint32_t)p[d->pos + 1] << 24) | ((uint32_t)p[d->pos + 2] << 16) |
                                          ((uint32_t)p[d->pos + 3] << 8) | p[d->pos + 4]));
            d->pos += 4;
        } else return 0;
        d->pos++;
        d->pending--;
        int r = push_val(d, v);
        if (r < 0) return r;
        f->remaining--;
    }
    return 0;
}

static int dec_run(Dec *d) {
    for (;;) {
        if (d->sp > 0 && d->stack[d->sp - 1].kind != D_EXT) {
            int r = dec_scalars(d);
            if (r < 0) return r;
        }
        PyObject *v = NULL;
        Py_ssize_t n;
        int container = -1, ext = 0, is_str = 0;
        NEED(1);
        Py_ssize_t start = d->pos;
        /* This item of the open container is started: what is still owed starts after it. */
        if (d->sp > 0 && d->stack[d->sp - 1].kind != D_EXT) d->pending--;
        unsigned char b = d->p[d->pos++];
        if (b <= 0x7f) v = PyLong_FromLong(b);
        else if (b >= 0xe0) v = PyLong_FromLong((signed char)b);
        else if (b <= 0x8f) { n = b & 0x0f; container = D_MAP; }
        else if (b <= 0x9f) { n = b & 0x0f; container = D_ARRAY; }
        else if (b <= 0xbf) { n = b & 0x1f; is_str = 1; goto raw; }
        else {
            switch (b) {
            case 0xc0: v = Py_NewRef(Py_None); break;
            case 0xc2: v = Py_NewRef(Py_False); break;
            case 0xc3: v = Py_NewRef(Py_True); break;
            case 0xc4: NEED(1); n = (Py_ssize_t)rd_be(d, 1); goto raw;
            case 0xc5: NEED(2); n = (Py_ssize_t)rd_be(d, 2); goto raw;
            case 0xc6: NEED(4); n = (Py_ssize_t)rd_be(d, 4); goto raw;
            case 0xc7: NEED(1); n = (Py_ssize_t)rd_be(d, 1); ext = 1; break;
            case 0xc8: NEED(2); n = (Py_ssize_t)rd_be(d, 2); ext = 1; break;
            case 0xc9: NEED(4); n = (Py_ssize_t)rd_be(d, 4); ext = 1; break;
            case 0xca: {
                NEED(4);
                uint32_t bits = (uint32_t)rd_be(d, 4);
                float x;
                memcpy(&x, &bits, 4);
                v = PyFloat_FromDouble(x);
                break;
            }
            case 0xcb: {
                NEED(8);
                uint64_t bits = rd_be(d, 8);
                double x;
                memcpy(&x, &bits, 8);
                v = PyFloat_FromDouble(x);
                break;
            }
            case 0xcc: NEED(1); v = PyLong_FromLong((long)rd_be(d, 1)); break;
            case 0xcd: NEED(2); v = PyLong_FromLong((long)rd_be(d, 2)); break;
            case 0xce: NEED(4); v = PyLong_FromLongLong((long long)rd_be(d, 4)); break;
            case 0xcf: NEED(8); v = PyLong_FromUnsignedLongLong(rd_be(d, 8)); break;
            case 0xd0: NEED(1); v = PyLong_FromLong((int8_t)rd_be(d, 1)); break;
            case 0xd1: NEED(2); v = PyLong_FromLong((int16_t)rd_be(d, 2)); break;
            case 0xd2: NEED(4); v = PyLong_FromLong((int32_t)rd_be(d, 4)); break;
            case 0xd3: NEED(8); v = PyLong_FromLongLong((int64_t)rd_be(d, 8)); break;
            case 0xd4: n = 1; ext = 1; break;
            case 0xd5: n = 2; ext = 1; break;
            case 0xd6: n = 4; ext = 1; break;
            case 0xd7: n = 8; ext = 1; break;
            case 0xd8: n = 16; ext = 1; break;
            case 0xd9: NEED(1); n = (Py_ssize_t)rd_be(d, 1); is_str = 1; goto raw;
            case 0xda: NEED(2); n = (Py_ssize_t)rd_be(d, 2); is_str = 1; goto raw;
            case 0xdb: NEED(4); n = (Py_ssize_t)rd_be(d, 4); is_str = 1; goto raw;
            case 0xdc: NEED(2); n = (Py_ssize_t)rd_be(d, 2); container = D_ARRAY; break;
            case 0xdd: NEED(4); n = (Py_ssize_t)rd_be(d, 4); container = D_ARRAY; break;
            case 0xde: NEED(2); n = (Py_ssize_t)rd_be(d, 2); container = D_MAP; break;
            case 0xdf: NEED(4); n = (Py_ssize_t)rd_be(d, 4); container = D_MAP; break;
            default: return -2; /* 0xc1 is never used */
            }
        }
        if (container >= 0) {
            if (n == 0) {
                v = container == D_ARRAY ? PyList_New(0) : PyDict_New();
            } else {
                Py_ssize_t items = container == D_MAP ? 2 * n : n;
                if (d->doc_depth >= MSGPACK_MAX_NESTING) return -2;
                if (items > d->doc_end - d->pos || d->pending + items > d->end - d->pos) return -2;
                if (push_frame(d, container, items) < 0) return -1;
                d->pending += items;
                d->doc_depth++;
                continue;
            }
        } else if (ext) {
            NEED(1 + n);
            signed char type = (signed char)d->p[d->pos++];
            const unsigned char *payload = d->p + d->pos;
            if (type == -1) d->saw_timestamp = 1;
            if (d->plain_only) return -5;
            if (type == 1 || type == 2) {
                int how = type == 1 ? dec_structs->here(d, payload, n, &v) : dec_structs->here_list(d, payload, n, &v);
                if (how < 0) return how;
                if (how == 1) { /* its array is decoded in a frame, then built by its reader(s) */
                    if (push_frame(d, D_EXT, 0) < 0) return -1;
                    DFrame *f = &d->stack[d->sp - 1];
                    f->ext_kind = type == 1 ? K_STRUCT : K_STRUCTS;
                    f->saved_doc_end = d->doc_end;
                    f->saved_doc_depth = d->doc_depth;
                    d->doc_end = d->pos + n;
                    d->doc_depth = 0;
                    d->depth++;
                    continue;
                }
                if (how == 2 && (v = dec_struct(d, start, d->pos + n)) == NULL) return -1;
                d->pos += n;
                goto complete;
            }
            if (type != 0 || n < HASH_SIZE) return -2; /* reserved types, ext -1, short payloads */
            if (dec_load_state(d) < 0) return -2;
            int kind = hash_kind(d, payload);
            if (kind != K_NONE && d->inline_ok && d->allowed[kind] && d->depth < d->max_depth) {
                if (kind == K_TUPLE || kind == K_SET || kind == K_FROZENSET) {
                    if (push_frame(d, D_EXT, 0) < 0) return -1;
                    DFrame *f = &d->stack[d->sp - 1];
                    f->ext_kind = kind;
                    f->saved_doc_end = d->doc_end;
                    f->saved_doc_depth = d->doc_depth;
                    d->doc_end = d->pos + n;
                    d->pos += HASH_SIZE;
                    d->doc_depth = 0;
                    d->depth++;
                    continue;
                }
                v = dec_leaf(kind, payload + HASH_SIZE, n - HASH_SIZE);
            }
            if (v == NULL) {
                v = dec_nested(d, payload, n);
                if (v == NULL) {
                    /* Remember which values read in place enclose the failure (the error names them). */
                    Py_ssize_t count = 0;
                    for (Py_ssize_t i = 0; i < d->sp; i++) count += d->stack[i].kind == D_EXT && d->stack[i].ext_kind < N_KINDS;
                    d->ext_kinds = PyMem_Malloc((count ? count : 1) * sizeof(int));
                    if (d->ext_kinds != NULL) {
                        for (Py_ssize_t i = d->sp - 1; i >= 0; i--) {
                            if (d->stack[i].kind == D_EXT && d->stack[i].ext_kind < N_KINDS)
                                d->ext_kinds[d->ext_open++] = d->stack[i].ext_kind;
                        }
                    }
                    return -1;
                }
            }
            d->pos += n;
        }
        if (0) {
        raw:
            NEED(n);
            v = is_str ? decode_str(d->p + d->pos, n, d->sp > 0 && d->stack[d->sp - 1].kind == D_MAP &&
                                                          !((d->nvals - d->stack[d->sp - 1].vstart) & 1))
                       : PyBytes_FromStringAndSize((const char *)d->p + d->pos, n);
            d->pos += n;
        }
    complete:;
        /* A value is complete: it fills its container, which may complete in turn. */
        int r = push_val(d, v);
        if (r < 0) return r;
        for (;;) {
            if (d->sp == 0) return d->pos == d->end ? 0 : -2;
            DFrame *f = &d->stack[d->sp - 1];
            if (f->kind == D_EXT) {
                if (d->pos != d->doc_end) return -2;
                PyObject *inner = d->vals[--d->nvals];
                v = finish_ext(d, f->ext_kind, inner);
                Py_DECREF(inner);
                d->doc_end = f->saved_doc_end;
                d->doc_depth = f->saved_doc_depth;
                d->depth--;
                d->sp--;
            } else {
                if (--f->remaining > 0) break;
                v = build_container(d, f);
                d->sp--;
                d->doc_depth--;
            }
            if (v == NULL && PyErr_Occurred() && decode_error_type != NULL && PyErr_ExceptionMatches(decode_error_type))
                return -1; /* refused with serreg's own error (hash flooding) */
            if ((r = push_val(d, v)) < 0) return r;
        }
    }
}

static void dec_restore(Dec *d) {
    /* Put back what decoding changed in the call's state (before the pure codec runs, or on return). */
    if (d->state != NULL && d->state != Py_None) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        if (dec_write_depth(d, d->initial_depth) < 0) PyErr_Clear();
        PyErr_Restore(type, value, tb);
    }
}

static PyObject *Codec_unpack(Codec *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 && nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "unpack(data, oob, plain_only=False)");
        return NULL;
    }
    int plain_only = nargs == 3 ? PyObject_IsTrue(args[2]) : 0;
    if (plain_only < 0) return NULL;
    Dec d;
    memset(&d, 0, sizeof d);
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) {
        PyErr_Clear();
        return PyObject_CallMethodObjArgs(self->pure, str_unpack, args[0], args[1], nargs == 3 ? args[2] : NULL, NULL);
    }
    d.codec = self;
    d.plain_only = plain_only;
    d.oob = args[1];
    d.p = view.buf;
    d.end = d.doc_end = view.len;
    int r = current_tables(self, &d.t) < 0 ? -1 : 0;
    if (r == 0 && view.len > STRUCTURE_CHECK_THRESHOLD) {
        /* Untrusted, as the pure codec: a document that is truncated or declares more items than it
           holds is refused before anything in it is read (its error is the pure codec's). */
        Py_ssize_t at = 0;
        if (dec_load_state(&d) < 0) r = -2;
        else if (d.untrusted && !skip_value(d.p, &at, d.end)) r = -2;
    }
    if (r == 0) r = dec_run(&d);
    PyObject *value = r == 0 ? d.vals[--d.nvals] : NULL;
    for (Py_ssize_t i = 0; i < d.nvals; i++) Py_DECREF(d.vals[i]);
    PyMem_Free(d.vals);
    PyMem_Free(d.stack);
    Py_XDECREF(d.struct_plans);
    Py_XDECREF(d.struct_readers);
    Py_XDECREF(d.struct_leaves);
    PyBuffer_Release(&view);
    dec_restore(&d);
    if (r == -5) return Py_NewRef(Py_NotImplemented); /* a nested value, and plain_only */
    if (r == -1 && d.called) {
        /* An error from a nested value's serializer: as the nested decoder would, each value read
           in place around it adds its class ID to the error's nesting (outermost first). Never
           decoded again: redoing the nested values at every level would double the work per level. */
        PyObject *type, *error, *tb;
        PyErr_Fetch(&type, &error, &tb);
        PyErr_NormalizeException(&type, &error, &tb);
        if (error != NULL && decode_error_type != NULL && PyObject_IsInstance(error, decode_error_type) == 1) {
            PyObject *located = PyObject_GetAttrString(error, "located");
            PyObject *nesting = PyObject_GetAttrString(error, "nesting");
            if (located == Py_True && nesting != NULL && PyList_Check(nesting)) {
                for (Py_ssize_t i = 0; i < d.ext_open; i++) {
                    PyObject *id = PyUnicode_FromString(KIND_IDS[d.ext_kinds[i]]);
                    if (id != NULL) PyList_Insert(nesting, 0, id);
                    Py_XDECREF(id);
                }
            }
            Py_XDECREF(located);
            Py_XDECREF(nesting);
            PyErr_Clear();
        }
        PyErr_Restore(type, error, tb);
        PyMem_Free(d.ext_kinds);
        Py_XDECREF(d.state);
        Py_XDECREF(d.saved_budget);
        Py_XDECREF(d.saved_position);
        return NULL;
    }
    if (r < 0 && d.called) {
        /* Malformed after nested values were decoded: refused here, not decoded again (see above). */
        PyErr_Clear();
        if (d.saw_timestamp) {
            PyErr_SetString(decode_error_type != NULL ? decode_error_type : PyExc_ValueError,
                            "msgpack ext type -1 (timestamp) is not used by serreg and is refused (docs/FORMAT.md, "
                            "section 3); serreg writes datetime values as class ID 'datetime'");
        } else {
            PyErr_Format(decode_error_type != NULL ? decode_error_type : PyExc_ValueError,
                         "invalid msgpack in-band data: malformed at byte %zd, after nested values", d.pos);
        }
        r = -1;
    }
    PyMem_Free(d.ext_kinds);
    if (r < 0 && !d.called && (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_Exception))) {
        /* Not handled here, or an error inside: the pure codec decodes the document again from
         * the same state and out-of-band position, and raises the error serreg raises. */
        if (!d.called || d.rewindable) {
            PyErr_Clear();
            int ok = 1;
            if (d.state != NULL && d.state != Py_None && d.saved_budget != NULL)
                ok = PyObject_SetAttr(d.state, str_budget, d.saved_budget) == 0;
            if (ok && d.called) {
                PyObject *done = PyObject_CallMethodObjArgs(d.oob, str_rewind, d.saved_position, NULL);
                ok = done != NULL;
                Py_XDECREF(done);
            }
            if (ok) value = PyObject_CallMethodObjArgs(self->pure, str_unpack, args[0], args[1], nargs == 3 ? args[2] : NULL, NULL);
        } else if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_ValueError, "invalid msgpack in-band data");
        }
    }
    Py_XDECREF(d.state);
    Py_XDECREF(d.saved_budget);
    Py_XDECREF(d.saved_position);
    return value;
}
