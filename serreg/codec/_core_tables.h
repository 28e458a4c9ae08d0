/* The codec's Tables (serreg/codec/_core.c) from the registry's current snapshot: the natives a user
 * serializer took over, the standard types written and read in place, the struct writers, and the
 * top-level entries' part (_core_top_setup.h). current_tables builds them again only when a new
 * snapshot was published; otherwise it hands back the ones kept with the cached snapshot. */

static unsigned native_bit(PyObject *type) {
    if (type == (PyObject *)Py_TYPE(Py_None)) return N_NONE;
    if (type == (PyObject *)&PyBool_Type) return N_BOOL;
    if (type == (PyObject *)&PyLong_Type) return N_INT;
    if (type == (PyObject *)&PyFloat_Type) return N_FLOAT;
    if (type == (PyObject *)&PyUnicode_Type) return N_STR;
    if (type == (PyObject *)&PyBytes_Type) return N_BYTES;
    if (type == (PyObject *)&PyList_Type) return N_LIST;
    if (type == (PyObject *)&PyDict_Type) return N_DICT;
    return 0;
}

static int fill_kinds(PyObject *snapshot, PyObject *name, char *flags) {
    PyObject *ids = PyObject_GetAttr(snapshot, name);
    if (ids == NULL) return -1;
    for (int k = 1; k < N_KINDS; k++) {
        PyObject *id = PyUnicode_FromString(KIND_IDS[k]);
        int has = id == NULL ? -1 : PySequence_Contains(ids, id);
        Py_XDECREF(id);
        if (has < 0) { Py_DECREF(ids); return -1; }
        flags[k] = (char)has;
    }
    Py_DECREF(ids);
    return 0;
}

/* The top-level entries' part of the tables (defined in _core_top_setup.h). */
static int plain_tables(PyObject *snapshot, Tables *t);
static void as_is_arrays(Codec *self, Tables *t);

/* The tables of the registry's snapshot now (rebuilt when a new snapshot was published). */
static int current_tables(Codec *self, Tables *out) {
    PyObject *snapshot;
    if (self->snapshot_slot > 0) {
        snapshot = *(PyObject **)((char *)self->snapshots + self->snapshot_slot);
        if (snapshot == self->cached_snapshot && snapshot != NULL) { /* the common case: nothing published */
            *out = self->tables;
            return 0;
        }
        if (snapshot == NULL) {
            PyErr_SetString(PyExc_AttributeError, "snapshot");
            return -1;
        }
        Py_INCREF(snapshot);
    } else if ((snapshot = PyObject_GetAttr(self->snapshots, str_snapshot)) == NULL) {
        return -1;
    }
    if (snapshot != self->cached_snapshot) {
        Tables t;
        memset(&t, 0, sizeof t);
        PyObject *overrides = PyObject_GetAttr(snapshot, str_native_overrides);
        if (overrides == NULL) goto fail;
        PyObject *it = PyObject_GetIter(overrides), *type;
        Py_DECREF(overrides);
        if (it == NULL) goto fail;
        while ((type = PyIter_Next(it)) != NULL) {
            t.native_overrides |= native_bit(type);
            Py_DECREF(type);
        }
        Py_DECREF(it);
        if (PyErr_Occurred()) goto fail;
        if (fill_kinds(snapshot, str_standard_writers, t.write) < 0) goto fail;
        if (fill_kinds(snapshot, str_standard_readers, t.read) < 0) goto fail;
        /* Structs (ext 1) are written by the pure codec's struct writers: a value holding one goes
           there whole. The mapping lives as long as the snapshot, which cached_snapshot keeps. */
        PyObject *writers = PyObject_GetAttr(snapshot, str_ext_writers);
        if (writers == NULL) goto fail;
        t.ext_writers = (PyDict_Check(writers) && PyDict_GET_SIZE(writers) > 0) ? writers : NULL;
        Py_DECREF(writers);
        if (plain_tables(snapshot, &t) < 0) goto fail;
        as_is_arrays(self, &t);
        self->tables = t;
        Py_XSETREF(self->cached_snapshot, snapshot);
        *out = t;
        return 0;
    fail:
        Py_DECREF(snapshot);
        return -1;
    }
    Py_DECREF(snapshot);
    *out = self->tables;
    return 0;
}
