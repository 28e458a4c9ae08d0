/* Structs in the one-call entry serialize_top (_core_top.h): a value holding instances of struct
 * classes with a plan is written with a struct table of the call's own (an index dict and a list of
 * definitions in first-use order, instead of a serialize call's EncodeScope), put in front of the
 * value as docs/FORMAT.md 10.1 lays it out. Carriers and classes without a plan are not plain. */

/* A top-level value of a struct class with a plan (NULL: not one). */
static StructPlan *top_struct_plan(Tables *t, PyObject *obj) {
    if (t->ext_writers == NULL || structs_hash == NULL) return NULL;
    PyObject *w = PyDict_GetItemWithError(t->ext_writers, (PyObject *)Py_TYPE(obj));
    if (w == NULL) {
        if (PyErr_Occurred()) PyErr_Clear();
        return NULL;
    }
    return IS_PLAN(w) && ((StructPlan *)w)->class_hash != NULL ? (StructPlan *)w : NULL;
}

/* Give serialize_top's call its own struct table (instead of a serialize call's EncodeScope), at the
 * first struct it meets (Enc.open_table): 1, or 0 when it cannot have one (its structs are then not
 * plain). */
static int top_structs_open(Enc *e) {
    if (e->t.ext_writers == NULL || structs_hash == NULL) return 0;
    e->scope_index = PyDict_New();
    e->scope_definitions = PyList_New(0);
    if (e->scope_index != NULL && e->scope_definitions != NULL) return 1;
    Py_CLEAR(e->scope_index);
    Py_CLEAR(e->scope_definitions);
    PyErr_Clear();
    return 0;
}

/* Let go of serialize_top's struct table, if the call opened one. */
static void top_structs_close(Enc *e) {
    Py_CLEAR(e->scope_index);
    Py_CLEAR(e->scope_definitions);
}

/* The frame of serialize_top's result (section_frame) from the value's bytes: its in-band section is
 * the value's ClassIDHash *hash and bytes without structs; with them, the table in front (docs/FORMAT.md
 * 10.1: the definitions, then *hash and the bytes), *hash then replaced by ClassIDHash("serreg.structs"). */
static PyObject *top_result_frame(Enc *e, PyObject **hash, const char *body, Py_ssize_t n) {
    Py_ssize_t count = e->scope_definitions == NULL ? 0 : PyList_GET_SIZE(e->scope_definitions);
    if (count == 0) return section_frame(PyBytes_AS_STRING(*hash), body, n); /* no struct table */
    Py_ssize_t size = 5 + HASH_SIZE + n;
    for (Py_ssize_t i = 0; i < count; i++) size += PyBytes_GET_SIZE(PyList_GET_ITEM(e->scope_definitions, i));
    Out o = {0};
    if (out_grow(&o, size) < 0 || ARRAY_HEADER(&o, count) < 0) { PyMem_Free(o.buf); return NULL; }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *d = PyList_GET_ITEM(e->scope_definitions, i);
        memcpy(o.buf + o.len, PyBytes_AS_STRING(d), PyBytes_GET_SIZE(d));
        o.len += PyBytes_GET_SIZE(d);
    }
    memcpy(o.buf + o.len, PyBytes_AS_STRING(*hash), HASH_SIZE);
    o.len += HASH_SIZE;
    memcpy(o.buf + o.len, body, n);
    o.len += n;
    PyObject *frame = section_frame(PyBytes_AS_STRING(structs_hash), o.buf, o.len);
    PyMem_Free(o.buf);
    if (frame != NULL) Py_SETREF(*hash, Py_NewRef(structs_hash));
    return frame;
}

/* A struct table's value (after its ClassIDHash) read as unpack_plain_value reads a plain one, its
 * struct instances read here (the table's DecodeScope is set, or its plans, readers and leaves given in
 * scope_lists), at the depth the full path reads it at; NotImplemented for anything else (the full path
 * reads it and words any error). A value that is an array is made by top (Dec.build_top), when given. */
typedef struct {
    PyObject *(*build)(const void *arg, PyObject **items, Py_ssize_t n, int *taken);
    const void *arg;
} TopBuild;

