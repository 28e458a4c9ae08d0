/* Lists of struct instances of one definition, written by MsgpackCodec.pack as ext 2 (docs/FORMAT.md,
 * 10.3): [index, count, column 0, ..., column n-1], each column the values of one field.
 *
 * A list value (any list, the value of a ["list", T] field) whose items are all instances of one
 * registered class with a plan and at least one field is written here; any other list is an array
 * (NOT_STRUCT_LIST), and a list holding carriers or classes without a plan goes to the pure codec
 * (-2), which writes them as the rule says. Integer columns are LEB128 varints behind a kind byte,
 * float and bool columns packed bins, written in tight loops; other columns are arrays of field
 * values written as in an ext 1. A value its check refuses goes to the field's Python writer: a
 * converted value is written when it fits; a refusal sends the call to the pure codec, which raises
 * serreg's error for the list. */

/* The plan of the items' class when every item is an instance of it (and the class has fields); NULL
 * when the list is an array, or with *pure set when the pure codec must decide. */
static StructPlan *list_plan(Enc *e, PyObject *const *items, Py_ssize_t n, int *pure) {
    PyTypeObject *type = Py_TYPE(items[0]);
    PyObject *w;
    if (type == e->plan_type) {
        w = (PyObject *)e->plan;
    } else {
        if (native_bit((PyObject *)type) || e->t.ext_writers == NULL) return NULL;
        w = PyDict_GetItemWithError(e->t.ext_writers, (PyObject *)type);
        if (w == NULL) {
            if (PyErr_Occurred()) PyErr_Clear();
            return NULL; /* not a struct: an array, its items written as usual */
        }
        if (!IS_PLAN(w)) { *pure = 1; return NULL; } /* a carrier, a class compiled later */
    }
    StructPlan *plan = (StructPlan *)w;
    for (Py_ssize_t i = 1; i < n; i++) {
        PyTypeObject *other = Py_TYPE(items[i]);
        if (other == type) continue;
        /* Another class: an array, unless it may share the definition (a carrier of it). */
        if (!native_bit((PyObject *)other) && e->t.ext_writers != NULL) {
            PyObject *x = PyDict_GetItemWithError(e->t.ext_writers, (PyObject *)other);
            if (x == NULL && PyErr_Occurred()) PyErr_Clear();
            if (x != NULL && (!IS_PLAN(x) || PyObject_RichCompareBool(((StructPlan *)x)->key, plan->key, Py_EQ) != 0)) {
                PyErr_Clear();
                *pure = 1;
            }
        }
        return NULL;
    }
    if (plan->n == 0 || plan->fields == NULL) return NULL;
    e->plan_type = type;
    e->plan = plan;
    return plan;
}

/* Field k of an instance (new reference): from its tuple, its slot, or its attribute. */
static inline PyObject *list_field(StructPlan *plan, PyObject *obj, Py_ssize_t k, Py_ssize_t *slots) {
    if (plan->build == B_TUPLE) return Py_NewRef(PyTuple_GET_ITEM(obj, k));
    if (plan->build == B_IMPLICIT) { /* from its __dict__ (the walk checked its keys, 10.9) */
        PyObject *state = PyObject_GenericGetDict(obj, NULL);
        if (state == NULL) return NULL;
        PyObject *v = PyDict_GetItemWithError(state, PyTuple_GET_ITEM(plan->names, k));
        if (v == NULL && !PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, PyTuple_GET_ITEM(plan->names, k));
        Py_XINCREF(v);
        Py_DECREF(state);
        return v;
    }
    if (slots != NULL) {
        PyObject *v = *(PyObject **)((char *)obj + slots[k]);
        if (v != NULL) return Py_NewRef(v);
    }
    PyObject *name = PyTuple_GET_ITEM(plan->names, k); /* an interned str */
    getattrofunc get = Py_TYPE(obj)->tp_getattro;
    return get != NULL ? get(obj, name) : PyObject_GetAttr(obj, name);
}

/* A value refused by the check, given to field k's Python writer: the converted value (new), or
 * NULL and *r = -2 (the pure codec raises the refusal, worded for the list), or -1. */
static PyObject *list_convert(StructPlan *plan, Py_ssize_t k, PyObject *v, int *r) {
    PyObject *converted = enc_convert(plan, k, v);
    if (converted == NULL) {
        *r = PyErr_ExceptionMatches(PyExc_Exception) ? -2 : -1;
        if (*r == -2) PyErr_Clear();
    }
    return converted;
}

