/* The top-level entry of a trusted frame or result whose value a registered serializer reads, out-of-band
 * buffers included: the C twin of Decoder._top_value (serreg/_registry/decode.py; the pure codec leaves
 * these to it).
 *
 * Registry.deserialize(data) (_core_entry.h) calls top_value when unpack_top (_core_top.h) did not read data
 * as a plain value. It takes a bytes, bytearray or 1-d byte memoryview frame whose layout is valid and
 * within the registry's limits (_frame_layout.h: every rule of docs/FORMAT.md section 4; a frame it does not
 * take, signed frames included, goes down the full path, which reports what is wrong in the order of 4.1 and
 * in its own words), or an in-process SerializationResult whose ClassIDHash is kept apart, with out-of-band
 * buffers or with none and its in-band a bytes object (a frame-backed in-band: the full path). It finds the
 * serializer by ClassIDHash and decodes the value as _top_value does: the in-band and the buffers as
 * memoryviews of the frame (nothing copied), a DecodeState of depth 1 with the memory budget of the
 * frame's size in DECODE_STATE, an error of the serializer located by the decoder's own helper
 * (``located``) and a buffer left unused refused by its own (``all_used``). A bytes or bytearray value held
 * in one out-of-band buffer, read by its standard serializer, is made here without calling it, as that
 * serializer makes it (a copy of the buffer; in one process the very object serialized). NotImplemented:
 * the full path decides. */

/* A DecodeState of depth 1 for a trusted call decoding a frame of size bytes; NULL: error, or (no error
 * set) a budget beyond 64 bits, which the full path computes. */
static PyObject *top_state(PyObject *owner, uint64_t size) {
    uint64_t budget = 0;
    if (top_has_budget && (__builtin_mul_overflow(top_per_byte, size, &budget) ||
                           __builtin_add_overflow(budget, top_allowance, &budget)))
        return NULL;
    PyObject *state = state_type->tp_alloc(state_type, 0);
    if (state == NULL) return NULL;
    AT(state, state_slot[ST_OWNER]) = Py_NewRef(owner);
    AT(state, state_slot[ST_ALLOWED]) = Py_NewRef(Py_None);
    AT(state, state_slot[ST_MAX_DEPTH]) = Py_NewRef(top_depth);
    AT(state, state_slot[ST_UNPICKLING]) = Py_NewRef(Py_None);
    PyObject *depth = PyLong_FromLong(1), *frame_size = PyLong_FromUnsignedLongLong(size);
    PyObject *made = top_has_budget ? PyLong_FromUnsignedLongLong(budget) : Py_NewRef(Py_None);
    PyObject *made_size = top_has_budget ? Py_XNewRef(made) : PyLong_FromLong(0);
    AT(state, state_slot[ST_DEPTH]) = depth;
    AT(state, state_slot[ST_FRAME_SIZE]) = frame_size;
    AT(state, state_slot[ST_BUDGET]) = made;
    AT(state, state_slot[ST_BUDGET_SIZE]) = made_size;
    if (depth == NULL || frame_size == NULL || made == NULL || made_size == NULL) Py_CLEAR(state);
    return state;
}

/* An OutOfBandBuffers over the list buffers (NO_BUFFERS when it is empty). */
static PyObject *top_oob(PyObject *buffers) {
    if (PyList_GET_SIZE(buffers) == 0) return Py_NewRef(no_buffers);
    PyObject *oob = oob_type->tp_alloc(oob_type, 0), *next = PyLong_FromLong(0);
    if (oob == NULL || next == NULL) {
        Py_XDECREF(oob);
        Py_XDECREF(next);
        return NULL;
    }
    AT(oob, oob_slot[OOB_BUFFERS]) = Py_NewRef(buffers);
    AT(oob, oob_slot[OOB_NEXT]) = next;
    return oob;
}

/* Raise what the serializer's pending error becomes: reading = (owner, located, all_used); located(error,
 * registration, offset) raises it, called while the error is being handled (as in an except clause).
 * Errors that are not an Exception (KeyboardInterrupt ...) pass unchanged. */