static PyObject *struct_value(Codec *self, Tables *t, const unsigned char *p, Py_ssize_t n, long long depth,
                              long long max_depth, PyObject *const *scope_lists, const TopBuild *top) {
    Dec d;
    memset(&d, 0, DEC_ZEROED);
    if (top != NULL) {
        d.build_top = top->build;
        d.build_top_arg = top->arg;
    }
    if (scope_lists != NULL) {
        d.struct_plans = Py_NewRef(scope_lists[0]);
        d.struct_readers = Py_NewRef(scope_lists[1]);
        d.struct_leaves = Py_NewRef(scope_lists[2]);
    }
    d.codec = self;
    d.t = *t;
    d.plain_top = d.struct_top = 1;
    d.oob = Py_None;
    d.p = p;
    d.end = d.doc_end = n;
    d.state_loaded = d.inline_ok = 1; /* trusted, no call state */
    d.depth = d.initial_depth = d.written_depth = depth;
    d.max_depth = max_depth < 0 ? LLONG_MAX / 2 : max_depth;
    memset(d.allowed, 1, sizeof d.allowed);
    PyObject *value = dec_run_kept(self, &d);
    Py_XDECREF(d.struct_plans);
    Py_XDECREF(d.struct_readers);
    Py_XDECREF(d.struct_leaves);
    if (value != NULL) return value;
    if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_Exception)) return NULL;
    PyErr_Clear();
    Py_RETURN_NOTIMPLEMENTED;
}

/* A top-level instance from its decoded array [index, values...] (FORMAT 10.1): its plan's class
 * when the value's ClassIDHash is that class's, built in C or by the definition's reader. */
static PyObject *top_instance(PyObject *scope, PyObject *items, const unsigned char *hash) {
    PyObject *plans = PyObject_GetAttr(scope, str_plans), *readers = PyObject_GetAttr(scope, str_readers), *obj = NULL;
    if (plans != NULL && readers != NULL && PyList_CheckExact(plans) && PyList_CheckExact(readers) &&
        PyList_GET_SIZE(plans) == PyList_GET_SIZE(readers) && PyList_CheckExact(items) && PyList_GET_SIZE(items) > 0 &&
        PyLong_CheckExact(PyList_GET_ITEM(items, 0))) {
        Py_ssize_t index = PyLong_AsSsize_t(PyList_GET_ITEM(items, 0));
        PyObject *plan = index >= 0 && index < PyList_GET_SIZE(plans) ? PyList_GET_ITEM(plans, index) : NULL;
        if (plan != NULL && IS_PLAN(plan) && ((StructPlan *)plan)->class_hash != NULL &&
            memcmp(PyBytes_AS_STRING(((StructPlan *)plan)->class_hash), hash, HASH_SIZE) == 0) {
            StructPlan *sp = (StructPlan *)plan;
            if (PyList_GET_SIZE(items) == sp->n + 1) obj = build_checked(sp, &PyList_GET_ITEM(items, 1), 1);
            if (obj == NULL) obj = PyObject_CallOneArg(PyList_GET_ITEM(readers, index), items);
        }
    }
    Py_XDECREF(plans);
    Py_XDECREF(readers);
    if (obj != NULL) return obj;
    if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_Exception)) return NULL;
    PyErr_Clear(); /* the full path reads it again and words the refusal */
    Py_RETURN_NOTIMPLEMENTED;
}

/* unpack_top of a frame or result whose value has a struct table (ClassIDHash "serreg.structs"): the
 * table read by the registry's own reader (serreg.structs.frames), then the value after it with
 * the table in scope, as the full path reads it (the table one level deep, the value two); a
 * top-level struct's instance array one level deep. NotImplemented for anything else. */
/* The last table read here: its bytes, the snapshot it was read under (registering a class makes a
 * new one) and its DecodeScope, which nothing changes once made; the next frame of the same table
 * under the same snapshot reuses it (its parse costs more than the value of a small struct). */
static PyObject *last_table, *last_snapshot, *last_opened;

