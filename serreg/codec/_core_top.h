/* The top-level entries of serreg/codec/_core.c: a plain value to a serialization result, and a
 * plain frame or result back to its value, each in one call (twins in serreg/codec/top.py).
 *
 * "Plain" is a value of a type whose standard serializer writes it as the codec writes it
 * (dict, list, str, bool, None: ``Snapshot.packed_as_is``; int, float, small bytes; tuple,
 * datetime, date, time, timedelta, uuid, complex, as the payload of their in-place ext 0),
 * holding only what the codec writes and reads itself: no value that calls a serializer (a
 * registered type, a set, a struct, the fallback), so no struct table, no pickle fallback and
 * no call state are involved. For anything else, and for anything that goes wrong, the entries return
 * NotImplemented and write or read nothing: the caller takes the full path, which gives the
 * same bytes and values and reports every error as it always has. Values holding structs of
 * classes with a plan are the exception: both entries write and read them with a struct table of
 * their own (_core_structs_top.h); so is one plain object nobody declared at the top level, written
 * and read as an implicit struct from what the Python writer and reader published
 * (_core_implicit_top.h). */

/* Keep the empty list oob (a reference given) for serialize_top's next call, when no one else holds it. */
static void keep_oob_list(Codec *self, PyObject *oob) {
    if (self->oob_scratch == NULL && Py_REFCNT(oob) == 1 && PyList_GET_SIZE(oob) == 0) self->oob_scratch = oob;
    else Py_DECREF(oob);
}

/* The result of bytes at least bytes_in_band_max long, as its standard serializer (serreg/standard/binary.py)
 * and the full path's leaf entry make it: in-band section ClassIDHash + msgpack nil, kept apart; one
 * out-of-band buffer, obj itself (no copy), which stands for the list of one memoryview of it that
 * out_of_band_buffers makes when Python code asks (serreg/result.py); no key, no frame. It holds only
 * bytes and None: left untracked as a result without buffers is (see result_untracked_ok). */
static PyObject *serialize_top_bytes(PyObject *obj) {
    PyObject *result = result_fast ? (PyObject *)PyObject_GC_New(PyObject, result_type) : result_type->tp_alloc(result_type, 0);
    if (result == NULL) return NULL;
    SLOT(result, R_IN_BAND) = Py_NewRef(nil_in_band);
    SLOT(result, R_CLASS_HASH) = Py_NewRef(top_hash[TOP_BYTES]);
    SLOT(result, R_BUFFERS) = Py_NewRef(obj);
    SLOT(result, R_KEY) = Py_NewRef(Py_None);
    SLOT(result, R_FRAME) = Py_NewRef(Py_None);
    if (result_fast && !result_untracked_ok) PyObject_GC_Track(result);
    return result;
}

/* Whether the standard serializer of bytes writes them now (top_tables' answer, without copying the tables):
 * 1 or 0, -1 with an error set. */
static inline int top_writes_bytes(Codec *self) {
    PyObject *snapshot = self->snapshot_slot > 0 ? *(PyObject **)((char *)self->snapshots + self->snapshot_slot) : NULL;
    if (snapshot != NULL && snapshot == self->cached_snapshot) return self->tables.top_write[TOP_BYTES];
    Tables t;
    return top_tables(self, &t) < 0 ? -1 : t.top_write[TOP_BYTES];
}

static PyObject *serialize_top_value(Codec *self, PyObject *obj, Py_ssize_t *wasted);

/* obj's SerializationResult, or NotImplemented; *wasted is the bytes written before a value that is
 * not plain was met (0 otherwise). Large bytes first, inline, with no encoder to set up. */
static inline PyObject *serialize_top(Codec *self, PyObject *obj, Py_ssize_t *wasted) {
    if (Py_TYPE(obj) == &PyBytes_Type && PyBytes_GET_SIZE(obj) >= bytes_in_band_max && result_type != NULL) {
        int served = top_writes_bytes(self);
        if (served != 0) {
            *wasted = 0;
            return served < 0 ? NULL : serialize_top_bytes(obj);
        }
    }
    return serialize_top_value(self, obj, wasted);
}

