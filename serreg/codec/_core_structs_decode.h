/* Struct instances (ext 1) read by MsgpackCodec.unpack (docs/FORMAT.md, 10.3-10.4).
 *
 * The frame's table is the DecodeScope of the call (serreg/structs/scope.py): per definition, its
 * Python reader, and its StructPlan when the definition is the registered class's own (the common
 * case: same fields, same types). An instance of such a definition whose fields are all scalars is
 * read straight from the bytes, checked against the declared types and built here (no __init__);
 * an instance of any other definition is decoded here as an array (nested values and structs read
 * in place, counted against max_depth) and built by its Python reader, which checks and converts
 * what the writer declared (evolution, carriers). Anything out of the ordinary (no table, an index
 * outside it, a value of the wrong type, max_depth reached) is read by the pure codec, which raises
 * the error serreg words. Instances the Python decoder reads without counting them against
 * max_depth (fixarray, index < 128, plain scalar fields) are not counted here either. */


/* The table of the call, read at its first struct instance: 0, or 2 (none: the pure codec words it). */
static int dec_struct_scope(Dec *d) {
    if (d->struct_plans != NULL) return 0;
    if (decode_scope_var == NULL) return 2;
    PyObject *scope;
    if (PyContextVar_Get(decode_scope_var, NULL, &scope) < 0) { PyErr_Clear(); return 2; }
    if (scope == NULL || scope == Py_None) { Py_XDECREF(scope); return 2; }
    PyObject *plans = PyObject_GetAttr(scope, str_plans), *readers = PyObject_GetAttr(scope, str_readers),
             *leaves = PyObject_GetAttr(scope, str_leaves);
    Py_DECREF(scope);
    if (plans == NULL || readers == NULL || leaves == NULL || !PyList_CheckExact(plans) ||
        !PyList_CheckExact(readers) || !PyList_CheckExact(leaves) || PyList_GET_SIZE(plans) != PyList_GET_SIZE(readers)) {
        PyErr_Clear();
        Py_XDECREF(plans);
        Py_XDECREF(readers);
        Py_XDECREF(leaves);
        return 2;
    }
    d->struct_plans = plans;
    d->struct_readers = readers;
    d->struct_leaves = leaves;
    return 0;
}

/* One scalar field value of type t at p[*at..end), checked: a new reference, or NULL (no error set)
 * when it is anything else (the pure codec then words the refusal). */