/* An integer of t's range as 64 bits (a negative one two's complement): 1, or 0 if v is none. */
static inline int int_in(PyObject *v, TNode *t, uint64_t *out, int *negative) {
    if (!PyLong_CheckExact(v)) return 0;
    int overflow = 0;
    long long x = LONG_IS_COMPACT(v) ? LONG_COMPACT_VALUE(v) : PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow == 0) {
        if (x < t->low || (x >= 0 && (unsigned long long)x > t->high)) return 0;
        *out = (uint64_t)x;
        if (x < 0) *negative = 1;
        return 1;
    }
    if (overflow < 0 || t->code != FT_UINT64) return 0;
    unsigned long long u = PyLong_AsUnsignedLongLong(v);
    if (u == (unsigned long long)-1 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
    *out = u;
    return 1;
}

static inline int varint_size(uint64_t u) {
    int bits = u ? 64 - __builtin_clzll(u) : 1;
    return (bits + 6) / 7;
}

#define BIN_HEADER(o, n) pack_header((o), (n), -1, 0, 0xc4, 0xc5, 0xc6)

/* An integer column: kind byte 0 and the unsigned varints, or kind 1 and the zigzag forms. */
static int col_ints(Enc *e, StructPlan *plan, PyObject **objs, Py_ssize_t count, Py_ssize_t k, Py_ssize_t *slots) {
    TNode *t = &plan->fields[k];
    uint64_t *raw = PyMem_Malloc(count * sizeof(uint64_t));
    if (raw == NULL) { PyErr_NoMemory(); return -1; }
    int negative = 0, r = 0;
    for (Py_ssize_t j = 0; j < count && r == 0; j++) {
        PyObject *v = list_field(plan, objs[j], k, slots);
        if (v == NULL) { r = -1; break; }
        if (!int_in(v, t, &raw[j], &negative)) {
            PyObject *converted = list_convert(plan, k, v, &r);
            if (converted != NULL && !int_in(converted, t, &raw[j], &negative)) r = -2;
            Py_XDECREF(converted);
        }
        Py_DECREF(v);
    }
    Py_ssize_t size = 1;
    if (r == 0) {
        for (Py_ssize_t j = 0; j < count; j++) {
            if (negative) raw[j] = (raw[j] << 1) ^ (uint64_t)((int64_t)raw[j] >> 63); /* zigzag */
            size += varint_size(raw[j]);
        }
        r = BIN_HEADER(&e->out, size);
    }
    if (r == 0 && e->out.cap - e->out.len < size && out_grow(&e->out, size) < 0) r = -1;
    if (r == 0) {
        unsigned char *p = (unsigned char *)e->out.buf + e->out.len;
        *p++ = negative ? 1 : 0;
        for (Py_ssize_t j = 0; j < count; j++) {
            uint64_t u = raw[j];
            while (u >= 0x80) { *p++ = (unsigned char)(u | 0x80); u >>= 7; }
            *p++ = (unsigned char)u;
        }
        e->out.len += size;
    }
    PyMem_Free(raw);
    return r;
}