/* serialize_top of anything but large bytes the standard serializer writes. */
static PyObject *serialize_top_value(Codec *self, PyObject *obj, Py_ssize_t *wasted) {
    Enc e;
    *wasted = 0;
    if (result_type == NULL) Py_RETURN_NOTIMPLEMENTED;
    memset(&e, 0, ENC_ZEROED);
    if (top_tables(self, &e.t) < 0) return NULL;
    int ext;
    PyObject *hash = top_class_hash(self, &e.t, obj, &ext);
    StructPlan *top_plan = NULL; /* a struct: its inner section is its instance array (FORMAT 10.1) */
    PyObject *implicit = NULL; /* one implicit struct instance: its published entry (_core_implicit_top.h) */
    /* The class of the implicit entry used last first: published under the snapshot it is read with, it
       is no struct class of that snapshot (the writer publishes only a class it found plain). */
    int implicit_tried = hash == NULL && !PyErr_Occurred() && implicit_met_last(self, obj);
    if (implicit_tried && (top_plan = implicit_top_plan(self, &e.t, obj, &implicit)) != NULL) hash = top_plan->class_hash;
    if (implicit_tried && top_plan == NULL && top_tables(self, &e.t) < 0) return NULL; /* its class check may run code */
    if (hash == NULL && !PyErr_Occurred() && (top_plan = top_struct_plan(&e.t, obj)) != NULL) hash = top_plan->class_hash;
    if (hash == NULL && !implicit_tried && !PyErr_Occurred() &&
        (top_plan = implicit_top_plan(self, &e.t, obj, &implicit)) != NULL)
        hash = top_plan->class_hash;
    if (hash == NULL) {
        if (PyErr_Occurred()) return NULL;
        Py_RETURN_NOTIMPLEMENTED;
    }
    if (!PyBytes_CheckExact(hash) || PyBytes_GET_SIZE(hash) != HASH_SIZE) {
        Py_XDECREF(implicit);
        Py_RETURN_NOTIMPLEMENTED;
    }
    Py_INCREF(hash);
    /* The buffers are collected in the codec's kept empty list (taken: a call inside this one makes its own);
       a result gets the list only when a buffer was met, else None, and the list stays kept. */
    PyObject *oob = self->oob_scratch, *frame = NULL;
    self->oob_scratch = NULL;
    if (oob == NULL && (oob = PyList_New(0)) == NULL) { Py_DECREF(hash); Py_XDECREF(implicit); return NULL; }
    e.codec = self;
    e.oob = oob;
    e.plain_top = 1;
    e.open_table = top_structs_open; /* structs only with a table of its own, opened at the first one */
    if (implicit != NULL) { /* its class is in no table the codec reads: its plan is the one met last, */
        e.plan_type = Py_TYPE(obj);
        e.plan = e.index_plan = top_plan;
        e.index = 0; /* definition 0 of the head's table (no table is opened unless another struct is met) */
        e.keys_checked = obj; /* by the walk, against top_plan's names (implicit_top_plan) */
        e.keys_checked_plan = top_plan;
    }
    void *stacks[3] = {NULL, NULL, NULL};
    Py_ssize_t caps[3] = {0, 0, 0};
    int took = take_kept(self, stacks, caps, KEPT_ENC, KEPT_ENC);
    e.stack = stacks[KEPT_ENC];
    e.cap = caps[KEPT_ENC];
    int took_scratch = 0;
    if (!self->scratch_busy && self->scratch != NULL) {
        self->scratch_busy = took_scratch = 1;
        e.out.buf = self->scratch;
        e.out.cap = self->scratch_cap;
    }
    int r = enc_tree(&e, obj);
    if (r == -2) *wasted = e.out.len;
    while (e.sp > 0) {
        EFrame *f = &e.stack[--e.sp];
        Py_CLEAR(f->obj);
        Py_CLEAR(f->value);
    }
    give_back(self, took, e.stack, e.cap, KEPT_ENC);
    if (took) self->kept_busy = 0;
    if (r >= 0) {
        /* A kind (and an int beyond 64 bits) was written as an ext 0: its serializer's in-band is the payload. */
        Py_ssize_t skip = 0;
        const unsigned char *buf = (const unsigned char *)e.out.buf;
        unsigned char first = e.out.len ? buf[0] : 0;
        if (ext || (first >= 0xc7 && first <= 0xc9) || (first >= 0xd4 && first <= 0xd8)) {
            skip = ext_header(buf); /* an ext 0 (its hash too), or a struct's ext 1; not a list's ext 2 */
            skip = buf[skip - 1] == 0 ? skip + HASH_SIZE : top_plan != NULL ? skip : 0;
        }
        frame = implicit != NULL ? implicit_frame(self, &e, implicit, &hash, e.out.buf + skip, e.out.len - skip)
                                 : top_result_frame(&e, &hash, e.out.buf + skip, e.out.len - skip);
        if (frame == NULL && !PyErr_Occurred()) r = -2; /* not the one definition of its head: the full path */
    }
    Py_XDECREF(implicit);
    top_structs_close(&e);
    give_back_out(self, &e.out, took_scratch);
    PyObject *result = NULL;
    if (frame != NULL) {
        /* With buffers (a bytearray met), the frame is not the result's: its in-band is kept as bytes. */
        PyObject *in_band = PyList_GET_SIZE(oob) == 0 ? Py_NewRef(Py_None) :
            PyBytes_FromStringAndSize(PyBytes_AS_STRING(frame) + FRAME_HEADER + HASH_SIZE,
                                      PyBytes_GET_SIZE(frame) - FRAME_HEADER - HASH_SIZE);
        if (in_band != NULL && in_band != Py_None) Py_SETREF(frame, Py_NewRef(Py_None));
        result = in_band == NULL ? NULL : result_fast ? (PyObject *)PyObject_GC_New(PyObject, result_type)
                                                      : result_type->tp_alloc(result_type, 0);
        if (result != NULL) {
            SLOT(result, R_IN_BAND) = in_band; /* None: the frame's, read from it (serreg/result.py) */
            SLOT(result, R_CLASS_HASH) = hash;
            SLOT(result, R_KEY) = Py_NewRef(Py_None);
            SLOT(result, R_FRAME) = frame;
            if (PyList_GET_SIZE(oob) == 0) {
                SLOT(result, R_BUFFERS) = Py_NewRef(Py_None);
                keep_oob_list(self, oob);
                if (result_fast && !result_untracked_ok) PyObject_GC_Track(result); /* (see result_untracked_ok) */
            } else {
                SLOT(result, R_BUFFERS) = oob;
                if (result_fast) PyObject_GC_Track(result);
            }
            return result;
        }
        Py_XDECREF(in_band);
        Py_DECREF(frame);
    } else if (r < 0 && !(r == -1 && PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_Exception))) {
        /* Not plain, or an error the full path reports with its own words. */
        PyErr_Clear();
        result = Py_NewRef(Py_NotImplemented);
    }
    Py_DECREF(hash);
    if (PyList_GET_SIZE(oob) > 0 && PyList_SetSlice(oob, 0, PY_SSIZE_T_MAX, NULL) < 0) PyErr_Clear();
    keep_oob_list(self, oob);
    return result;
}