static void top_locate(PyObject *reading, PyObject *registration, PyObject *offset) {
    if (!PyErr_ExceptionMatches(PyExc_Exception)) return;
    PyObject *type, *error, *tb, *outer_type, *outer, *outer_tb;
    PyErr_Fetch(&type, &error, &tb);
    PyErr_NormalizeException(&type, &error, &tb);
    if (tb != NULL) PyException_SetTraceback(error, tb);
    PyErr_GetExcInfo(&outer_type, &outer, &outer_tb);
    PyErr_SetExcInfo(type, Py_NewRef(error), tb); /* steals type and tb */
    PyObject *args[3] = {error, registration, offset};
    PyObject *returned = PyObject_Vectorcall(PyTuple_GET_ITEM(reading, 1), args, 3, NULL);
    if (returned != NULL) { /* it always raises; should it not, the error stands */
        Py_DECREF(returned);
        PyErr_SetObject((PyObject *)Py_TYPE(error), error);
    }
    PyErr_SetExcInfo(outer_type, outer, outer_tb);
    Py_DECREF(error);
}

/* serializer.deserialize(in_band, buffers) in a trusted call of depth 1 over size bytes, as _top_value calls
 * it: the state set, the error located, every buffer used. offset: the in-band's (None: a result). */
static PyObject *top_call(PyObject *reading, PyObject *registration, PyObject *in_band, PyObject *buffers,
                          uint64_t size, PyObject *offset, PyObject *what) {
    PyObject *serializer = PyObject_GetAttr(registration, str_serializer), *value = NULL, *token = NULL;
    if (serializer == NULL) return NULL;
    PyObject *state = top_state(PyTuple_GET_ITEM(reading, 0), size), *oob = NULL;
    if (state == NULL) {
        Py_DECREF(serializer);
        return PyErr_Occurred() ? NULL : Py_NewRef(Py_NotImplemented);
    }
    if ((oob = top_oob(buffers)) == NULL || (token = PyContextVar_Set(decode_state_var, state)) == NULL) goto done;
    PyObject *args[3] = {serializer, in_band, oob};
    value = PyObject_VectorcallMethod(str_deserialize, args, 3, NULL);
    if (value == NULL) top_locate(reading, registration, offset);
    PyObject *type, *error, *tb;
    PyErr_Fetch(&type, &error, &tb);
    if (PyContextVar_Reset(decode_state_var, token) < 0) {
        Py_CLEAR(value);
        Py_XDECREF(type);
        Py_XDECREF(error);
        Py_XDECREF(tb);
        goto done;
    }
    PyErr_Restore(type, error, tb);
    if (value != NULL && oob != no_buffers) {
        PyObject *next = AT(oob, oob_slot[OOB_NEXT]);
        Py_ssize_t taken = next != NULL && PyLong_CheckExact(next) ? PyLong_AsSsize_t(next) : -1;
        if (taken != PyList_GET_SIZE(buffers)) { /* a buffer left unused: all_used raises */
            PyErr_Clear();
            PyObject *check[2] = {oob, what}, *returned = PyObject_Vectorcall(PyTuple_GET_ITEM(reading, 2), check, 2, NULL);
            if (returned == NULL) Py_CLEAR(value);
            Py_XDECREF(returned);
        }
    }
done:
    Py_XDECREF(token);
    Py_XDECREF(oob);
    Py_DECREF(state);
    Py_DECREF(serializer);
    return value;
}

/* The value of a frame p[0:size] in data (held by the caller), whose layout is valid. */
static PyObject *top_frame(Codec *self, Tables *t, PyObject *reading, PyObject *data, const unsigned char *p,
                           uint64_t size, FrameLayout *layout) {
    const unsigned char *hash = p + layout->in_band_offset;
    uint64_t offset, length;
    if (layout->count == 1) { /* bytes or bytearray in one buffer, read by their standard serializers */
        frame_entry(p, 0, &offset, &length);
        if (t->top_read[TOP_BYTES] && memcmp(hash, PyBytes_AS_STRING(top_hash[TOP_BYTES]), HASH_SIZE) == 0 &&
            layout->in_band_len == HASH_SIZE + 1 && hash[HASH_SIZE] == 0xc0)
            return stream_bytes((const char *)p + offset, (Py_ssize_t)length);
        if (t->read[K_BYTEARRAY] && memcmp(hash, kind_hash[K_BYTEARRAY], HASH_SIZE) == 0)
            return PyByteArray_FromStringAndSize((const char *)p + offset, (Py_ssize_t)length);
    }
    PyObject *key = PyBytes_FromStringAndSize((const char *)hash, HASH_SIZE);
    if (key == NULL) return NULL;
    PyObject *registration = PyDict_GetItemWithError(t->by_hash, key);
    Py_DECREF(key);
    if (registration == NULL) return PyErr_Occurred() ? NULL : Py_NewRef(Py_NotImplemented);
    Py_INCREF(registration); /* the snapshot may be replaced while the value is decoded */
    PyObject *view = PyMemoryView_FromObject(data), *in_band = NULL, *buffers = NULL, *at = NULL, *value = NULL;
    if (view == NULL) goto done;
    uint64_t start = layout->in_band_offset;
    if ((in_band = PySequence_GetSlice(view, (Py_ssize_t)(start + HASH_SIZE), (Py_ssize_t)(start + layout->in_band_len))) == NULL) goto done;
    if ((buffers = PyList_New((Py_ssize_t)layout->count)) == NULL) goto done;
    for (uint64_t i = 0; i < layout->count; i++) {
        frame_entry(p, i, &offset, &length);
        PyObject *buffer = PySequence_GetSlice(view, (Py_ssize_t)offset, (Py_ssize_t)(offset + length));
        if (buffer == NULL) goto done;
        PyList_SET_ITEM(buffers, (Py_ssize_t)i, buffer);
    }
    if ((at = PyLong_FromUnsignedLongLong(start)) == NULL) goto done;
    value = top_call(reading, registration, in_band, buffers, size, at, str_what_frame);
done:
    Py_XDECREF(at);
    Py_XDECREF(buffers);
    Py_XDECREF(in_band);
    Py_XDECREF(view);
    Py_DECREF(registration);
    return value;
}