static inline void put_le(unsigned char *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* A float or bool value of the column's type as its bytes; 0 if v is not one (its writer decides). */
static inline int packed_value(PyObject *v, int code, unsigned char *p) {
    if (code == FT_BOOL) {
        if (v != Py_True && v != Py_False) return 0;
        *p = v == Py_True;
        return 1;
    }
    if (!PyFloat_CheckExact(v)) return 0;
    double x = PyFloat_AS_DOUBLE(v);
    if (code == FT_FLOAT64) {
        uint64_t bits;
        memcpy(&bits, &x, 8);
        put_le(p, bits, 8);
        return 1;
    }
    float y = (float)x; /* as PyFloat_Pack4 rounds it */
    if (isinf(y) && !isinf(x)) return 0;
    uint32_t bits;
    memcpy(&bits, &y, 4);
    put_le(p, bits, 4);
    return 1;
}

/* A float64, float32 or bool column: the values' bytes, width each, in one bin. */
static int col_packed(Enc *e, StructPlan *plan, PyObject **objs, Py_ssize_t count, Py_ssize_t k, Py_ssize_t *slots) {
    int code = plan->fields[k].code, width = code == FT_FLOAT64 ? 8 : code == FT_FLOAT32 ? 4 : 1, r;
    if (count > PY_SSIZE_T_MAX / 8) return -2;
    Py_ssize_t size = count * width;
    if ((r = BIN_HEADER(&e->out, size)) < 0) return r;
    RESERVE(&e->out, size);
    Py_ssize_t at = e->out.len;
    e->out.len += size; /* written in place; a converter may run meanwhile, it does not write here */
    for (Py_ssize_t j = 0; j < count && r == 0; j++) {
        PyObject *v = list_field(plan, objs[j], k, slots);
        if (v == NULL) return -1;
        unsigned char *p = (unsigned char *)e->out.buf + at + j * width;
        if (!packed_value(v, code, p)) {
            PyObject *converted = list_convert(plan, k, v, &r);
            p = (unsigned char *)e->out.buf + at + j * width;
            if (converted != NULL && !packed_value(converted, code, p)) r = -2;
            Py_XDECREF(converted);
        }
        Py_DECREF(v);
    }
    return r;
}

/* Any other column: an array of the field values, each written as in an ext 1. */
static int col_values(Enc *e, StructPlan *plan, PyObject **objs, Py_ssize_t count, Py_ssize_t k, Py_ssize_t *slots) {
    TNode *t = &plan->fields[k];
    int r = ARRAY_HEADER(&e->out, count);
    for (Py_ssize_t j = 0; j < count && r >= 0; j++) {
        PyObject *v = list_field(plan, objs[j], k, slots);
        if (v == NULL) return -1;
        Py_ssize_t field_start = e->out.len, oob_start = PyList_GET_SIZE(e->oob);
        r = enc_field(e, v, t, 2);
        if (r == CONVERT) {
            PyObject *converted = list_convert(plan, k, v, &r);
            if (converted != NULL) r = enc_write_converted(e, t, converted, field_start, oob_start, 2);
            Py_XDECREF(converted);
        }
        Py_DECREF(v);
    }
    return r;
}

/* The columns of a list of implicit structs (docs/FORMAT.md 10.9, every field of type any): each
 * instance's __dict__ read once, its keys checked to be the plan's names in order (else -2: the pure
 * codec's writer gives the frame up), its values held while the columns are written. */
static int implicit_columns(Enc *e, StructPlan *plan, PyObject **objs, Py_ssize_t count) {
    Py_ssize_t n = plan->n, held = 0;
    PyObject **vals = PyMem_Malloc(count * n * sizeof(PyObject *));
    if (vals == NULL) { PyErr_NoMemory(); return -1; }
    int r = 0;
    for (Py_ssize_t j = 0; j < count && r == 0; j++) {
        /* One pass over its __dict__: each key checked against the plan's name as its value is taken. */
        PyObject *state = PyObject_GenericGetDict(objs[j], NULL);
        if (state == NULL) { r = -1; break; }
        if (!PyDict_CheckExact(state) || PyDict_GET_SIZE(state) != n) r = -2;
        Py_ssize_t pos = 0, i = 0;
        PyObject *key, *value;
        while (r == 0 && i < n && PyDict_Next(state, &pos, &key, &value)) {
            PyObject *name = PyTuple_GET_ITEM(plan->names, i);
            if (key != name) {
                int same = PyUnicode_CheckExact(key) ? PyUnicode_Compare(key, name) : 1;
                if (same == -1 && PyErr_Occurred()) PyErr_Clear();
                if (same != 0) { r = -2; break; }
            }
            vals[held++] = Py_NewRef(value);
            i++;
        }
        Py_DECREF(state);
        if (r == 0 && i != n) r = -2;
    }
    for (Py_ssize_t k = 0; k < n && r >= 0; k++) {
        r = ARRAY_HEADER(&e->out, count);
        for (Py_ssize_t j = 0; j < count && r >= 0; j++) r = enc_field(e, vals[j * n + k], &plan->fields[k], 2);
        if (r == CONVERT) r = -2; /* an any field refuses nothing */
    }
    for (Py_ssize_t i = 0; i < held; i++) Py_DECREF(vals[i]);
    PyMem_Free(vals);
    return r;
}

/* A field of type ["list", item] may hold instances of this plan's class. */
static int item_takes(TNode *item, StructPlan *plan) {
    if (item == NULL) return 1;
    if (item->code == FT_OPTIONAL) item = &item->args[0];
    if (item->code == FT_ANY) return 1;
    if (item->code != FT_STRUCT || item->ref == NULL) return 0;
    int same = PyUnicode_Compare(plan->class_id, item->ref);
    if (same == -1 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
    return same == 0;
}

/* A list value of carriers or of a class without a plan, inside a pack call: the pure codec's pack of
 * it (its ext 2, or its array when the rule says so), with the same frame table and buffer list. */
static int enc_list_by_pure(Enc *e, PyObject *list) {
    Py_ssize_t oob_start = PyList_GET_SIZE(e->oob);
    PyObject *packed = PyObject_CallMethodObjArgs(e->codec->pure, str_pack, list, e->oob, NULL);
    if (packed == NULL || !PyBytes_CheckExact(packed)) {
        /* Refused: the pure codec writes the whole value again and raises its error for it. */
        Py_XDECREF(packed);
        if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_Exception)) return -1;
        PyErr_Clear();
        if (PyList_GET_SIZE(e->oob) > oob_start) PyList_SetSlice(e->oob, oob_start, PY_SSIZE_T_MAX, NULL);
        return -2;
    }
    int r = 0;
    Py_ssize_t n = PyBytes_GET_SIZE(packed);
    if (e->out.cap - e->out.len < n && out_grow(&e->out, n) < 0) r = -1;
    if (r == 0) {
        memcpy(e->out.buf + e->out.len, PyBytes_AS_STRING(packed), n);
        e->out.len += n;
    }
    Py_DECREF(packed);
    return r;
}