/* serialize_top(obj) -> SerializationResult | NotImplemented */
static PyObject *Codec_serialize_top(Codec *self, PyObject *obj) {
    Py_ssize_t wasted;
    return serialize_top(self, obj, &wasted);
}

/* The value of a plain in-band (after its ClassIDHash) of type value_type; NotImplemented otherwise.
 * The standard types read in place are read here too, as a trusted call's first level would read
 * them (max_depth < 0: no limit); any other nested value is not plain. */
static PyObject *unpack_plain_value(Codec *self, Tables *t, const unsigned char *p, Py_ssize_t n, PyObject *value_type,
                                    long long max_depth) {
    Dec d;
    memset(&d, 0, DEC_ZEROED);
    d.codec = self;
    d.t = *t;
    d.plain_top = 1;
    d.oob = Py_None;
    d.p = p;
    d.end = d.doc_end = n;
    d.state_loaded = d.inline_ok = 1; /* trusted, no call state: the top-level value is depth 1 */
    d.depth = d.initial_depth = d.written_depth = 1;
    d.max_depth = max_depth < 0 ? LLONG_MAX / 2 : max_depth;
    memset(d.allowed, 1, sizeof d.allowed);
    PyObject *value = dec_run_kept(self, &d);
    if (value != NULL && (PyObject *)Py_TYPE(value) == value_type) return value;
    Py_XDECREF(value);
    if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_Exception)) return NULL;
    PyErr_Clear(); /* the full path decodes the same bytes and reports what is wrong */
    Py_RETURN_NOTIMPLEMENTED;
}