/* The bytes of one out-of-band buffer of a result as the standard serializer of bytes (kind K_NONE) or
 * bytearray (K_BYTEARRAY) reads it: the very object serialized when the buffer views all of it, else a
 * copy; NULL (no error set) for a buffer it reads otherwise (not a memoryview, released, not contiguous). */
static PyObject *top_result_leaf(PyObject *buffer, int kind) {
    if (!PyMemoryView_Check(buffer) || (((PyMemoryViewObject *)buffer)->flags & _Py_MEMORYVIEW_RELEASED)) return NULL;
    Py_buffer *view = PyMemoryView_GET_BUFFER(buffer);
    PyObject *owner = view->obj;
    if (kind == K_NONE && owner != NULL && PyBytes_CheckExact(owner) && PyBytes_GET_SIZE(owner) == view->len)
        return Py_NewRef(owner);
    if (kind == K_BYTEARRAY && owner != NULL && PyByteArray_CheckExact(owner) && PyByteArray_GET_SIZE(owner) == view->len)
        return Py_NewRef(owner);
    if (!PyBuffer_IsContiguous(view, 'C')) return NULL;
    return kind == K_NONE ? PyBytes_FromStringAndSize(view->buf, view->len) : PyByteArray_FromStringAndSize(view->buf, view->len);
}

/* The buffers of a result that has none (never changed: no serializer sees it, top_oob answers NO_BUFFERS). */
static PyObject *empty_buffers;

/* The length of a result's frame (SerializationResult.nbytes), or -1 (no error set: the full path). */
static int64_t top_result_size(PyObject *in_band, PyObject *buffers, PyObject *key) {
    Py_ssize_t in_band_len = in_band == Py_None ? 0 : PyObject_Length(in_band);
    if (in_band_len < 0) {
        PyErr_Clear();
        return -1;
    }
    Py_ssize_t n = PyList_GET_SIZE(buffers);
    uint64_t end = FRAME_HEADER_SIZE + (n ? FRAME_ENTRY_SIZE * (uint64_t)n : 0) + HASH_SIZE + (uint64_t)in_band_len;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *buffer = PyList_GET_ITEM(buffers, i);
        if (!PyMemoryView_Check(buffer) || (((PyMemoryViewObject *)buffer)->flags & _Py_MEMORYVIEW_RELEASED)) return -1;
        end = frame_align64(end) + (uint64_t)PyMemoryView_GET_BUFFER(buffer)->len;
    }
    return (int64_t)(key == Py_None ? end : end + 32);
}

/* The value of an in-process result with out-of-band buffers whose ClassIDHash is kept apart (_top_value's
 * first case). */