static int enc_struct_list(Enc *e, PyObject *seq, TNode *item, int depth) {
    int is_list = PyList_CheckExact(seq), pure = 0;
    Py_ssize_t n = is_list ? PyList_GET_SIZE(seq) : PyTuple_GET_SIZE(seq);
    PyObject *const *items = is_list ? (PyObject *const *)((PyListObject *)seq)->ob_item : ((PyTupleObject *)seq)->ob_item;
    if (n == 0) return NOT_STRUCT_LIST;
    StructPlan *plan = list_plan(e, items, n, &pure);
    /* A list value of a field is checked by its writer first (the pure codec, whole value). */
    if (pure) return item == NULL && is_list && e->scope != NULL && !e->plain_top ? enc_list_by_pure(e, seq) : -2;
    if (plan == NULL) return NOT_STRUCT_LIST;
    if (!item_takes(item, plan)) return CONVERT; /* its writer refuses the list */
    if (e->struct_level >= MAX_STRUCT_LEVELS || !enc_has_table(e)) return -2;
    int tuple = plan->build == B_TUPLE;
    for (Py_ssize_t j = 0; tuple && j < n; j++) {
        if (!PyTuple_Check(items[j]) || PyTuple_GET_SIZE(items[j]) != plan->n) return -2;
    }
    /* The instances, held for the call: a field writer may change the list meanwhile. */
    PyObject **objs = PyMem_Malloc(n * sizeof(PyObject *));
    if (objs == NULL) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t j = 0; j < n; j++) objs[j] = Py_NewRef(items[j]);
    long long index;
    int r = enc_definition_index(e, plan, &index); /* before any value of the columns (first use, 10.3) */
    Out *o = &e->out;
    Py_ssize_t start = o->len;
    if (r == 0 && o->cap - o->len < EXT1_ROOM + 5 + 18 && out_grow(o, EXT1_ROOM + 5 + 18) < 0) r = -1;
    if (r == 0) {
        o->len += EXT1_ROOM;
        r = ARRAY_HEADER(o, plan->n + 2);
    }
    if (r == 0) r = put_int(o, index);
    if (r == 0) r = put_int(o, n);
    PyTypeObject *type = (PyTypeObject *)plan->cls;
    e->struct_level++;
    if (r >= 0 && plan->build == B_IMPLICIT) r = implicit_columns(e, plan, objs, n);
    for (Py_ssize_t k = 0; k < plan->n && r >= 0 && plan->build != B_IMPLICIT; k++) {
        /* Slots are read directly while the class is as it was at registration (checked per column). */
        Py_ssize_t *slots = plan->offsets != NULL && Py_TYPE(objs[0]) == type &&
                            (type->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG) && type->tp_version_tag == plan->version_tag
                            ? plan->offsets : NULL;
        switch (plan->fields[k].code) {
        case FT_INT8: case FT_INT16: case FT_INT32: case FT_INT64:
        case FT_UINT8: case FT_UINT16: case FT_UINT32: case FT_UINT64:
            r = col_ints(e, plan, objs, n, k, slots);
            break;
        case FT_FLOAT64: case FT_FLOAT32: case FT_BOOL:
            r = col_packed(e, plan, objs, n, k, slots);
            break;
        default:
            r = col_values(e, plan, objs, n, k, slots);
        }
    }
    e->struct_level--;
    for (Py_ssize_t j = 0; j < n; j++) Py_DECREF(objs[j]);
    PyMem_Free(objs);
    if (r < 0) return r;
    (void)depth; /* the columns are a document of their own (the ext payload), as an ext 1's fields */
    return struct_ext_end(o, start, 2);
}

static const EncStructOps STRUCT_ENC_OPS = {enc_struct, enc_struct_list, enc_scope_open, enc_scope_undo};
