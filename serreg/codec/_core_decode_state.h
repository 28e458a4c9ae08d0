/* The decoder's state (serreg/codec/_core.c): the Dec of one unpack call, the DecodeState of
 * the deserialize call running, loaded at the first need, and the two stacks the decoder keeps
 * on the heap: the open containers (frames) and the values waiting for theirs.
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
    Py_ssize_t doc_start; /* a D_EXT frame: where its document (an in-band read in place, a struct payload) starts */
    int holds_timestamp;  /* a D_EXT frame: its document holds an ext -1, refused when it ends (1), or
                           * a struct instance or an ext 2 whose payload holds a msgpack.Timestamp standing in for one (2) */
} DFrame;

typedef struct {
    Codec *codec;
    const unsigned char *p;
    Py_ssize_t pos, end, doc_end, pending;
    int doc_depth;
    PyObject *oob;
    /* the DecodeState of the deserialize call running (loaded at the first need) */
    int state_loaded, inline_ok, untrusted, called, rewindable, plain_only;
    int saw_timestamp; /* an ext -1 was met: refused with the pure codec's words */
    int top_timestamp; /* the call's own document holds an ext -1 read after nested values: refused when it ends */
    int python_rows; /* an instance or list holding a msgpack.Timestamp is finished: built by its Python readers */
    PyObject *state, *saved_budget, *saved_position;
    long long depth, initial_depth, written_depth, max_depth;
    PyObject **vals;
    Py_ssize_t nvals, capvals;
    int *ext_kinds;           /* the values read in place around a failing nested value, outermost first */
    Py_ssize_t ext_open;
    DFrame *stack;
    Py_ssize_t sp, cap;
    PyObject *struct_plans, *struct_readers, *struct_leaves; /* the struct table in scope, read at the first ext 1 */
    int plain_top; /* unpack_top: a value that calls a serializer is not plain (-1, no error set) */
    int struct_top; /* unpack_top of a struct table's value: its structs are read here (DecodeScope set) */
    /* The document's own array, when complete, made by build_top from its n items (all taken, *taken set,
       when it returns a value or an error) instead of a list: a top-level implicit struct instance's. */
    PyObject *(*build_top)(const void *arg, PyObject **items, Py_ssize_t n, int *taken);
    const void *build_top_arg;
    /* Last, so that a caller setting both zeroes only what comes before them (DEC_ZEROED). */
    Tables t;
    char allowed[N_KINDS];
} Dec;

/* The bytes of a Dec before its tables and allowed kinds. */
#define DEC_ZEROED offsetof(Dec, t)

static long long as_long_long(PyObject *v, long long fallback) {
    if (v == NULL || !PyLong_Check(v)) return fallback;
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow > 0) return LLONG_MAX;
    if (overflow < 0) return LLONG_MIN;
    return x;
}

/* Whether this deserialize call runs inside another one (a decode state is set): 1 or 0, -1 with an
 * exception. The top-level entries leave a nested call to the full path, which follows the outer
 * call's rules. */
static inline int decode_nested(void) {
    PyObject *state;
    if (PyContextVar_Get(decode_state_var, NULL, &state) < 0) return -1;
    int inside = state != NULL && state != Py_None;
    Py_XDECREF(state);
    return inside;
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

static int grow_vals(Dec *d) {
    Py_ssize_t cap = d->capvals ? 2 * d->capvals : 64;
    PyObject **vals = PyMem_Realloc(d->vals, cap * sizeof(PyObject *));
    if (vals == NULL) { PyErr_NoMemory(); return -1; }
    d->vals = vals;
    d->capvals = cap;
    return 0;
}

static int push_val(Dec *d, PyObject *v) {
    if (v == NULL) return -2;
    if (d->nvals == d->capvals && grow_vals(d) < 0) { Py_DECREF(v); return -1; }
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
    f->holds_timestamp = 0;
    return 0;
}