static PyObject *dec_scalar(const unsigned char *p, Py_ssize_t *at, Py_ssize_t end, TNode *t) {
    Py_ssize_t i = *at;
    if (i >= end) return NULL;
    unsigned char b = p[i++];
    PyObject *v = NULL;
    if (t->code == FT_OPTIONAL) {
        if (b == 0xc0) { *at = i; return Py_NewRef(Py_None); }
        return dec_scalar(p, at, end, &t->args[0]);
    }
    switch (t->code) {
    case FT_BOOL:
        if (b != 0xc2 && b != 0xc3) return NULL;
        v = Py_NewRef(b == 0xc3 ? Py_True : Py_False);
        break;
    case FT_FLOAT32: case FT_FLOAT64: {
        int size = b == 0xcb ? 8 : b == 0xca ? 4 : 0;
        if (size == 0 || end - i < size) return NULL;
        uint64_t bits = 0;
        for (int k = 0; k < size; k++) bits = (bits << 8) | p[i + k];
        double x;
        if (size == 8) memcpy(&x, &bits, 8);
        else { uint32_t b32 = (uint32_t)bits; float f; memcpy(&f, &b32, 4); x = f; }
        i += size;
        v = PyFloat_FromDouble(x);
        break;
    }
    case FT_STR: case FT_BYTES: {
        Py_ssize_t n, head;
        if (t->code == FT_STR && b >= 0xa0 && b <= 0xbf) { n = b & 0x1f; head = 0; }
        else if ((t->code == FT_STR && b == 0xd9) || (t->code == FT_BYTES && b == 0xc4)) head = 1;
        else if ((t->code == FT_STR && b == 0xda) || (t->code == FT_BYTES && b == 0xc5)) head = 2;
        else if ((t->code == FT_STR && b == 0xdb) || (t->code == FT_BYTES && b == 0xc6)) head = 4;
        else return NULL;
        if (head) {
            if (end - i < head) return NULL;
            n = 0;
            for (int k = 0; k < head; k++) n = (n << 8) | p[i + k];
            i += head;
        }
        if (end - i < n) return NULL;
        v = t->code == FT_STR ? PyUnicode_DecodeUTF8((const char *)p + i, n, NULL)
                             : PyBytes_FromStringAndSize((const char *)p + i, n);
        if (v == NULL) { PyErr_Clear(); return NULL; }
        i += n;
        break;
    }
    case FT_INT8: case FT_INT16: case FT_INT32: case FT_INT64:
    case FT_UINT8: case FT_UINT16: case FT_UINT32: case FT_UINT64: {
        long long s = 0;
        unsigned long long u = 0;
        int negative = 0;
        if (b <= 0x7f) u = b;
        else if (b >= 0xe0) { s = (signed char)b; negative = 1; }
        else if (b >= 0xcc && b <= 0xd3) {
            int size = 1 << ((b - 0xcc) & 3);
            if (end - i < size) return NULL;
            uint64_t raw = 0;
            for (int k = 0; k < size; k++) raw = (raw << 8) | p[i + k];
            i += size;
            if (b <= 0xcf) u = raw;
            else {
                int shift = 64 - 8 * size;
                s = shift ? ((int64_t)(raw << shift)) >> shift : (int64_t)raw;
                if (s < 0) negative = 1; else u = (unsigned long long)s;
            }
        } else return NULL;
        if (negative) {
            if (s < t->low) return NULL;
            v = PyLong_FromLongLong(s);
        } else {
            if (u > t->high) return NULL;
            v = u <= (unsigned long long)LONG_MAX ? PyLong_FromLong((long)u) : PyLong_FromUnsignedLongLong(u);
        }
        break;
    }
    default:
        return NULL;
    }
    if (v == NULL) { PyErr_Clear(); return NULL; }
    *at = i;
    return v;
}

/* An instance of plan's class from its field values (references stolen); no __init__ runs, except
 * the constructor of a class built by calling it (B_CALL), as its Python reader calls it. */
static PyObject *plan_build(StructPlan *plan, PyObject **vals) {
    Py_ssize_t n = plan->n;
    PyTypeObject *cls = (PyTypeObject *)plan->cls;
    PyObject *obj = NULL;
    if (plan->build == B_CALL) { /* cls(name=value, ...); a refusal is worded by its Python reader */
        obj = PyObject_Vectorcall(plan->cls, vals, 0, plan->names);
        for (Py_ssize_t i = 0; i < n; i++) Py_DECREF(vals[i]);
        return obj;
    }
    if (plan->build == B_IMPLICIT && (obj = implicit_build(plan, vals)) != NOT_BUILT) return obj;
    if (plan->build == B_TUPLE) {
        PyObject *items = PyTuple_New(n);
        if (items == NULL) goto fail;
        for (Py_ssize_t i = 0; i < n; i++) PyTuple_SET_ITEM(items, i, vals[i]);
        PyObject *args = PyTuple_Pack(1, items);
        Py_DECREF(items);
        if (args == NULL) return NULL;
        obj = PyTuple_Type.tp_new(cls, args, NULL);
        Py_DECREF(args);
        return obj;
    }
    obj = PyBaseObject_Type.tp_new(cls, empty_tuple, NULL);
    if (obj == NULL) goto fail;
    /* The class changed since its plan was made (copyreg sets __slotnames__ on it at its first pickling
       check): whether its fields have data descriptors is looked up again, once per change. */
    if (plan->build == B_IMPLICIT && plan->implicit_direct && (cls->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG) &&
        cls->tp_version_tag != plan->version_tag)
        plan_find_direct(plan);
    if (plan->build == B_IMPLICIT && plan->implicit_direct && (cls->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG) &&
        cls->tp_version_tag == plan->version_tag) {
        /* No field is a data descriptor: its own attributes, where pickle's __dict__ would put them. */
        for (Py_ssize_t i = 0; i < n; i++) {
            if (PyObject_GenericSetAttr(obj, PyTuple_GET_ITEM(plan->names, i), vals[i]) < 0) goto fail;
        }
    } else if (plan->build == B_IMPLICIT) { /* its __dict__ filled directly, as pickle fills it */
        PyObject *dict = PyObject_GenericGetDict(obj, NULL);
        if (dict == NULL) goto fail;
        for (Py_ssize_t i = 0; i < n; i++) {
            if (PyDict_SetItem(dict, PyTuple_GET_ITEM(plan->names, i), vals[i]) < 0) { Py_DECREF(dict); goto fail; }
        }
        Py_DECREF(dict);
    } else if (plan->build == B_DICT) {
        /* Into the instance's own attributes (its __dict__), past the class's __setattr__ (frozen
           classes refuse it) as the Python reader fills __dict__ directly. */
        for (Py_ssize_t i = 0; i < n; i++) {
            if (PyObject_GenericSetAttr(obj, PyTuple_GET_ITEM(plan->names, i), vals[i]) < 0) goto fail;
        }
    } else {
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *setter = PyTuple_GET_ITEM(plan->setters, i);
            descrsetfunc set = setter == Py_None ? NULL : Py_TYPE(setter)->tp_descr_set;
            int r = set != NULL ? set(setter, obj, vals[i])
                                : PyObject_GenericSetAttr(obj, PyTuple_GET_ITEM(plan->names, i), vals[i]);
            if (r < 0) goto fail;
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) Py_DECREF(vals[i]);
    return obj;
fail:
    Py_XDECREF(obj);
    for (Py_ssize_t i = 0; i < n; i++) Py_DECREF(vals[i]);
    return NULL;
}