/* The value of a top-level in-band of int, float, bytes or a kind the codec reads in place, read as
 * their standard serializers read it; NotImplemented otherwise. The value is one level deep. */
static PyObject *unpack_scalar(Codec *self, Tables *t, const unsigned char *hash, const unsigned char *p,
                               Py_ssize_t n, long long max_depth) {
    if (max_depth == 0) Py_RETURN_NOTIMPLEMENTED; /* refused by the full path */
    PyObject *v = NULL;
    if (t->top_read[TOP_FLOAT] && memcmp(hash, PyBytes_AS_STRING(top_hash[TOP_FLOAT]), HASH_SIZE) == 0) {
        if (n != 9 || p[0] != 0xcb) Py_RETURN_NOTIMPLEMENTED;
        uint64_t bits = 0;
        for (int i = 1; i < 9; i++) bits = (bits << 8) | p[i];
        double x;
        memcpy(&x, &bits, 8);
        return PyFloat_FromDouble(x);
    }
    if (t->top_read[TOP_BYTES] && memcmp(hash, PyBytes_AS_STRING(top_hash[TOP_BYTES]), HASH_SIZE) == 0)
        return unpack_plain_value(self, t, p, n, (PyObject *)&PyBytes_Type, max_depth);
    int kind = K_NONE;
    for (int k = 1; k < N_KINDS && kind == K_NONE; k++) {
        if (t->read[k] && memcmp(hash, kind_hash[k], HASH_SIZE) == 0) kind = k;
    }
    switch (kind) {
    case K_NONE: case K_SET: case K_FROZENSET: case K_BYTEARRAY:
        Py_RETURN_NOTIMPLEMENTED;
    case K_INT:
        if (n == 0 || (p[0] != 0xc4 && p[0] != 0xc5))
            return unpack_plain_value(self, t, p, n, (PyObject *)&PyLong_Type, max_depth);
        break;
    case K_TUPLE: {
        PyObject *items = unpack_plain_value(self, t, p, n, (PyObject *)&PyList_Type, max_depth);
        if (items == NULL || items == Py_NotImplemented) return items;
        v = PyList_AsTuple(items);
        Py_DECREF(items);
        return v;
    }
    }
    v = dec_leaf(kind, p, n);
    if (v == NULL && !PyErr_Occurred()) Py_RETURN_NOTIMPLEMENTED; /* another form: its serializer reads it */
    return v;
}

