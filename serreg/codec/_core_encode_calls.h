/* The values the encoder (_core_encode.h) hands to Python: a value no code here writes goes to
 * its serializer through encode_nested and is written as ext 0 (a struct instance goes to the
 * struct writer instead). */

/* A value no code here writes: its serializer's result, through encode_nested, as ext 0. */
static int enc_nested(Enc *e, PyObject *obj) {
    /* serialize_top writes structs only with a struct table of its own (opened here at the first one). */
    if (Py_TYPE(obj) == e->plan_type) return enc_has_table(e) ? enc_structs->write(e, obj, e->plan) : -2;
    if (e->t.ext_writers != NULL) {
        PyObject *writer = PyDict_GetItemWithError(e->t.ext_writers, (PyObject *)Py_TYPE(obj));
        if (writer == NULL && PyErr_Occurred()) return -1;
        /* A struct (ext 1): written here from its plan; a carrier, or a class compiled later, by the pure codec. */
        if (writer != NULL && !IS_PLAN(writer)) return -2;
        if (writer != NULL) {
            if (!enc_has_table(e)) return -2;
            e->plan_type = Py_TYPE(obj);
            e->plan = (StructPlan *)writer;
            return enc_structs->write(e, obj, e->plan);
        }
    }
    if (e->plain_top) return -2;
    if (stack_check() < 0) return -1;
    PyObject *pair = PyObject_CallOneArg(e->codec->encode_nested, obj);
    if (pair == NULL) return -1;
    int r = -2;
    PyObject *in_band = NULL, *buffers = NULL;
    Py_buffer view = {0};
    if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2) goto done;
    PyObject *hash = PyTuple_GET_ITEM(pair, 0), *result = PyTuple_GET_ITEM(pair, 1);
    if (!PyBytes_CheckExact(hash) || PyBytes_GET_SIZE(hash) != HASH_SIZE) goto done;
    buffers = PyObject_GetAttr(result, str_oob_buffers);
    if (buffers == NULL) goto done;
    if (PyList_CheckExact(buffers)) {
        if (PyList_GET_SIZE(buffers) &&
            PyList_SetSlice(e->oob, PY_SSIZE_T_MAX, PY_SSIZE_T_MAX, buffers) < 0) goto done;
    } else {
        PyObject *list = PySequence_List(buffers);
        if (list == NULL) goto done;
        int s = PyList_SetSlice(e->oob, PY_SSIZE_T_MAX, PY_SSIZE_T_MAX, list);
        Py_DECREF(list);
        if (s < 0) goto done;
    }
    in_band = PyObject_GetAttr(result, str_in_band);
    if (in_band == NULL) goto done;
    Py_ssize_t start = e->out.len;
    if (ext_begin(&e->out, (const unsigned char *)PyBytes_AS_STRING(hash)) < 0) goto done;
    if (in_band != Py_None) {
        if (PyObject_GetBuffer(in_band, &view, PyBUF_SIMPLE) < 0) goto done;
        if (view.len) {
            if (e->out.cap - e->out.len < view.len && out_grow(&e->out, view.len) < 0) goto done;
            memcpy(e->out.buf + e->out.len, view.buf, view.len);
            e->out.len += view.len;
        }
    }
    r = ext_end(&e->out, start);
done:
    if (view.obj != NULL) PyBuffer_Release(&view);
    Py_XDECREF(in_band);
    Py_XDECREF(buffers);
    Py_DECREF(pair);
    return r;
}