/* The fields of a scalar-only instance, read from p[at..end) and built: NULL and no error set when
 * something does not fit (the pure codec reads it again and says what). */
static PyObject *dec_flat(StructPlan *plan, const unsigned char *p, Py_ssize_t at, Py_ssize_t end) {
    PyObject *small[16], **vals = plan->n <= 16 ? small : PyMem_Malloc(plan->n * sizeof(PyObject *));
    if (vals == NULL) return NULL;
    Py_ssize_t k = 0;
    for (; k < plan->n; k++) {
        vals[k] = dec_scalar(p, &at, end, &plan->fields[k]);
        if (vals[k] == NULL) break;
    }
    PyObject *obj = NULL;
    if (k == plan->n && at == end) {
        obj = plan_build(plan, vals); /* steals vals */
        if (obj == NULL) PyErr_Clear();
    } else {
        for (Py_ssize_t i = 0; i < k; i++) Py_DECREF(vals[i]);
    }
    if (vals != small) PyMem_Free(vals);
    return obj;
}

/* One msgpack scalar of any type (nil, bool, int, float, str, bin) at p[*at..end), else NULL. */
static PyObject *dec_any_scalar(const unsigned char *p, Py_ssize_t *at, Py_ssize_t end) {
    static TNode as_int = {FT_UINT64, 0, LLONG_MIN, ULLONG_MAX, NULL, NULL};
    static TNode as_float = {FT_FLOAT64, 0, 0, 0, NULL, NULL}, as_str = {FT_STR, 0, 0, 0, NULL, NULL},
                 as_bytes = {FT_BYTES, 0, 0, 0, NULL, NULL}, as_bool = {FT_BOOL, 0, 0, 0, NULL, NULL};
    if (*at >= end) return NULL;
    unsigned char b = p[*at];
    if (b == 0xc0) { (*at)++; return Py_NewRef(Py_None); }
    if (b <= 0x7f || b >= 0xe0 || (b >= 0xcc && b <= 0xd3)) return dec_scalar(p, at, end, &as_int);
    if (b == 0xca || b == 0xcb) return dec_scalar(p, at, end, &as_float);
    if ((b >= 0xa0 && b <= 0xbf) || (b >= 0xd9 && b <= 0xdb)) return dec_scalar(p, at, end, &as_str);
    if (b >= 0xc4 && b <= 0xc6) return dec_scalar(p, at, end, &as_bytes);
    if (b == 0xc2 || b == 0xc3) return dec_scalar(p, at, end, &as_bool);
    return NULL;
}

/* [index, values...] of an instance holding scalars only, for its definition's Python reader
 * (an evolved definition, a carrier); NULL and no error set if it holds anything else. */
