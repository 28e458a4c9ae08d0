/* The values the decoder (_core_decode.h) hands to Python: a nested value to its serializer
 * (decode_nested) and a struct instance the compiled reader leaves to the pure codec; the state
 * is written back and the out-of-band position remembered before the first such call. */

/* A nested value this code does not read in place: decode_nested(ClassIDHash, in-band, oob, None). */
static int dec_before_call(Dec *d) {
    if (d->plain_top) return -1;
    if (!stack_has_room()) { /* each nested value read through Python is C stack (Limits(max_depth=None)) */
        PyErr_SetString(limit_error_type != NULL ? limit_error_type : PyExc_RecursionError,
                        "values are nested deeper than this thread's C stack holds (the compiled codec stops "
                        "with 64 KiB left); read them on a thread with a larger stack (threading.stack_size)");
        return -1;
    }
    if (d->state != NULL && d->state != Py_None && dec_write_depth(d, d->depth) < 0) return -1;
    if (!d->called) {
        d->called = 1;
        d->saved_position = PyObject_GetAttr(d->oob, str_position);
        d->rewindable = d->saved_position != NULL;
        if (!d->rewindable) PyErr_Clear();
    }
    return 0;
}

/* A struct instance (ext 1): the pure codec reads it, as a document of that one value. */
static PyObject *dec_struct(Dec *d, Py_ssize_t start, Py_ssize_t end) {
    if (dec_load_state(d) < 0 || dec_before_call(d) < 0) return NULL;
    PyObject *doc = PyBytes_FromStringAndSize((const char *)d->p + start, end - start);
    if (doc == NULL) return NULL;
    PyObject *v = PyObject_CallMethodObjArgs(d->codec->pure, str_unpack, doc, d->oob, NULL);
    Py_DECREF(doc);
    return v;
}

static PyObject *dec_nested(Dec *d, const unsigned char *payload, Py_ssize_t n) {
    if (dec_before_call(d) < 0) return NULL;
    PyObject *args[4] = {NULL, NULL, NULL, NULL}, *body = NULL, *v = NULL;
    args[0] = PyBytes_FromStringAndSize((const char *)payload, HASH_SIZE);
    body = PyBytes_FromStringAndSize((const char *)payload + HASH_SIZE, n - HASH_SIZE);
    if (args[0] != NULL && body != NULL && (args[1] = PyMemoryView_FromObject(body)) != NULL) {
        args[2] = d->oob;
        args[3] = Py_None;
        v = PyObject_Vectorcall(d->codec->decode_nested, args, 4, NULL);
    }
    Py_XDECREF(args[0]);
    Py_XDECREF(args[1]);
    Py_XDECREF(body);
    return v;
}
