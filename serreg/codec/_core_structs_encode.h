/* Struct instances (ext 1) written by MsgpackCodec.pack (docs/FORMAT.md, 10.2-10.3), from the
 * StructPlan of their class.
 *
 * An instance is ext 1 holding [definition index, field values...]; its definition gets its index
 * from the frame's EncodeScope (first use adds it, as the Python writer does). Each field value is
 * checked against its type and written here; a value of type any (and a nested struct, a standard
 * type) is written as the codec writes any value. A value the check refuses goes to the field's
 * Python writer, which raises the error serreg words (struct, field and value), or converts it (an
 * int in a float field, a bytearray in a bytes field): the converted value is written here when it
 * passes the checks; anything else sends the whole call to the pure codec (-2), as does everything
 * not covered (sets of non-scalars, carriers, classes compiled after registration, structs nested
 * more than MAX_STRUCT_LEVELS deep). The frame's table is read through _core_structs_scope.h, the
 * ext header and the ints put by _core_structs_put.h. */

#define MAX_STRUCT_LEVELS 64
#define CONVERT (-6) /* a field value its check refused: its Python writer decides */

static int enc_field(Enc *e, PyObject *v, TNode *t, int depth);
/* A list of instances of one definition as ext 2 (_core_structs_list_encode.h, reached through
 * enc_structs->write_list like the encoder reaches it); NOT_STRUCT_LIST: an array. */
#define NOT_STRUCT_LIST 1000

static int enc_int_in(Out *o, PyObject *v, TNode *t) {
    if (!PyLong_CheckExact(v)) return CONVERT;
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow == 0) {
        if (x < t->low || (x >= 0 && (unsigned long long)x > t->high)) return CONVERT;
        return put_int(o, x);
    }
    if (overflow < 0 || t->code != FT_UINT64) return CONVERT;
    unsigned long long u = PyLong_AsUnsignedLongLong(v);
    if (u == (unsigned long long)-1 && PyErr_Occurred()) { PyErr_Clear(); return CONVERT; }
    return pack_uint(o, u);
}