static PyObject *dec_flat_items(const unsigned char *p, Py_ssize_t at, Py_ssize_t end, Py_ssize_t count,
                                long long index) {
    if (count > end - at + 1) return NULL;
    PyObject *items = PyList_New(count);
    if (items == NULL) { PyErr_Clear(); return NULL; }
    PyObject *first = PyLong_FromLongLong(index);
    if (first == NULL) { PyErr_Clear(); Py_DECREF(items); return NULL; }
    PyList_SET_ITEM(items, 0, first);
    for (Py_ssize_t k = 1; k < count; k++) {
        PyObject *v = dec_any_scalar(p, &at, end);
        if (v == NULL) { Py_DECREF(items); return NULL; }
        PyList_SET_ITEM(items, k, v);
    }
    if (at != end) { Py_DECREF(items); return NULL; }
    return items;
}

/* An ext 1 at d->pos (its payload, n bytes): 0 built (*out), 1 decode its array in a frame,
 * 2 the pure codec reads it, -1 a Python error. */
static int dec_struct_here(Dec *d, const unsigned char *payload, Py_ssize_t n, PyObject **out) {
    if (d->plain_top && !d->struct_top) return -1; /* unpack_top: not plain (no error set: the full path reads it) */
    if (dec_load_state(d) < 0) { PyErr_Clear(); return 2; }
    int r = dec_struct_scope(d);
    if (r) return r;
    if (n < 2) return 2;
    unsigned char b = payload[0];
    Py_ssize_t count, at;
    if (b >= 0x90 && b <= 0x9f) { count = b & 0x0f; at = 1; }
    else if (b == 0xdc && n >= 3) { count = (payload[1] << 8) | payload[2]; at = 3; }
    else if (b == 0xdd && n >= 5) {
        count = ((Py_ssize_t)payload[1] << 24) | (payload[2] << 16) | (payload[3] << 8) | payload[4];
        at = 5;
    } else return 2;
    long long index;
    if (count < 1 || !read_int(payload, &at, n, &index) || index < 0 || index >= PyList_GET_SIZE(d->struct_plans))
        return 2;
    PyObject *plan = PyList_GET_ITEM(d->struct_plans, index);
    /* The Python decoder's shortcut (serreg/codec/pure.py): such an instance is not counted, and
       unpacked without decoding nested values (one inside fails its field's type check). */
    int counted = !(b >= 0x91 && b <= 0x9f && payload[1] < PyList_GET_SIZE(d->struct_leaves) &&
                    PyList_GET_ITEM(d->struct_leaves, payload[1]) != Py_None);
    int has_state = (d->state != NULL && d->state != Py_None) || d->plain_top; /* unpack_top: its max_depth */
    if (counted && has_state && (!d->inline_ok || d->depth + 1 > d->max_depth)) return 2;
    if (counted) {
        /* Walked first: a payload that is not exactly one msgpack value (cut short, extra bytes after
           the array, a count beyond its bytes) is read by the pure codec before any nested value in it
           is decoded here, so its error is the pure codec's even after nested values were decoded
           before it (not "malformed ..., after nested values"; docs/FORMAT.md, 10.3, 10.4). */
        Py_ssize_t end = 0;
        if (!skip_value(payload, &end, n) || end != n) return 2;
    }
    if (IS_PLAN(plan) && ((StructPlan *)plan)->c_leaf && count == ((StructPlan *)plan)->n + 1) {
        *out = dec_flat((StructPlan *)plan, payload, at, n);
        return *out != NULL ? 0 : 2;
    }
    if (counted) return 1;
    /* Scalars only, as the Python decoder reads it (not counted, no nested value): its reader builds it. */
    PyObject *items = dec_flat_items(payload, at, n, count, index);
    if (items == NULL) return 2;
    *out = PyObject_CallOneArg(PyList_GET_ITEM(d->struct_readers, index), items);
    Py_DECREF(items);
    return *out != NULL ? 0 : -1;
}

/* A decoded value of a field type its plan checks in C (tnode_checked): 1 when it fits, else 0 (the
 * Python reader words the refusal). */