/* The value of an in-band section (ClassIDHash, then in-band) of a plain value; NotImplemented otherwise. */
static PyObject *unpack_section(Codec *self, Tables *t, const unsigned char *hash, const unsigned char *p,
                                Py_ssize_t n, long long max_depth) {
    PyObject *value_type = unpacked_as_is(self, t, (const char *)hash), *value;
    if (value_type == NULL) {
        if (PyErr_Occurred()) return NULL;
        if (structs_hash != NULL && memcmp(hash, PyBytes_AS_STRING(structs_hash), HASH_SIZE) == 0)
            return unpack_struct_section(self, t, p, n, max_depth);
        if (self->implicit_hash != NULL && memcmp(hash, PyBytes_AS_STRING(self->implicit_hash), HASH_SIZE) == 0)
            return unpack_implicit(self, t, p, n, max_depth);
        return unpack_scalar(self, t, hash, p, n, max_depth);
    }
    Py_INCREF(value_type); /* the snapshot may be replaced while the value is built */
    value = unpack_plain_value(self, t, p, n, value_type, max_depth);
    Py_DECREF(value_type);
    return value;
}

/* Parse plain, None (untrusted: nothing here) or (max_depth, max_frame_size), each None for no limit,
 * into codec->plain_depth (-1: none) and plain_size; the last one parsed is kept (the registry's
 * Settings replace the tuple when they change). 1: parsed, 0: None, -1: error. */
static int parse_plain(Codec *self, PyObject *plain) {
    if (plain == Py_None) return 0;
    if (plain == self->plain_seen) return 1;
    if (!PyTuple_CheckExact(plain) || PyTuple_GET_SIZE(plain) != 2) {
        PyErr_SetString(PyExc_TypeError, "unpack_top: plain must be None or (max_depth, max_frame_size)");
        return -1;
    }
    long long max_depth = -1;
    uint64_t max_size = UINT64_MAX;
    PyObject *depth_limit = PyTuple_GET_ITEM(plain, 0), *size_limit = PyTuple_GET_ITEM(plain, 1);
    if (depth_limit != Py_None) {
        int overflow;
        max_depth = PyLong_AsLongLongAndOverflow(depth_limit, &overflow);
        if (max_depth == -1 && PyErr_Occurred()) return -1;
        if (overflow > 0) max_depth = LLONG_MAX / 2;
    }
    if (size_limit != Py_None) {
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(size_limit, &overflow);
        if (v == -1 && PyErr_Occurred()) return -1;
        max_size = overflow > 0 ? UINT64_MAX : v < 0 ? 0 : (uint64_t)v;
    }
    self->plain_depth = max_depth;
    self->plain_size = max_size;
    Py_INCREF(plain);
    Py_XSETREF(self->plain_seen, plain);
    return 1;
}

