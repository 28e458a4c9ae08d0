/* The values the decoder (_core_decode.h) builds whole: a map or array from its items (with the
 * untrusted hash-flooding check), a tuple, set or frozenset read in place, a standard leaf ext 0
 * (int, complex, datetime, date, time, timedelta, uuid) in its usual form, and the kind of an
 * ext 0 class ID hash. */

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

/* A list taking buf (n items from PyMem_Malloc, references and all) as its item array: NULL, buf
 * untouched, on failure. A list of n items made so is not zeroed first, as PyList_New(n) does (a byte
 * at a time: 8,000 instructions for a list of 1,000 under callgrind). */
static PyObject *list_adopting(PyObject **buf, Py_ssize_t n) {
    PyObject *list = PyList_New(0);
    if (list == NULL) return NULL;
    ((PyListObject *)list)->ob_item = buf;
    ((PyListObject *)list)->allocated = n;
    Py_SET_SIZE(list, n);
    return list;
}

/* The list of the n items at items (references stolen); NULL, the items untouched, on failure. */
static PyObject *list_of(PyObject *const *items, Py_ssize_t n) {
    if (n == 0) return PyList_New(0);
    PyObject **buf = n > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(PyObject *) ? NULL : PyMem_Malloc(n * sizeof(PyObject *));
    if (buf == NULL) return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) buf[i] = items[i];
    PyObject *list = list_adopting(buf, n);
    if (list == NULL) PyMem_Free(buf);
    return list;
}

/* Maps of one shape: documents repeat a map's keys in one order (1,000 records of the same four keys),
 * and the key cache (_core_keys.h) hands back the same str for each. A map whose keys are, one for one,
 * the very strs of a shape met before is a copy of that shape's dict ({key: None} in that order, one
 * memcpy of its table) with its values put in the copy's entries, instead of a new dict grown key by
 * key (about 600 instructions for four keys). The copy holds the same keys in the same order as the
 * dict built key by key, no key twice (a shape is kept only from a map without a repeated key), and
 * is tracked by the garbage collector when a value may need it, as PyDict_SetItem would. A map of
 * other keys is built key by key, and its keys become a shape when they are strs met twice running.
 *
 * The entries are written where CPython 3.11 and 3.12 keep them (_core_dict_layout.h); a shape is kept
 * only when its dict's table is seen to be laid out so, and each copy's keys are checked in its entries
 * before a value is put there. Without the mirror every map is built key by key (PyDict_SetItem on a
 * copy is no faster). */
#if DICT_LAYOUT_MIRRORED
#define MAP_SHAPES 8
#define MAP_SHAPE_MAX 16

typedef struct {
    Py_ssize_t n;                   /* its keys; 0: empty */
    PyObject *keys[MAP_SHAPE_MAX];  /* strong */
    PyObject *dict;                 /* {key: None} in their order (strong) */
    uint64_t print;                 /* of the keys of the last map that missed here (their addresses) */
} MapShape;

static MapShape map_shapes[MAP_SHAPES];

static inline MapShape *map_shape_slot(PyObject *const *items, Py_ssize_t n) {
    return &map_shapes[(((uintptr_t)items[0] >> 4) ^ (uintptr_t)n) & (MAP_SHAPES - 1)];
}

/* The dict of the map items[0..2n) (key, value, ...; the values' references taken, the keys' not) when
 * its keys are a shape's; NULL if they are not, or with *failed set and an error on failure. */
static PyObject *map_from_shape(PyObject *const *items, Py_ssize_t n, int *failed) {
    MapShape *shape = map_shape_slot(items, n);
    if (shape->n != n || !dict_layout_ok) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (shape->keys[i] != items[2 * i]) return NULL;
    }
    PyObject *out = dict_copy_filled(shape->dict, items, items + 1, n, 2);
    if (out == NULL && PyErr_Occurred()) *failed = 1; /* else not the table it was (never seen): built key by key */
    return out;
}

/* The keys of the map just built (out, from items[0..2n)) kept as its slot's shape when they are strs
 * met there twice running (the first time only their addresses' print is kept, no reference: a
 * document of maps of ever other keys makes no dict), laid out as _core_dict_layout.h mirrors it. */
static void map_shape_keep(PyObject *const *items, Py_ssize_t n, PyObject *out) {
    if (PyDict_GET_SIZE(out) != n || !dict_layout_ok) return; /* a key repeated */
    uint64_t print = (uint64_t)n;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!PyUnicode_CheckExact(items[2 * i])) return;
        print = (print ^ (uint64_t)(uintptr_t)items[2 * i]) * UINT64_C(0x9E3779B97F4A7C15);
    }
    MapShape *shape = map_shape_slot(items, n);
    if (shape->print != print) { /* met once: a print another map's keys may match next */
        shape->print = print;
        return;
    }
    PyObject *dict = dict_like_of(items, n, 2);
    if (dict == NULL) {
        shape->print = ~print; /* not made again for the next such map */
        return;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *before = i < shape->n ? shape->keys[i] : NULL;
        shape->keys[i] = Py_NewRef(items[2 * i]);
        Py_XDECREF(before);
    }
    for (Py_ssize_t i = n; i < shape->n; i++) Py_DECREF(shape->keys[i]);
    shape->n = n;
    Py_XSETREF(shape->dict, dict);
}
#else
#define MAP_SHAPE_MAX 0
static PyObject *map_from_shape(PyObject *const *items, Py_ssize_t n, int *failed) { return NULL; }
static void map_shape_keep(PyObject *const *items, Py_ssize_t n, PyObject *out) {}
#endif

static PyObject *build_container(Dec *d, DFrame *f) {
    Py_ssize_t n = d->nvals - f->vstart;
    PyObject **items = d->vals + f->vstart, *out;
    if (f->kind == D_ARRAY && d->sp == 1 && d->build_top != NULL) { /* the document's own array */
        int taken = 0;
        out = d->build_top(d->build_top_arg, items, n, &taken);
        if (taken) d->nvals = f->vstart;
        return out; /* NULL, no error set: not built (not plain) */
    }
    if (f->kind == D_ARRAY) {
        out = list_of(items, n);
        if (out == NULL) return NULL;
        d->nvals = f->vstart;
        return out;
    }
    /* A shaped map has no more than MAX_KEYS_PER_HASH keys: the spread check has nothing to check. */
    Py_BUILD_ASSERT(MAP_SHAPE_MAX <= MAX_KEYS_PER_HASH);
    int shaped = n >= 2 && n <= 2 * MAP_SHAPE_MAX, failed = 0;
    out = shaped ? map_from_shape(items, n / 2, &failed) : NULL;
    if (out != NULL) { /* its values' references went to it */
        for (Py_ssize_t i = 0; i < n; i += 2) Py_DECREF(items[i]);
        d->nvals = f->vstart;
        return out;
    }
    if (!failed && check_spread(d, items, n / 2, 2) == 0 && (out = _PyDict_NewPresized(n / 2)) != NULL) {
        for (Py_ssize_t i = 0; i < n; i += 2) {
            if (PyDict_SetItem(out, items[i], items[i + 1]) < 0) { Py_CLEAR(out); break; }
        }
        if (out != NULL && shaped) map_shape_keep(items, n / 2, out);
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