/* Set members of a scalar type: each packed alone, written in the order of their bytes. */
typedef struct { Py_ssize_t at, len; } Span;
static const char *span_base;
static int cmp_span(const void *a, const void *b) {
    const Span *x = a, *y = b;
    Py_ssize_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(span_base + x->at, span_base + y->at, (size_t)n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

static int enc_set(Enc *e, PyObject *v, TNode *t, int depth) {
    TNode *item = &t->args[0];
    if (!is_c_scalar(item->code)) return -2;
    Py_ssize_t n = PySet_GET_SIZE(v);
    int r = ARRAY_HEADER(&e->out, n);
    if (r < 0 || n == 0) return r;
    Out saved = e->out, tmp = {0};
    Span *spans = PyMem_Malloc(n * sizeof(Span));
    if (spans == NULL) { PyErr_NoMemory(); return -1; }
    Py_ssize_t pos = 0, k = 0;
    Py_hash_t hash;
    PyObject *member;
    e->out = tmp;
    while (_PySet_NextEntry(v, &pos, &member, &hash)) {
        if (k >= n) { r = -2; break; }
        spans[k].at = e->out.len;
        r = enc_field(e, member, item, depth);
        if (r < 0) break;
        spans[k].len = e->out.len - spans[k].at;
        k++;
    }
    tmp = e->out;
    e->out = saved;
    if (r == 0 && k != n) r = -2;
    if (r == 0) {
        span_base = tmp.buf; /* the GIL is held: no other sort runs meanwhile */
        qsort(spans, n, sizeof(Span), cmp_span);
        if (e->out.cap - e->out.len < tmp.len && out_grow(&e->out, tmp.len) < 0) r = -1;
        for (Py_ssize_t i = 0; r == 0 && i < n; i++) {
            memcpy(e->out.buf + e->out.len, tmp.buf + spans[i].at, spans[i].len);
            e->out.len += spans[i].len;
        }
    }
    if (tmp.owns) PyMem_Free(tmp.buf);
    PyMem_Free(spans);
    return r;
}

static int enc_struct(Enc *e, PyObject *obj, StructPlan *plan);

/* One field value of type t; CONVERT when its check refuses it. */
static int enc_field(Enc *e, PyObject *v, TNode *t, int depth) {
    Out *o = &e->out;
    if (depth >= MSGPACK_MAX_NESTING) return -3;
    switch (t->code) {
    case FT_BOOL:
        if (v != Py_True && v != Py_False) return CONVERT;
        RESERVE(o, 1);
        put1(o, v == Py_True ? 0xc3 : 0xc2);
        return 0;
    case FT_INT8: case FT_INT16: case FT_INT32: case FT_INT64:
    case FT_UINT8: case FT_UINT16: case FT_UINT32: case FT_UINT64:
        return enc_int_in(o, v, t);
    case FT_FLOAT64:
        if (!PyFloat_CheckExact(v)) return CONVERT;
        return pack_double(o, PyFloat_AS_DOUBLE(v));
    case FT_FLOAT32: {
        if (!PyFloat_CheckExact(v)) return CONVERT;
        double x = PyFloat_AS_DOUBLE(v);
        float y = (float)x;
        if (x != x || (isinf(y) && !isinf(x))) return CONVERT; /* NaN, and beyond binary32: its writer */
        return pack_double(o, (double)y);
    }
    case FT_STR: {
        if (!PyUnicode_CheckExact(v)) return CONVERT;
        Py_ssize_t n;
        const char *text = PyUnicode_AsUTF8AndSize(v, &n);
        if (text == NULL) return PyErr_ExceptionMatches(PyExc_UnicodeEncodeError) ? -4 : -1;
        return pack_raw(o, text, n, 1);
    }
    case FT_BYTES:
        if (!PyBytes_CheckExact(v)) return CONVERT;
        return pack_raw(o, PyBytes_AS_STRING(v), PyBytes_GET_SIZE(v), 0);
    case FT_ENUM: {
        int is = t->ref == NULL ? 0 : PyObject_IsInstance(v, t->ref);
        if (is < 0) return -1;
        if (!is) return CONVERT;
        PyObject *name = PyObject_GetAttr(v, str_name);
        if (name == NULL) return -1;
        int r = -2;
        if (PyUnicode_CheckExact(name)) {
            Py_ssize_t n;
            const char *text = PyUnicode_AsUTF8AndSize(name, &n);
            r = text == NULL ? -2 : pack_raw(o, text, n, 1);
        }
        Py_DECREF(name);
        if (r == -2) PyErr_Clear();
        return r;
    }
    case FT_ANY:
        return enc_generic(e, v, depth);
    case FT_STANDARD: /* a value of exactly that type, written as any; others: its writer checks them */
        if (t->ref == NULL || (PyObject *)Py_TYPE(v) != t->ref) return CONVERT;
        return enc_generic(e, v, depth);
    case FT_STRUCT: {
        PyObject *w = Py_TYPE(v) == e->plan_type ? (PyObject *)e->plan
                      : e->t.ext_writers == NULL ? NULL : PyDict_GetItemWithError(e->t.ext_writers, (PyObject *)Py_TYPE(v));
        if (w == NULL && PyErr_Occurred()) return -1;
        if (w == NULL || !IS_PLAN(w) || t->ref == NULL) return CONVERT;
        int same = PyUnicode_Compare(((StructPlan *)w)->class_id, t->ref);
        if (same == -1 && PyErr_Occurred()) return -1;
        if (same != 0) return CONVERT;
        return enc_struct(e, v, (StructPlan *)w);
    }
    case FT_OPTIONAL:
        if (v == Py_None) { RESERVE(o, 1); put1(o, 0xc0); return 0; }
        return enc_field(e, v, &t->args[0], depth);
    case FT_LIST: case FT_TUPLE: {
        int is_list = PyList_CheckExact(v);
        if (!is_list && !PyTuple_CheckExact(v)) return CONVERT;
        Py_ssize_t n = is_list ? PyList_GET_SIZE(v) : PyTuple_GET_SIZE(v);
        if (t->code == FT_TUPLE && n != t->nargs) return CONVERT;
        int r;
        if (t->code == FT_LIST && n > 0 && (r = enc_structs->write_list(e, v, &t->args[0], depth)) != NOT_STRUCT_LIST) return r;
        r = ARRAY_HEADER(o, n);
        if (r < 0) return r;
        for (Py_ssize_t i = 0; i < n; i++) {
            if (is_list && PyList_GET_SIZE(v) != n) return -2; /* changed while written */
            PyObject *item = is_list ? PyList_GET_ITEM(v, i) : PyTuple_GET_ITEM(v, i);
            Py_INCREF(item);
            r = enc_field(e, item, t->code == FT_LIST ? &t->args[0] : &t->args[i], depth + 1);
            Py_DECREF(item);
            if (r < 0) return r;
        }
        return 0;
    }
    case FT_SET:
        if (!PyAnySet_CheckExact(v)) return CONVERT;
        return enc_set(e, v, t, depth + 1);
    case FT_MAP: {
        if (!PyDict_CheckExact(v)) return CONVERT;
        Py_ssize_t n = PyDict_GET_SIZE(v), pos = 0, left = n;
        int r = MAP_HEADER(o, n);
        if (r < 0) return r;
        PyObject *key, *value;
        while (PyDict_Next(v, &pos, &key, &value)) {
            if (--left < 0) return -2; /* its items replaced while written (the count kept) */
            Py_INCREF(key);
            Py_INCREF(value);
            r = enc_field(e, key, &t->args[0], depth + 1);
            if (r == 0) r = enc_field(e, value, &t->args[1], depth + 1);
            Py_DECREF(key);
            Py_DECREF(value);
            if (r < 0) return r;
            if (PyDict_GET_SIZE(v) != n) return -2;
        }
        return left == 0 ? 0 : -2;
    }
    }
    return -2;
}

/* The value a field's Python writer gave for one its check refused, written at field_start (the
 * buffers of what was written there dropped); -2 if it is not of the field's type either. */
static int enc_write_converted(Enc *e, TNode *t, PyObject *converted, Py_ssize_t field_start, Py_ssize_t oob_start,
                               int depth) {
    int r = 0;
    e->out.len = field_start;
    if (PyList_GET_SIZE(e->oob) > oob_start) r = PyList_SetSlice(e->oob, oob_start, PY_SSIZE_T_MAX, NULL);
    TNode *s = t->code == FT_OPTIONAL ? &t->args[0] : t;
    if (r < 0) r = -1;
    else if (converted == Py_None && t->code == FT_OPTIONAL) r = enc_field(e, converted, t, depth);
    else if (s->code == FT_STANDARD || s->code == FT_STRUCT) r = enc_generic(e, converted, depth);
    else if (s->code == FT_FLOAT32 && PyFloat_CheckExact(converted)) r = pack_double(&e->out, PyFloat_AS_DOUBLE(converted));
    else r = enc_field(e, converted, s, depth); /* a scalar converted (an int in a float field), a container of them */
    return r == CONVERT ? -2 : r;
}

/* Field i's Python writer called on a value its check refused: the value to write (new), or NULL
 * with its error (it words the refusal). */
static PyObject *enc_convert(StructPlan *plan, Py_ssize_t i, PyObject *v) {
    if (check_state == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "serreg's struct state is not set");
        return NULL;
    }
    PyObject *args[2] = {v, check_state};
    return PyObject_Vectorcall(PyTuple_GET_ITEM(plan->converters, i), args, 2, NULL);
}

/* A field value its check refused: its Python writer raises the error, or converts the value. */
static int enc_converted(Enc *e, StructPlan *plan, Py_ssize_t i, PyObject *v, Py_ssize_t field_start,
                         Py_ssize_t oob_start) {
    if (check_state == NULL) return -2;
    PyObject *converted = enc_convert(plan, i, v);
    if (converted == NULL) return -1;
    int r = enc_write_converted(e, &plan->fields[i], converted, field_start, oob_start, 1);
    Py_DECREF(converted);
    return r;
}

/* An implicit struct's __dict__ (new reference) if its keys are the plan's names in order; NULL (no
   error set) if not: the pure codec's writer then gives the frame up (docs/FORMAT.md 10.9). With
   keys_checked (the walk compared them just before, Enc.keys_checked), its size alone is checked. */
static PyObject *implicit_state(PyObject *obj, StructPlan *plan, int keys_checked) {
    PyObject *state = PyObject_GenericGetDict(obj, NULL);
    if (state == NULL) return NULL;
    if (!PyDict_CheckExact(state) || PyDict_GET_SIZE(state) != plan->n) goto differs;
    if (keys_checked) return state;
    Py_ssize_t pos = 0, i = 0;
    PyObject *key, *value;
    while (PyDict_Next(state, &pos, &key, &value)) {
        PyObject *name = PyTuple_GET_ITEM(plan->names, i++);
        if (key == name) continue;
        int same = PyUnicode_CheckExact(key) ? PyUnicode_Compare(key, name) : 1;
        if (same == -1 && PyErr_Occurred()) PyErr_Clear();
        if (same != 0) goto differs;
    }
    return state;
differs:
    Py_DECREF(state);
    return NULL;
}

static int enc_struct(Enc *e, PyObject *obj, StructPlan *plan) {
    if (e->struct_level >= MAX_STRUCT_LEVELS || plan->fields == NULL) return -2;
    long long at;
    int r = enc_definition_index(e, plan, &at);
    if (r < 0) return r;
    Out *o = &e->out;
    Py_ssize_t start = o->len;
    RESERVE(o, EXT1_ROOM + 5 + 9); /* the ext header, the array header, the index */
    o->len += EXT1_ROOM;
    if (plan->n < 15) put1(o, (unsigned char)(0x90 | (plan->n + 1)));
    else if ((r = ARRAY_HEADER(o, plan->n + 1)) < 0) return r;
    if ((r = put_int(o, at)) < 0) return r;
    int tuple = plan->build == B_TUPLE;
    if (tuple && (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) != plan->n)) return -2;
    PyObject *state = NULL; /* B_IMPLICIT: the instance's __dict__, its keys the plan's names in order */
    Py_ssize_t state_pos = 0;
    if (plan->build == B_IMPLICIT) {
        int keys_checked = obj == e->keys_checked && plan == e->keys_checked_plan;
        e->keys_checked = NULL;
        if ((state = implicit_state(obj, plan, keys_checked)) == NULL) return PyErr_Occurred() ? -1 : -2;
    }
    PyTypeObject *type = Py_TYPE(obj);
    Py_ssize_t *slots = plan->offsets != NULL && type == (PyTypeObject *)plan->cls &&
                        (type->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG) && type->tp_version_tag == plan->version_tag
                        ? plan->offsets : NULL;
    e->struct_level++;
    for (Py_ssize_t i = 0; i < plan->n && r >= 0; i++) {
        PyObject *v;
        if (tuple) {
            v = Py_NewRef(PyTuple_GET_ITEM(obj, i));
        } else if (state != NULL) {
            /* A field written before may have run Python code that changed the __dict__: each key is
               the plan's name at its place again, or the pure codec's writer writes the instance. */
            PyObject *key, *name = PyTuple_GET_ITEM(plan->names, i);
            if (PyDict_GET_SIZE(state) != plan->n || !dict_next(state, &state_pos, &key, &v)) { r = -2; break; }
            if (key != name && (!PyUnicode_CheckExact(key) || PyUnicode_Compare(key, name) != 0)) {
                PyErr_Clear();
                r = -2;
                break;
            }
            /* A plain leaf of a field of type any, or a short list of them, written as the codec writes it
               (no code run). */
            if (plan->fields[i].code == FT_ANY &&
                ((r = enc_plain_leaf(o, v, e->t.native_overrides)) <= 0 || (r = enc_plain_list(e, v)) <= 0))
                continue;
            Py_INCREF(v);
        } else if (slots != NULL && (v = *(PyObject **)((char *)obj + slots[i])) != NULL) {
            Py_INCREF(v);
        } else {
            v = PyObject_GetAttr(obj, PyTuple_GET_ITEM(plan->names, i));
            if (v == NULL) { r = -1; break; }
        }
        Py_ssize_t field_start = o->len, oob_start = PyList_GET_SIZE(e->oob);
        r = enc_field(e, v, &plan->fields[i], 1);
        if (r == CONVERT) r = enc_converted(e, plan, i, v, field_start, oob_start);
        Py_DECREF(v);
    }
    e->struct_level--;
    Py_XDECREF(state);
    if (r < 0) return r;
    return struct_ext_end(o, start, 1);
}
