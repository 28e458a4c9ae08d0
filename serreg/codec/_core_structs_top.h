/* Structs in the one-call entry serialize_top (_core_top.h): a value holding instances of struct
 * classes with a plan is written with a struct table of the call's own (an index dict and a list of
 * definitions in first-use order, instead of a serialize call's EncodeScope), put in front of the
 * value as docs/FORMAT.md 10.1 lays it out. Carriers and classes without a plan are not plain. */

/* A top-level value of a struct class with a plan (NULL: not one). */
static StructPlan *top_struct_plan(Tables *t, PyObject *obj) {
    if (t->ext_writers == NULL || structs_hash == NULL) return NULL;
    PyObject *w = PyDict_GetItemWithError(t->ext_writers, (PyObject *)Py_TYPE(obj));
    if (w == NULL) { PyErr_Clear(); return NULL; }
    return IS_PLAN(w) && ((StructPlan *)w)->class_hash != NULL ? (StructPlan *)w : NULL;
}

/* Give serialize_top's call its own struct table (instead of a serialize call's EncodeScope): 1, or 0
 * when it cannot have one (its structs are then not plain). */
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

/* The in-band of serialize_top's result from the value's bytes: as they are without structs; with
 * them, the table in front (docs/FORMAT.md 10.1: the definitions, then the value's ClassIDHash *hash
 * and bytes), *hash then replaced by ClassIDHash("serreg.structs"). */
static PyObject *top_in_band(Enc *e, PyObject **hash, const char *body, Py_ssize_t n) {
    Py_ssize_t count = e->scope_definitions == NULL ? 0 : PyList_GET_SIZE(e->scope_definitions);
    if (count == 0) return PyBytes_FromStringAndSize(body, n);
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
    PyObject *in_band = PyBytes_FromStringAndSize(o.buf, o.len);
    PyMem_Free(o.buf);
    if (in_band != NULL) Py_SETREF(*hash, Py_NewRef(structs_hash));
    return in_band;
}
