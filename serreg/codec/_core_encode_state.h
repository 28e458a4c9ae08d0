/* The encoder's state (serreg/codec/_core.c): the Enc of one pack call, its stack of open
 * containers on the heap, and the table through which it reaches the struct writer.
 *
 * Return codes of the encoder's helpers: 0 done, 1 a container was opened (its frame pushed),
 * -1 a Python error to propagate (raised by encode_nested), -2 this code does not handle the
 * value: the whole call goes to the pure codec; -3 nested too deep, -4 a str that is not UTF-8:
 * the pure codec words the error (never writes the value: msgpack-python's writer recurses in
 * C per level and would overflow a small thread stack). */

enum { S_LIST, S_TUPLE, S_DICT };

typedef struct {
    PyObject *obj;       /* the container (strong) */
    PyObject *value;     /* a dict value waiting for its key to be written (strong) */
    Py_ssize_t i, n;     /* next index (dict: PyDict_Next position), item count */
    Py_ssize_t left;     /* a dict: the pairs its header declared still to come (a serializer run meanwhile may
                            have replaced its items, the count kept: the walk must not write more or fewer) */
    Py_ssize_t ext_start; /* >= 0: this container is the in-band of an ext 0 that starts there */
    int kind, depth, inline_level;
} EFrame;

typedef struct Enc {
    Codec *codec;
    Out out;
    PyObject *oob;
    EFrame *stack;
    Py_ssize_t sp, cap;
    PyObject *scope, *scope_index, *scope_definitions; /* the frame's struct table (EncodeScope) */
    Py_ssize_t definitions_before;  /* how many definitions it held when this call began */
    int struct_level;              /* struct instances being written inside each other (C recursion) */
    PyTypeObject *plan_type;       /* the struct class met last and its plan (held by ext_writers) */
    StructPlan *plan, *index_plan; /* index_plan: the plan whose definition index was looked up last */
    long long index;
    int plain_top; /* serialize_top: a value that calls a serializer is not plain (-2) */
    /* serialize_top: opens the call's own struct table at the first struct met (1), or cannot (0);
       NULL: no table to open (enc_has_table) */
    int (*open_table)(struct Enc *e);
    int root_array; /* pack(obj, oob, False): a root list is an array, never ext 2 (a tuple's items) */
    /* serialize_top of one implicit instance: the instance whose __dict__ keys the walk found to be its
       plan's names in order just before (nothing runs in between), so enc_struct does not compare them
       again (against keys_checked_plan's names); cleared when used */
    PyObject *keys_checked;
    StructPlan *keys_checked_plan;
    Tables t; /* last, so that a caller setting it zeroes only what comes before it (ENC_ZEROED) */
} Enc;

/* The bytes of an Enc before its tables. */
#define ENC_ZEROED offsetof(Enc, t)

/* The struct writer (_core_structs_encode.h) and this encoder call each other: the encoder
 * reaches it through this table, which _core.c fills at import, so neither file names the other's
 * functions both ways. */
typedef struct {
    int (*write)(Enc *e, PyObject *obj, StructPlan *plan); /* one instance, as ext 1 */
    /* a non-empty list or tuple: as ext 2 if its items are instances of one definition (1000: not) */
    int (*write_list)(Enc *e, PyObject *seq, TNode *item, int depth);
    int (*scope_open)(Enc *e);                            /* the frame's struct table, at a pack's start */
    void (*scope_undo)(Enc *e);                           /* forget what this pack added to it */
} EncStructOps;

static const EncStructOps *enc_structs;

/* Whether structs can be written: always in a pack call (its EncodeScope); in serialize_top, once
 * the call's own struct table is open, which happens at the first struct met (most values hold none,
 * and a call then makes no table at all). */
static inline int enc_has_table(Enc *e) {
    return !e->plain_top || e->scope_index != NULL || (e->open_table != NULL && e->open_table(e));
}

static int enc_push(Enc *e, PyObject *obj, int kind, Py_ssize_t n, int depth, Py_ssize_t ext_start, int inline_level) {
    if (e->sp == e->cap) {
        Py_ssize_t cap = e->cap ? 2 * e->cap : 32;
        EFrame *stack = PyMem_Realloc(e->stack, cap * sizeof(EFrame));
        if (stack == NULL) { PyErr_NoMemory(); return -1; }
        e->stack = stack;
        e->cap = cap;
    }
    EFrame *f = &e->stack[e->sp++];
    Py_INCREF(obj);
    f->obj = obj;
    f->value = NULL;
    f->i = 0;
    f->n = n;
    f->left = n;
    f->kind = kind;
    f->depth = depth;
    f->ext_start = ext_start;
    f->inline_level = inline_level;
    return 1;
}

static int enc_pop(Enc *e) {
    EFrame *f = &e->stack[--e->sp];
    Py_ssize_t ext_start = f->ext_start;
    Py_CLEAR(f->obj);
    Py_CLEAR(f->value);
    return ext_start >= 0 ? ext_end(&e->out, ext_start) : 0;
}