static PyObject *top_result(Codec *self, Tables *t, PyObject *reading, PyObject *data) {
    PyObject *hash = SLOT(data, R_CLASS_HASH), *in_band = SLOT(data, R_IN_BAND), *buffers = SLOT(data, R_BUFFERS),
             *key = SLOT(data, R_KEY);
    /* A result without buffers (None: none asked for yet, or an empty list) is read here when its in-band is a
     * bytes object kept apart (the frame's slice or any other form: the full path). */
    if (hash == NULL || !PyBytes_CheckExact(hash) || PyBytes_GET_SIZE(hash) != HASH_SIZE || in_band == NULL ||
        buffers == NULL || key == NULL)
        Py_RETURN_NOTIMPLEMENTED;
    if (PyBytes_CheckExact(buffers)) { /* one buffer, this bytes object (serialize_top_bytes): what bytes' serializer reads */
        if (t->top_read[TOP_BYTES] && memcmp(PyBytes_AS_STRING(hash), PyBytes_AS_STRING(top_hash[TOP_BYTES]), HASH_SIZE) == 0 &&
            PyBytes_CheckExact(in_band) && PyBytes_GET_SIZE(in_band) == 1 && PyBytes_AS_STRING(in_band)[0] == '\xc0' &&
            key == Py_None && PyDict_GetItemWithError(t->by_hash, hash) != NULL)
            return Py_NewRef(buffers);
        if (PyErr_Occurred()) return NULL;
        Py_RETURN_NOTIMPLEMENTED; /* the full path reads out_of_band_buffers (the list is made then) */
    }
    if (buffers == Py_None || (PyList_CheckExact(buffers) && PyList_GET_SIZE(buffers) == 0)) {
        if (!PyBytes_CheckExact(in_band)) Py_RETURN_NOTIMPLEMENTED;
        buffers = empty_buffers;
    } else if (!PyList_CheckExact(buffers)) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    PyObject *registration = PyDict_GetItemWithError(t->by_hash, hash), *value = NULL, *made = NULL;
    if (registration == NULL) return PyErr_Occurred() ? NULL : Py_NewRef(Py_NotImplemented);
    if (PyList_GET_SIZE(buffers) == 1) { /* bytes or bytearray in one buffer, read by their standard serializers */
        const char *h = PyBytes_AS_STRING(hash);
        if (t->top_read[TOP_BYTES] && memcmp(h, PyBytes_AS_STRING(top_hash[TOP_BYTES]), HASH_SIZE) == 0 &&
            PyBytes_CheckExact(in_band) && PyBytes_GET_SIZE(in_band) == 1 && PyBytes_AS_STRING(in_band)[0] == '\xc0' &&
            (value = top_result_leaf(PyList_GET_ITEM(buffers, 0), K_NONE)) != NULL)
            return value;
        if (t->read[K_BYTEARRAY] && memcmp(h, kind_hash[K_BYTEARRAY], HASH_SIZE) == 0 &&
            (value = top_result_leaf(PyList_GET_ITEM(buffers, 0), K_BYTEARRAY)) != NULL)
            return value;
        if (PyErr_Occurred()) return NULL;
    }
    int64_t size = top_result_size(in_band, buffers, key);
    if (size < 0) Py_RETURN_NOTIMPLEMENTED;
    Py_INCREF(registration); /* the snapshot and the result may change while the value is decoded */
    Py_INCREF(hash);
    Py_INCREF(buffers);
    if (in_band == Py_None) {
        made = PyBytes_FromStringAndSize(NULL, 0);
    } else {
        PyObject *as_is = unpacked_as_is(self, t, PyBytes_AS_STRING(hash)); /* the codec takes any buffer */
        made = as_is != NULL ? Py_NewRef(in_band) : PyErr_Occurred() ? NULL : PyMemoryView_FromObject(in_band);
    }
    if (made != NULL) value = top_call(reading, registration, made, buffers, (uint64_t)size, Py_None, str_what_result);
    Py_XDECREF(made);
    Py_DECREF(buffers);
    Py_DECREF(hash);
    Py_DECREF(registration);
    return value;
}

/* The value of a frame in bytes (data, at least FRAME_HEADER long) of one top-level bytes value as to_bytes writes
 * it (one buffer at offset 64; in-band section: the ClassIDHash of bytes and msgpack nil; zero padding), read as
 * top_value reads it (trusted, within the limits, not nested, bytes served by their standard serializer), the
 * frame's layout checked at once for that shape; NotImplemented (no error set) otherwise: top_value reads it. */
