/* The codec's Tables (serreg/codec/_core.c) from the registry's current snapshot: the natives a user
 * serializer took over, the standard types written and read in place, the struct writers, and the
 * top-level entries' part (their plain types and ClassIDHashes, also as two short arrays of the
 * codec). current_tables builds them again only when a new snapshot was published; otherwise it
 * hands back the ones kept with the cached snapshot. */

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

static const char *TOP_IDS[2] = {"float", "bytes"};

/* The top-level entries' tables: borrowed, kept alive by the cached snapshot. */
static int plain_tables(PyObject *snapshot, Tables *t) {
    PyObject *writers = PyObject_GetAttr(snapshot, str_standard_writers), *readers = NULL;
    int ok = writers != NULL && (readers = PyObject_GetAttr(snapshot, str_standard_readers)) != NULL;
    for (int i = 0; i < 2 && ok; i++) {
        PyObject *id = PyUnicode_FromString(TOP_IDS[i]);
        int w = id == NULL ? -1 : PySequence_Contains(writers, id);
        int r = w < 0 ? -1 : PySequence_Contains(readers, id);
        Py_XDECREF(id);
        ok = w >= 0 && r >= 0;
        t->top_write[i] = (char)(w > 0);
        t->top_read[i] = (char)(r > 0);
    }
    Py_XDECREF(writers);
    Py_XDECREF(readers);
    if (!ok) return -1;
    PyObject *packed = PyObject_GetAttr(snapshot, str_packed_as_is), *unpacked;
    if (packed == NULL) return -1;
    unpacked = PyObject_GetAttr(snapshot, str_unpacked_as_is);
    t->packed_as_is = PyDict_CheckExact(packed) ? packed : NULL;
    t->unpacked_as_is = unpacked != NULL && PyDict_CheckExact(unpacked) ? unpacked : NULL;
    Py_DECREF(packed);
    Py_XDECREF(unpacked);
    if (unpacked == NULL) return -1;
    PyObject *by_hash = PyObject_GetAttr(snapshot, str_by_hash);
    t->by_hash = by_hash != NULL && PyDict_CheckExact(by_hash) ? by_hash : NULL;
    Py_XDECREF(by_hash);
    return by_hash == NULL ? -1 : 0;
}

/* Rotate entry i of the codec's packed (which 0) or unpacked (1) arrays to the front. */
static void as_is_to_front(Codec *self, int which, int i) {
    for (; i > 0; i--) {
        if (which == 0) {
            PyObject *type = self->packed_type[i], *hash = self->packed_hash[i];
            self->packed_type[i] = self->packed_type[i - 1];
            self->packed_hash[i] = self->packed_hash[i - 1];
            self->packed_type[i - 1] = type;
            self->packed_hash[i - 1] = hash;
        } else {
            PyObject *type = self->unpacked_type[i];
            uint64_t hash = self->unpacked_hash[i];
            self->unpacked_type[i] = self->unpacked_type[i - 1];
            self->unpacked_hash[i] = self->unpacked_hash[i - 1];
            self->unpacked_type[i - 1] = type;
            self->unpacked_hash[i - 1] = hash;
        }
    }
}

/* Copy the tables' packed_as_is and unpacked_as_is into the codec's arrays, when they fit; dict and
 * list first (the types of most top-level values), so the scans that find them end early. */
static void as_is_arrays(Codec *self, Tables *t) {
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    int n = 0;
    if (t->packed_as_is == NULL || PyDict_GET_SIZE(t->packed_as_is) > N_AS_IS) {
        n = -1;
    } else {
        while (PyDict_Next(t->packed_as_is, &pos, &key, &value)) {
            self->packed_type[n] = key;
            self->packed_hash[n++] = value;
        }
    }
    self->n_packed = n;
    n = 0;
    pos = 0;
    if (t->unpacked_as_is == NULL || PyDict_GET_SIZE(t->unpacked_as_is) > N_AS_IS) {
        n = -1;
    } else {
        while (PyDict_Next(t->unpacked_as_is, &pos, &key, &value)) {
            if (!PyBytes_CheckExact(key) || PyBytes_GET_SIZE(key) != HASH_SIZE) {
                n = -1;
                break;
            }
            memcpy(&self->unpacked_hash[n], PyBytes_AS_STRING(key), HASH_SIZE);
            self->unpacked_type[n++] = value;
        }
    }
    self->n_unpacked = n;
    PyObject *common[2] = {(PyObject *)&PyList_Type, (PyObject *)&PyDict_Type}; /* dict ends up first */
    for (int c = 0; c < 2; c++) {
        for (int i = 0; i < self->n_packed; i++) {
            if (self->packed_type[i] == common[c]) as_is_to_front(self, 0, i);
        }
        for (int i = 0; i < self->n_unpacked; i++) {
            if (self->unpacked_type[i] == common[c]) as_is_to_front(self, 1, i);
        }
    }
}

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