/* The value of a plain frame or result; NotImplemented otherwise (see Codec_unpack_top). */
static PyObject *unpack_top(Codec *self, PyObject *data, PyObject *plain) {
    if (plain == NULL) return NULL;
    if (result_type == NULL || decode_state_var == NULL) Py_RETURN_NOTIMPLEMENTED;
    int parsed = parse_plain(self, plain);
    if (parsed <= 0) {
        if (parsed < 0) return NULL;
        Py_RETURN_NOTIMPLEMENTED;
    }
    long long max_depth = self->plain_depth;
    uint64_t max_size = self->plain_size;
    int inside = decode_nested();
    if (inside < 0) return NULL;
    if (inside) Py_RETURN_NOTIMPLEMENTED; /* a nested call: it follows the rules of the outer one */
    Tables t;
    if (top_tables(self, &t) < 0) return NULL;
    if (t.unpacked_as_is == NULL) Py_RETURN_NOTIMPLEMENTED;
    PyObject *value;
    Py_buffer view;
    if (Py_TYPE(data) == result_type) {
        PyObject *hash = SLOT(data, R_CLASS_HASH), *in_band = SLOT(data, R_IN_BAND), *buffers = SLOT(data, R_BUFFERS);
        PyObject *frame = SLOT(data, R_FRAME);
        if (buffers == NULL || (buffers != Py_None && (!PyList_CheckExact(buffers) || PyList_GET_SIZE(buffers) != 0)))
            Py_RETURN_NOTIMPLEMENTED;
        if (frame != NULL && PyBytes_CheckExact(frame) && PyBytes_GET_SIZE(frame) >= FRAME_HEADER + HASH_SIZE) {
            /* written whole by serialize_top: the in-band section is the frame's (bytes: read in place) */
            const unsigned char *f = (const unsigned char *)PyBytes_AS_STRING(frame);
            Py_INCREF(frame);
            value = unpack_section(self, &t, f + FRAME_HEADER, f + FRAME_HEADER + HASH_SIZE,
                                   PyBytes_GET_SIZE(frame) - FRAME_HEADER - HASH_SIZE, max_depth);
            Py_DECREF(frame);
            return value;
        }
        if (hash == NULL || !PyBytes_CheckExact(hash) || PyBytes_GET_SIZE(hash) != HASH_SIZE || in_band == NULL ||
            in_band == Py_None)
            Py_RETURN_NOTIMPLEMENTED;
        Py_INCREF(hash); /* the result may be changed while the value is built */
        if (PyBytes_CheckExact(in_band)) {
            Py_INCREF(in_band);
            value = unpack_section(self, &t, (const unsigned char *)PyBytes_AS_STRING(hash),
                                   (const unsigned char *)PyBytes_AS_STRING(in_band), PyBytes_GET_SIZE(in_band), max_depth);
            Py_DECREF(in_band);
        } else if (PyObject_GetBuffer(in_band, &view, PyBUF_SIMPLE) < 0) {
            PyErr_Clear();
            value = Py_NewRef(Py_NotImplemented);
        } else {
            value = unpack_section(self, &t, (const unsigned char *)PyBytes_AS_STRING(hash), view.buf, view.len, max_depth);
            PyBuffer_Release(&view);
        }
        Py_DECREF(hash);
        return value;
    }
    /* A frame's value is one level deep: max_depth 0 refuses it (the full path says so). */
    if (!(PyBytes_CheckExact(data) || PyByteArray_CheckExact(data) || PyMemoryView_Check(data)) || max_depth == 0)
        Py_RETURN_NOTIMPLEMENTED;
    int exact_bytes = PyBytes_CheckExact(data);
    if (exact_bytes) {
        view.buf = PyBytes_AS_STRING(data);
        view.len = PyBytes_GET_SIZE(data);
    } else if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) {
        PyErr_Clear(); /* strided and the like: the full path explains */
        Py_RETURN_NOTIMPLEMENTED;
    }
    const unsigned char *p = view.buf;
    uint64_t size = (uint64_t)view.len;
    value = NULL;
    /* An unsigned frame without out-of-band buffers whose header is all in order. */
    if (size >= FRAME_HEADER + HASH_SIZE && size <= max_size && memcmp(p, "SREG", 4) == 0 && p[4] == 1 &&
        p[5] == 0 && p[6] == 0 && p[7] == 0 && frame_le(p + 8, 4) == 0 && frame_le(p + 12, 4) == 0 &&
        frame_le(p + 16, 8) == size - FRAME_HEADER && frame_le(p + 24, 8) == size) {
        if (exact_bytes) Py_INCREF(data); /* bytes are immutable: kept alive, they are read in place */
        value = unpack_section(self, &t, p + FRAME_HEADER, p + FRAME_HEADER + HASH_SIZE,
                               (Py_ssize_t)size - FRAME_HEADER - HASH_SIZE, max_depth);
        if (exact_bytes) Py_DECREF(data);
    } else {
        value = Py_NewRef(Py_NotImplemented);
    }
    if (!exact_bytes) PyBuffer_Release(&view);
    return value;
}

/* unpack_top(data, plain) -> value | NotImplemented. plain is None (untrusted: nothing here) or
 * (max_depth, max_frame_size) of the registry's limits (each None: no limit). */
static PyObject *Codec_unpack_top(Codec *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "unpack_top(data, plain)");
        return NULL;
    }
    return unpack_top(self, args[0], args[1]);
}
