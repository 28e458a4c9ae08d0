/* The encode loop of MsgpackCodec.pack (serreg/codec/_core.c): a value tree written into one
 * buffer with an explicit stack (_core_encode_state.h); scalars written by _core_encode_leaves.h,
 * the rest handed to Python by _core_encode_calls.h. Return codes: see _core_encode_state.h. */

/* PyDict_Next without its wrapper's call where CPython exports the function it wraps (3.8 to 3.12). */
#if PY_VERSION_HEX >= 0x03080000 && PY_VERSION_HEX < 0x030D0000
#define DICT_NEXT(d, pos, key, value) _PyDict_Next((d), (pos), (key), (value), NULL)
#else
#define DICT_NEXT(d, pos, key, value) PyDict_Next((d), (pos), (key), (value))
#endif


/* Write one value at msgpack nesting ``depth`` of its document (0: the document's own value);
 * containers push a frame. */
static int enc_value(Enc *e, PyObject *obj, int depth, int root, int inline_level) {
    PyTypeObject *type = Py_TYPE(obj);
    Out *o = &e->out;
    if (depth >= MSGPACK_MAX_NESTING) return -3; /* 1,024 levels, the outermost 1: every reader's default (4.3) */
    if (type == e->plan_type) return enc_structs->write(e, obj, e->plan); /* the struct class met last (never a native type) */
    /* Containers first: most plain leaves inside containers never get here (enc_plain_leaf). */
    unsigned bit = type == &PyDict_Type ? N_DICT : type == &PyList_Type ? N_LIST : native_bit((PyObject *)type);
    if (bit) {
        if (!root && (e->t.native_overrides & bit)) return enc_nested(e, obj);
        switch (bit) {
        case N_NONE: RESERVE(o, 1); put1(o, 0xc0); return 0;
        case N_BOOL: RESERVE(o, 1); put1(o, obj == Py_True ? 0xc3 : 0xc2); return 0;
        case N_FLOAT: return pack_double(o, PyFloat_AS_DOUBLE(obj));
        case N_STR: {
            Py_ssize_t n;
            const char *text = PyUnicode_AsUTF8AndSize(obj, &n);
            if (text == NULL) return PyErr_ExceptionMatches(PyExc_UnicodeEncodeError) ? -4 : -1;
            return pack_raw(o, text, n, 1);
        }
        case N_BYTES: return pack_raw(o, PyBytes_AS_STRING(obj), PyBytes_GET_SIZE(obj), 0);
        case N_INT: {
            int r = enc_int(e, obj);
            if (r != 1000) return r;
            if (e->t.write[K_INT] && inline_level < MAX_INLINE_LEVELS && (r = enc_big_int(e, obj)) != 1000) return r;
            return enc_nested(e, obj);
        }
        case N_LIST: {
            Py_ssize_t n = PyList_GET_SIZE(obj);
            int r;
            /* A list whose first item is a native value is never a list of instances (no call). */
            if (n > 0 && e->t.ext_writers != NULL && !(root && e->root_array) &&
                !native_bit((PyObject *)Py_TYPE(PyList_GET_ITEM(obj, 0))) &&
                (r = enc_structs->write_list(e, obj, NULL, depth)) != 1000)
                return r;
            r = ARRAY_HEADER(o, n);
            if (r < 0 || n == 0) return r;
            return enc_push(e, obj, S_LIST, n, depth + 1, -1, inline_level);
        }
        case N_DICT: {
            Py_ssize_t n = PyDict_GET_SIZE(obj);
            int r = MAP_HEADER(o, n);
            if (r < 0 || n == 0) return r;
            return enc_push(e, obj, S_DICT, n, depth + 1, -1, inline_level);
        }
        }
    }
    if (root && (type == &PyByteArray_Type || type == &PyMemoryView_Type)) return -2; /* msgpack's own bin */
    int kind = kind_of(type);
    if (kind == K_NONE || !e->t.write[kind] || inline_level >= MAX_INLINE_LEVELS) return enc_nested(e, obj);
    if (kind == K_SET || kind == K_FROZENSET) {
        int r = enc_plain_set(o, obj, kind, e->t.native_overrides);
        return r == 1000 ? enc_nested(e, obj) : r;
    }
    if (kind == K_TUPLE) {
        Py_ssize_t n = PyTuple_GET_SIZE(obj), start = o->len;
        if (ext_begin(o, kind_hash[K_TUPLE]) < 0) return -1;
        int r = ARRAY_HEADER(o, n);
        if (r < 0) return r;
        if (n == 0) return ext_end(o, start);
        return enc_push(e, obj, S_TUPLE, n, 1, start, inline_level + 1);
    }
    int r = enc_leaf_kind(e, obj, kind);
    return r == 1000 ? enc_nested(e, obj) : r;
}

/* Write the items of the containers opened above stack height base, until they are all closed. */
static int enc_drain(Enc *e, Py_ssize_t base) {
    int r;
    while (e->sp > base) {
        EFrame *f = &e->stack[e->sp - 1];
        PyObject *item;
        int depth = f->depth, level = f->inline_level;
        /* Plain leaves are written in a tight loop (no Python code runs meanwhile). */
        int plain = depth < MSGPACK_MAX_NESTING;
        if (f->kind == S_DICT) {
            if (f->value != NULL) {
                item = f->value;
                f->value = NULL;
            } else {
                PyObject *key, *value;
                if (PyDict_GET_SIZE(f->obj) != f->n) return -2; /* changed while written */
                int need = 0; /* 0: the dict is done, 1: its key goes the general way, 2: its value */
                r = 0;
                for (;;) {
                    if (!dict_next(f->obj, &f->i, &key, &value)) break;
                    if (--f->left < 0) return -2; /* more pairs than its header: changed while written */
                    if (!plain || (r = enc_plain_leaf(&e->out, key, e->t.native_overrides)) != 0) { need = 1; break; }
                    if ((r = enc_plain_leaf(&e->out, value, e->t.native_overrides)) != 0) { need = 2; break; }
                }
                if (need && r < 0) return r;
                if (need == 0) {
                    if (f->left != 0) return -2; /* fewer pairs than its header: changed while written */
                    if ((r = enc_pop(e)) < 0) return r;
                    continue;
                }
                Py_INCREF(value);
                f->value = value;
                if (need == 2) continue;
                item = key;
                Py_INCREF(item);
            }
        } else {
            Py_ssize_t size = f->kind == S_LIST ? PyList_GET_SIZE(f->obj) : PyTuple_GET_SIZE(f->obj);
            if (size != f->n) return -2;
            if (plain) {
                r = 0;
                PyObject **items = f->kind == S_LIST ? ((PyListObject *)f->obj)->ob_item : ((PyTupleObject *)f->obj)->ob_item;
                while (f->i < f->n && (r = enc_plain_leaf(&e->out, items[f->i], e->t.native_overrides)) == 0) f->i++;
                if (r < 0) return r;
            }
            if (f->i >= f->n) {
                if ((r = enc_pop(e)) < 0) return r;
                continue;
            }
            item = f->kind == S_LIST ? PyList_GET_ITEM(f->obj, f->i) : PyTuple_GET_ITEM(f->obj, f->i);
            f->i++;
            Py_INCREF(item);
        }
        r = enc_value(e, item, depth, 0, level);
        Py_DECREF(item);
        if (r < 0) return r;
    }
    return 0;
}

static int enc_tree(Enc *e, PyObject *root) {
    int r = enc_value(e, root, 0, 1, 0);
    return r < 0 ? r : enc_drain(e, 0);
}
