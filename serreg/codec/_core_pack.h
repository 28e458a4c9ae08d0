/* MsgpackCodec.pack (serreg/codec/_core.c): runs the encode loop (_core_encode.h) over one value
 * and hands back the in-band bytes; the output buffer kept for the next call, or given back. */

/* After a pack: keep a modest output buffer for the next call, give a large one back. */
static void give_back_out(Codec *self, Out *out, int took_scratch) {
    if (out->owns) {
        if (out->cap <= SCRATCH_KEEP && (took_scratch || self->scratch == NULL)) {
            if (took_scratch) PyMem_Free(self->scratch);
            self->scratch = out->buf;
            self->scratch_cap = out->cap;
        } else {
            PyMem_Free(out->buf);
        }
    }
    if (took_scratch) self->scratch_busy = 0;
}

static PyObject *Codec_pack(Codec *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 2 || nargs > 3 || !PyList_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "pack(obj, oob: list, list_value=True)");
        return NULL;
    }
    int list_value = nargs == 3 ? PyObject_IsTrue(args[2]) : 1;
    if (list_value < 0) return NULL;
    PyObject *obj = args[0], *oob = args[1];
    Enc e;
    memset(&e, 0, sizeof e);
    e.root_array = !list_value;
    e.codec = self;
    e.oob = oob;
    if (current_tables(self, &e.t) < 0) return NULL;
    if (implicit_tables_var != NULL) { /* a value written with implicit structs: their writers added */
        PyObject *implicit = implicit_ext_writers();
        if (implicit == NULL && PyErr_Occurred()) return NULL;
        if (implicit != NULL) e.t.ext_writers = implicit;
    }
    /* Held for the call: another thread may publish a new snapshot while a serializer runs. */
    Py_XINCREF(e.t.ext_writers);
    Py_ssize_t oob_start = PyList_GET_SIZE(oob);
    int took_scratch = 0;
    if (!self->scratch_busy && self->scratch != NULL) {
        self->scratch_busy = took_scratch = 1;
        e.out.buf = self->scratch;
        e.out.cap = self->scratch_cap;
    }
    /* The struct writers of this snapshot stay alive for the call: a serializer run from here may
       let another thread publish a new snapshot, which drops the cached one. */
    Py_XINCREF(e.t.ext_writers);
    int r = e.t.ext_writers != NULL ? enc_structs->scope_open(&e) : 0;
    if (r == 0) r = enc_tree(&e, obj);
    if (r == -2) enc_structs->scope_undo(&e); /* the pure codec writes the value again, its structs too */
    Py_XDECREF(e.t.ext_writers);
    /* An error inside a value written in place is worded as its serializer words it, about it. */
    PyObject *about = obj, *via = NULL;
    for (Py_ssize_t i = e.sp - 1; r == -4 && i >= 0; i--) {
        if (e.stack[i].ext_start >= 0) {
            about = via = e.stack[i].obj;
            Py_INCREF(via);
            break;
        }
    }
    while (e.sp > 0) {
        EFrame *f = &e.stack[--e.sp];
        Py_CLEAR(f->obj);
        Py_CLEAR(f->value);
    }
    PyMem_Free(e.stack);
    Py_XDECREF(e.scope);
    Py_XDECREF(e.scope_index);
    Py_XDECREF(e.scope_definitions);
    Py_XDECREF(e.t.ext_writers);
    PyObject *packed = r < 0 ? NULL : PyBytes_FromStringAndSize(e.out.buf, e.out.len);
    give_back_out(self, &e.out, took_scratch);
    if (r == -3 || r == -4) {
        /* The error the pure codec raises for this value, caused by what went wrong. */
        PyObject *type, *cause, *tb;
        if (r == -3) {
            PyErr_Clear();
            cause = PyObject_CallNoArgs(PyExc_RecursionError);
        } else {
            PyErr_Fetch(&type, &cause, &tb);
            PyErr_NormalizeException(&type, &cause, &tb);
            Py_XDECREF(type);
            Py_XDECREF(tb);
        }
        if (cause == NULL) return NULL;
        PyObject *error = PyObject_CallMethodObjArgs(self->pure, str_explain, about, cause, NULL);
        if (error != NULL && via != NULL && PyObject_SetAttr(error, str_via, via) < 0) Py_CLEAR(error);
        Py_XDECREF(via);
        if (error != NULL) {
            PyException_SetCause(error, cause); /* steals cause */
            PyErr_SetObject((PyObject *)Py_TYPE(error), error);
            Py_DECREF(error);
        } else {
            Py_DECREF(cause);
        }
        return NULL;
    }
    Py_XDECREF(via);
    if (r == -2) {
        /* Not handled here: the pure codec writes it (or raises the error serreg raises). */
        PyErr_Clear();
        if (PyList_SetSlice(oob, oob_start, PyList_GET_SIZE(oob), NULL) < 0) return NULL;
        return PyObject_CallMethodObjArgs(self->pure, list_value ? str_pack : str_pack_array, obj, oob, NULL);
    }
    return packed;
}