static PyObject *open_struct_table(Codec *self, const unsigned char *p, Py_ssize_t n) {
    Py_ssize_t end = 0;
    if (!skip_value(p, &end, n)) return NULL; /* not an array of definitions: the full path says what */
    if (last_table != NULL && last_snapshot == self->cached_snapshot && PyBytes_GET_SIZE(last_table) == end &&
        memcmp(PyBytes_AS_STRING(last_table), p, end) == 0)
        return Py_NewRef(last_opened);
    PyObject *by_hash = PyObject_GetAttr(self->cached_snapshot, str_by_hash), *registration = NULL,
             *serializer = NULL, *frames = NULL, *in_band = NULL, *opened = NULL;
    if (by_hash == NULL || !PyDict_Check(by_hash)) goto done;
    registration = PyDict_GetItemWithError(by_hash, structs_hash);
    if (registration == NULL) goto done;
    Py_INCREF(registration);
    if ((serializer = PyObject_GetAttr(registration, str_serializer)) == NULL ||
        (frames = PyObject_GetAttr(serializer, str_frames)) == NULL ||
        (in_band = PyBytes_FromStringAndSize((const char *)p, n)) == NULL ||
        (opened = PyObject_CallMethodOneArg(frames, str_open_table, in_band)) == NULL)
        goto done;
    if (!PyTuple_CheckExact(opened) || PyTuple_GET_SIZE(opened) != 2 || !PyLong_CheckExact(PyTuple_GET_ITEM(opened, 1)) ||
        PyLong_AsSsize_t(PyTuple_GET_ITEM(opened, 1)) != end) {
        PyErr_Clear();
        Py_CLEAR(opened);
        goto done;
    }
    PyObject *table = PyBytes_FromStringAndSize((const char *)p, end);
    if (table != NULL) {
        Py_XSETREF(last_table, table);
        Py_XSETREF(last_snapshot, Py_NewRef(self->cached_snapshot));
        Py_XSETREF(last_opened, Py_NewRef(opened));
    }
done:
    Py_XDECREF(by_hash);
    Py_XDECREF(registration);
    Py_XDECREF(serializer);
    Py_XDECREF(frames);
    Py_XDECREF(in_band);
    return opened;
}

static PyObject *unpack_struct_section(Codec *self, Tables *t, const unsigned char *p, Py_ssize_t n,
                                       long long max_depth) {
    if (decode_scope_var == NULL || self->cached_snapshot == NULL || structs_hash == NULL) Py_RETURN_NOTIMPLEMENTED;
    PyObject *opened = open_struct_table(self, p, n), *value = NULL;
    if (opened == NULL) goto done;
    Py_ssize_t offset = PyLong_AsSsize_t(PyTuple_GET_ITEM(opened, 1));
    if (offset < 0 || offset > n - HASH_SIZE) goto done;
    PyObject *scope = PyTuple_GET_ITEM(opened, 0);
    PyObject *value_type = unpacked_as_is(self, t, (const char *)p + offset);
    Py_XINCREF(value_type);
    if (value_type == NULL && PyErr_Occurred()) goto done;
    PyObject *token = PyContextVar_Set(decode_scope_var, scope);
    if (token == NULL) { Py_XDECREF(value_type); goto done; }
    const unsigned char *body = p + offset + HASH_SIZE;
    Py_ssize_t m = n - offset - HASH_SIZE;
    if (value_type != NULL) { /* a list, a dict ...: read as its serializer reads it, two levels deep */
        if (max_depth < 0 || max_depth >= 2) value = struct_value(self, t, body, m, 2, max_depth, NULL, NULL);
        if (value != NULL && value != Py_NotImplemented && (PyObject *)Py_TYPE(value) != value_type) Py_CLEAR(value);
    } else { /* a struct: its instance array */
        PyObject *items = max_depth < 0 || max_depth >= 1 ? struct_value(self, t, body, m, 1, max_depth, NULL, NULL)
                                                          : Py_NewRef(Py_NotImplemented);
        if (items != NULL && items != Py_NotImplemented) {
            value = top_instance(scope, items, p + offset);
            Py_DECREF(items);
        } else {
            value = items; /* NotImplemented, or NULL with an error */
        }
    }
    Py_XDECREF(value_type);
    if (PyContextVar_Reset(decode_scope_var, token) < 0) Py_CLEAR(value);
    Py_DECREF(token);
done:
    Py_XDECREF(opened);
    if (value != NULL) return value;
    if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_Exception)) return NULL;
    PyErr_Clear(); /* a table this reader refuses, and the like: the full path reads it and says so */
    Py_RETURN_NOTIMPLEMENTED;
}
