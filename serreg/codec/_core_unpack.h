/* MsgpackCodec.unpack (serreg/codec/_core.c): runs the decode loop (_core_decode.h) over one
 * document, puts back what it changed in the call's state, and on what it does not handle hands
 * the document to the pure codec (or words the error, after nested values were decoded). */

static void dec_restore(Dec *d) {
    /* Put back what decoding changed in the call's state (before the pure codec runs, or on return). */
    if (d->state != NULL && d->state != Py_None) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        if (dec_write_depth(d, d->initial_depth) < 0) PyErr_Clear();
        PyErr_Restore(type, value, tb);
    }
}

static PyObject *Codec_unpack(Codec *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 && nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "unpack(data, oob, plain_only=False)");
        return NULL;
    }
    int plain_only = nargs == 3 ? PyObject_IsTrue(args[2]) : 0;
    if (plain_only < 0) return NULL;
    Dec d;
    memset(&d, 0, sizeof d);
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) {
        PyErr_Clear();
        return PyObject_CallMethodObjArgs(self->pure, str_unpack, args[0], args[1], nargs == 3 ? args[2] : NULL, NULL);
    }
    d.codec = self;
    d.plain_only = plain_only;
    d.oob = args[1];
    d.p = view.buf;
    d.end = d.doc_end = view.len;
    int r = current_tables(self, &d.t) < 0 ? -1 : 0;
    if (r == 0 && view.len > STRUCTURE_CHECK_THRESHOLD) {
        /* Untrusted, as the pure codec: a document that is truncated, declares more items than it
           holds or nests deeper than msgpack's limit is refused before anything in it is read (its
           error is the pure codec's). */
        if (dec_load_state(&d) < 0) r = -2;
        else if (d.untrusted) {
            int fault = walk_structure(d.p, d.end);
            r = fault == WALK_SOUND ? 0 : fault == WALK_NO_MEMORY ? -1 : -2;
        }
    }
    if (r == 0) r = dec_run(&d);
    if (r < 0) r = refuse_earlier_key(&d, r);
    PyObject *value = r == 0 ? d.vals[--d.nvals] : NULL;
    for (Py_ssize_t i = 0; i < d.nvals; i++) Py_DECREF(d.vals[i]);
    PyMem_Free(d.vals);
    PyMem_Free(d.stack);
    Py_XDECREF(d.struct_plans);
    Py_XDECREF(d.struct_readers);
    Py_XDECREF(d.struct_leaves);
    PyBuffer_Release(&view);
    dec_restore(&d);
    if (r == -5) return Py_NewRef(Py_NotImplemented); /* a nested value, and plain_only */
    if (r == -1 && d.called) {
        /* An error from a nested value's serializer: as the nested decoder would, each value read
           in place around it adds its class ID to the error's nesting (outermost first). Never
           decoded again: redoing the nested values at every level would double the work per level. */
        PyObject *type, *error, *tb;
        PyErr_Fetch(&type, &error, &tb);
        PyErr_NormalizeException(&type, &error, &tb);
        if (error != NULL && decode_error_type != NULL && PyObject_IsInstance(error, decode_error_type) == 1) {
            PyObject *located = PyObject_GetAttrString(error, "located");
            PyObject *nesting = PyObject_GetAttrString(error, "nesting");
            if (located == Py_True && nesting != NULL && PyList_Check(nesting)) {
                for (Py_ssize_t i = 0; i < d.ext_open; i++) {
                    PyObject *id = PyUnicode_FromString(KIND_IDS[d.ext_kinds[i]]);
                    if (id != NULL) PyList_Insert(nesting, 0, id);
                    Py_XDECREF(id);
                }
            }
            Py_XDECREF(located);
            Py_XDECREF(nesting);
            PyErr_Clear();
        }
        PyErr_Restore(type, error, tb);
        PyMem_Free(d.ext_kinds);
        Py_XDECREF(d.state);
        Py_XDECREF(d.saved_budget);
        Py_XDECREF(d.saved_position);
        return NULL;
    }
    if (r < 0 && d.called) {
        /* Malformed after nested values were decoded: refused here, not decoded again (see above). */
        PyErr_Clear();
        if (d.saw_timestamp) {
            PyErr_SetString(decode_error_type != NULL ? decode_error_type : PyExc_ValueError, TIMESTAMP_REFUSAL);
        } else {
            PyErr_Format(decode_error_type != NULL ? decode_error_type : PyExc_ValueError,
                         "invalid msgpack in-band data: malformed at byte %zd, after nested values", d.pos);
        }
        r = -1;
    }
    PyMem_Free(d.ext_kinds);
    if (r < 0 && !d.called && (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_Exception))) {
        /* Not handled here, or an error inside: the pure codec decodes the document again from
         * the same state and out-of-band position, and raises the error serreg raises. */
        if (!d.called || d.rewindable) {
            PyErr_Clear();
            int ok = 1;
            if (d.state != NULL && d.state != Py_None && d.saved_budget != NULL)
                ok = PyObject_SetAttr(d.state, str_budget, d.saved_budget) == 0;
            if (ok && d.called) {
                PyObject *done = PyObject_CallMethodObjArgs(d.oob, str_rewind, d.saved_position, NULL);
                ok = done != NULL;
                Py_XDECREF(done);
            }
            if (ok) value = PyObject_CallMethodObjArgs(self->pure, str_unpack, args[0], args[1], nargs == 3 ? args[2] : NULL, NULL);
        } else if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_ValueError, "invalid msgpack in-band data");
        }
    }
    Py_XDECREF(d.state);
    Py_XDECREF(d.saved_budget);
    Py_XDECREF(d.saved_position);
    return value;
}