static int value_fits(TNode *t, PyObject *v) {
    switch (t->code) {
    case FT_ANY: return 1;
    case FT_BOOL: return v == Py_True || v == Py_False;
    case FT_FLOAT32: case FT_FLOAT64: return PyFloat_CheckExact(v);
    case FT_STR: return PyUnicode_CheckExact(v);
    case FT_BYTES: return PyBytes_CheckExact(v);
    case FT_INT8: case FT_INT16: case FT_INT32: case FT_INT64:
    case FT_UINT8: case FT_UINT16: case FT_UINT32: case FT_UINT64: {
        if (!PyLong_CheckExact(v)) return 0;
        int overflow;
        long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow == 0) return x >= t->low && (x < 0 || (unsigned long long)x <= t->high);
        if (overflow < 0 || t->code != FT_UINT64) return 0;
        PyLong_AsUnsignedLongLong(v);
        if (PyErr_Occurred()) { PyErr_Clear(); return 0; }
        return 1;
    }
    case FT_OPTIONAL: return v == Py_None || value_fits(&t->args[0], v);
    case FT_LIST:
        if (!PyList_CheckExact(v)) return 0;
        if (t->args[0].code == FT_ANY) return 1;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(v); i++) {
            if (!value_fits(&t->args[0], PyList_GET_ITEM(v, i))) return 0;
        }
        return 1;
    case FT_MAP: {
        if (!PyDict_CheckExact(v)) return 0;
        if (t->args[0].code == FT_ANY && t->args[1].code == FT_ANY) return 1;
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        while (PyDict_Next(v, &pos, &key, &value)) {
            if (!value_fits(&t->args[0], key) || !value_fits(&t->args[1], value)) return 0;
        }
        return 1;
    }
    }
    return 0;
}

/* An instance of plan's class from field values vals[0], vals[step], ... (borrowed) decoded as its
 * own definition's, when the plan checks them all in C and they fit; else NULL, no error set. */
static PyObject *build_checked(StructPlan *plan, PyObject **vals, Py_ssize_t step) {
    Py_ssize_t n = plan->n;
    if (!plan->c_checked) return NULL;
    PyObject *small[16], **row = n <= 16 ? small : PyMem_Malloc(n * sizeof(PyObject *));
    if (row == NULL) { PyErr_Clear(); return NULL; }
    Py_ssize_t k = 0;
    for (; k < n && value_fits(&plan->fields[k], vals[k * step]); k++) row[k] = Py_NewRef(vals[k * step]);
    PyObject *obj = NULL;
    if (k == n) {
        obj = plan_build(plan, row); /* steals the row */
        if (obj == NULL) PyErr_Clear();
    } else {
        for (Py_ssize_t i = 0; i < k; i++) Py_DECREF(row[i]);
    }
    if (row != small) PyMem_Free(row);
    return obj;
}

/* The array of an instance decoded in a frame: built here when its plan checks its fields, else
 * by its definition's Python reader. */
static PyObject *finish_struct(Dec *d, PyObject *items) {
    Py_ssize_t size = PyList_GET_SIZE(items);
    if (size > 1 && PyLong_CheckExact(PyList_GET_ITEM(items, 0)) && d->struct_plans != NULL) {
        Py_ssize_t index = PyLong_AsSsize_t(PyList_GET_ITEM(items, 0));
        if (index >= 0 && index < PyList_GET_SIZE(d->struct_plans) && IS_PLAN(PyList_GET_ITEM(d->struct_plans, index))) {
            StructPlan *plan = (StructPlan *)PyList_GET_ITEM(d->struct_plans, index);
            PyObject *obj = size == plan->n + 1 && !d->python_rows ? build_checked(plan, &PyList_GET_ITEM(items, 1), 1) : NULL;
            if (obj != NULL) return obj;
        }
        PyErr_Clear();
    }
    if (PyList_GET_SIZE(items) > 0 && PyLong_CheckExact(PyList_GET_ITEM(items, 0)) && d->struct_readers != NULL) {
        Py_ssize_t index = PyLong_AsSsize_t(PyList_GET_ITEM(items, 0));
        if (index >= 0 && index < PyList_GET_SIZE(d->struct_readers))
            return PyObject_CallOneArg(PyList_GET_ITEM(d->struct_readers, index), items);
        PyErr_Clear();
    }
    return read_instance_fn == NULL ? NULL : PyObject_CallOneArg(read_instance_fn, items); /* it words the refusal */
}