static PyObject *top_bytes_frame(Codec *self, PyObject *data) {
    const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(data);
    uint64_t size = (uint64_t)PyBytes_GET_SIZE(data);
    if (size < FRAME_ALIGNMENT || memcmp(p, FRAME_ONE_BUFFER_HEAD, 16) != 0 || frame_le(p + 16, 8) != HASH_SIZE + 1 ||
        frame_le(p + 24, 8) != size || frame_le(p + 32, 8) != FRAME_ALIGNMENT ||
        frame_le(p + 40, 8) != size - FRAME_ALIGNMENT || p[56] != 0xc0 || !frame_zeros(p, 57, FRAME_ALIGNMENT) ||
        self->top_reading == NULL || state_type == NULL || result_type == NULL || decode_state_var == NULL ||
        self->settings == NULL)
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *top = read_top(self);
    if (top == NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear(); /* settings without "top": the full path (through top_value) */
        Py_RETURN_NOTIMPLEMENTED;
    }
    int parsed = top == NULL ? -1 : parse_top(top), inside = 0;
    if (parsed <= 0 || top_depth_zero || size > top_max_size || top_max_buffers < 1 || (inside = decode_nested()) != 0)
        return parsed < 0 || inside < 0 ? NULL : Py_NewRef(Py_NotImplemented);
    PyObject *snapshot = self->snapshot_slot > 0 ? *(PyObject **)((char *)self->snapshots + self->snapshot_slot) : NULL;
    if (snapshot == NULL || snapshot != self->cached_snapshot || self->tables.by_hash == NULL ||
        !self->tables.top_read[TOP_BYTES] || memcmp(p + 48, PyBytes_AS_STRING(top_hash[TOP_BYTES]), HASH_SIZE) != 0)
        Py_RETURN_NOTIMPLEMENTED; /* tables to read again, bytes taken over: top_value */
    return stream_bytes((const char *)p + FRAME_ALIGNMENT, (Py_ssize_t)(size - FRAME_ALIGNMENT));
}

/* The value of a trusted frame or result read by a registered serializer; NotImplemented otherwise. */
static PyObject *top_value(Codec *self, PyObject *data) {
    PyObject *reading = self->top_reading, *value;
    if (reading == NULL || state_type == NULL || result_type == NULL || decode_state_var == NULL || self->settings == NULL)
        Py_RETURN_NOTIMPLEMENTED;
    if (empty_buffers == NULL && (empty_buffers = PyList_New(0)) == NULL) return NULL;
    PyObject *top = read_top(self);
    if (top == NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear(); /* settings without "top": the full path */
        Py_RETURN_NOTIMPLEMENTED;
    }
    int parsed = top == NULL ? -1 : parse_top(top);
    if (parsed <= 0) return parsed < 0 ? NULL : Py_NewRef(Py_NotImplemented);
    if (top_depth_zero) Py_RETURN_NOTIMPLEMENTED; /* max_depth 0 refuses the top-level value: the full path says so */
    int inside = decode_nested();
    if (inside < 0) return NULL;
    if (inside) Py_RETURN_NOTIMPLEMENTED; /* a nested call: it follows the rules of the outer one */
    Tables t;
    if (top_tables(self, &t) < 0) return NULL;
    if (t.by_hash == NULL) Py_RETURN_NOTIMPLEMENTED;
    Py_INCREF(reading); /* bind_decoder may replace it meanwhile */
    if (Py_TYPE(data) == result_type) {
        value = top_result(self, &t, reading, data);
    } else if (PyBytes_CheckExact(data)) { /* read in place: bytes are immutable, held here while it is read */
        FrameLayout layout;
        const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(data);
        uint64_t size = (uint64_t)PyBytes_GET_SIZE(data);
        Py_INCREF(data);
        value = frame_layout(p, size, top_max_size, top_max_buffers, &layout)
                    ? top_frame(self, &t, reading, data, p, size, &layout)
                    : Py_NewRef(Py_NotImplemented); /* a fault, a signature: the full path */
        Py_DECREF(data);
    } else if (PyByteArray_CheckExact(data) || PyMemoryView_Check(data)) {
        Py_buffer view;
        FrameLayout layout;
        if (PyObject_GetBuffer(data, &view, PyBUF_FULL_RO) < 0) {
            PyErr_Clear(); /* the full path explains */
            value = Py_NewRef(Py_NotImplemented);
        } else {
            int simple = view.ndim <= 1 && view.itemsize == 1 && PyBuffer_IsContiguous(&view, 'C') &&
                         (view.format == NULL || strcmp(view.format, "B") == 0);
            if (simple && frame_layout(view.buf, (uint64_t)view.len, top_max_size, top_max_buffers, &layout))
                value = top_frame(self, &t, reading, data, view.buf, (uint64_t)view.len, &layout);
            else
                value = Py_NewRef(Py_NotImplemented); /* a cast, a fault, a signature: the full path */
            PyBuffer_Release(&view);
        }
    } else {
        value = Py_NewRef(Py_NotImplemented);
    }
    Py_DECREF(reading);
    return value;
}

/* MsgpackCodec.top_value(data) -> value | NotImplemented (tests call it; Registry.deserialize does from C). */
static PyObject *Codec_top_value(Codec *self, PyObject *data) { return top_value(self, data); }

#undef AT
