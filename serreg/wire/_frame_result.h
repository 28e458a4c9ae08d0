/* SerializationResult.to_bytes written in C (serreg/wire/_frame.c's to_bytes_descriptor; twin: the Python
 * method in serreg/result.py, which it calls for anything it does not write itself). Included by _frame.c
 * after write_frame and join_section, which it writes with. */

/* The result's slots (serreg/result.py): _buffers None stands for no buffers; _frame is None or the
 * result's whole frame while it has no key and no buffers (then _in_band may be None: read from it). */
enum { S_CLASS_HASH, S_IN_BAND, S_BUFFERS, S_KEY, S_FRAME, N_SLOTS };
static const char *SLOT_NAMES[N_SLOTS] = {"_class_hash", "_in_band", "_buffers", "_key", "_frame"};

static PyObject *to_bytes_python; /* the Python method: what the C method calls for anything else */
static PyObject *to_bytes_doc;    /* bytes: the text signature and the Python method's docstring */
static PyTypeObject *seen_type;   /* the class whose slot offsets are below (held) */
static Py_ssize_t seen_slot[N_SLOTS];

/* Find the offsets of type's five slots; 0 if one is not an object slot (no error set; the offsets
 * of the type seen before are kept). */
static int find_slots(PyTypeObject *type) {
    Py_ssize_t slot[N_SLOTS];
    for (int i = 0; i < N_SLOTS; i++) {
        PyObject *name = PyUnicode_FromString(SLOT_NAMES[i]);
        if (name == NULL) {
            PyErr_Clear();
            return 0;
        }
        PyObject *descr = _PyType_Lookup(type, name);
        Py_DECREF(name);
        if (descr == NULL || Py_TYPE(descr) != &PyMemberDescr_Type) return 0;
        PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
        if (member->type != T_OBJECT_EX && member->type != T_OBJECT) return 0;
        slot[i] = member->offset;
    }
    memcpy(seen_slot, slot, sizeof slot);
    Py_INCREF(type);
    Py_XSETREF(seen_type, type);
    return 1;
}

/* A piece of the in-band section (None or a buffer) as a view: bytes are read in place (view->obj NULL,
 * nothing to release). -1: error set. */
static int piece_view(PyObject *piece, Py_buffer *view) {
    if (piece == Py_None || PyBytes_CheckExact(piece)) {
        view->obj = NULL;
        view->buf = piece == Py_None ? NULL : PyBytes_AS_STRING(piece);
        view->len = piece == Py_None ? 0 : PyBytes_GET_SIZE(piece);
        return 0;
    }
    return PyObject_GetBuffer(piece, view, PyBUF_SIMPLE);
}

#define FEW_BUFFERS 4

/* join_frame(_in_band_parts(), buffers) of a result's two pieces when every buffer is a memoryview of
 * contiguous bytes, one dimension (what the Python method's _buffer_views hands join_frame as it is):
 * each buffer is read in place from its memoryview, checked and copied. NotImplemented (no error set) when one
 * is not such a view or is released: the Python method then checks, casts or reports each one. buffers is a
 * list, or a bytes object standing for the list of one memoryview of it (serreg/result.py), read in place. */
static PyObject *join_result(PyObject *const pieces[2], PyObject *buffers) {
    int one = PyBytes_CheckExact(buffers);
    Py_ssize_t nbuf = one ? 1 : PyList_GET_SIZE(buffers), held = 0;
    Py_buffer few[FEW_BUFFERS], parts[2], *views = nbuf <= FEW_BUFFERS ? few : PyMem_Malloc((size_t)nbuf * sizeof(Py_buffer));
    if (views == NULL) return PyErr_NoMemory();
    PyObject *frame = NULL;
    int held_parts = 0;
    Py_INCREF(buffers); /* the result's list may be replaced while it is read */
    for (; held_parts < 2; held_parts++) { /* first: a piece's buffer request is the last call out */
        if (piece_view(pieces[held_parts], &parts[held_parts]) < 0) goto done;
    }
    if (one) {
        few[0].buf = PyBytes_AS_STRING(buffers);
        few[0].len = PyBytes_GET_SIZE(buffers);
        held = 1;
    }
    for (; !one && held < nbuf && held < PyList_GET_SIZE(buffers); held++) {
        /* The memoryview's own buffer is read in place (no export taken): no Python code runs before the
           copy, so nothing can release it meanwhile; its flags say whether it is released or C-contiguous. */
        PyObject *item = PyList_GET_ITEM(buffers, held);
        if (Py_TYPE(item) != &PyMemoryView_Type) {
            frame = Py_NewRef(Py_NotImplemented);
            goto done;
        }
        int flags = ((PyMemoryViewObject *)item)->flags;
        const Py_buffer *v = PyMemoryView_GET_BUFFER(item);
        if ((flags & _Py_MEMORYVIEW_RELEASED) || !(flags & _Py_MEMORYVIEW_C) || v->ndim != 1 ||
            !(v->format == NULL || strcmp(v->format, "B") == 0)) {
            frame = Py_NewRef(Py_NotImplemented);
            goto done;
        }
        views[held].buf = v->buf;
        views[held].len = v->len;
    }
    frame = write_frame(parts, 2, views, held);
done:
    for (int i = 0; i < held_parts; i++) {
        if (parts[i].obj != NULL) PyBuffer_Release(&parts[i]);
    }
    if (views != few) PyMem_Free(views);
    Py_DECREF(buffers);
    return frame;
}

/* join_result of a result whose in-band pieces are two bytes objects and whose one buffer is a bytes object
 * (result.py's stand-in for the list of one memoryview of it: a top-level bytes value): the frame write_frame
 * writes (header, one table entry, the two pieces, zero padding, the buffer), with no views to take. */
static PyObject *join_one_bytes(PyObject *class_hash, PyObject *in_band, PyObject *buffer) {
    uint64_t hash_len = (uint64_t)PyBytes_GET_SIZE(class_hash), in_len = (uint64_t)PyBytes_GET_SIZE(in_band);
    uint64_t at = HEADER_SIZE + ENTRY_SIZE, offset = align64(at + hash_len + in_len), length = (uint64_t)PyBytes_GET_SIZE(buffer);
    if (offset + length > (uint64_t)PY_SSIZE_T_MAX) return PyErr_NoMemory();
    PyObject *frame = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(offset + length));
    if (frame == NULL) return NULL;
    unsigned char *out = (unsigned char *)PyBytes_AS_STRING(frame);
    /* The 64 bytes before the buffer zeroed first (the padding is among them; offset >= 64), then written over. */
    memset(out + offset - ALIGNMENT, 0, ALIGNMENT);
    memcpy(out, FRAME_ONE_BUFFER_HEAD, 16);
    put_le(out + 16, hash_len + in_len, 8);
    put_le(out + 24, offset + length, 8);
    put_le(out + HEADER_SIZE, offset, 8);
    put_le(out + HEADER_SIZE + 8, length, 8);
    const char *hash = PyBytes_AS_STRING(class_hash), *section = PyBytes_AS_STRING(in_band);
    if (hash_len == CLASS_ID_HASH_SIZE) memcpy(out + at, hash, CLASS_ID_HASH_SIZE); /* one store */
    else memcpy(out + at, hash, hash_len);
    if (in_len == 1) out[at + hash_len] = (unsigned char)section[0]; /* msgpack nil, the standard serializer's */
    else memcpy(out + at + hash_len, section, in_len);
    memcpy(out + offset, PyBytes_AS_STRING(buffer), length);
    return frame;
}

/* SerializationResult.to_bytes(): a method of the class (METH_NOARGS), so the interpreter calls it
 * directly. The frame the compiled codec wrote with the result, join_section of the two parts, or
 * join_frame of them and buffers that are all plain memoryviews; the Python method for anything else. */
#if defined(__GNUC__) || defined(__clang__)
static PyObject *to_bytes_joined(PyObject *result) __attribute__((noinline)); /* keeps to_bytes_c small */
static PyObject *to_bytes_one(PyObject *result, PyObject *buffer) __attribute__((noinline));
#else
static PyObject *to_bytes_joined(PyObject *result);
static PyObject *to_bytes_one(PyObject *result, PyObject *buffer);
#endif

static PyObject *to_bytes_c(PyObject *result, PyObject *unused) {
    if (Py_TYPE(result) == seen_type) { /* the common cases first, in a function small enough to need no frame */
        PyObject *frame = *(PyObject **)((char *)result + seen_slot[S_FRAME]);
        PyObject *buffers = *(PyObject **)((char *)result + seen_slot[S_BUFFERS]);
        if (frame != NULL && buffers != NULL && *(PyObject **)((char *)result + seen_slot[S_KEY]) == Py_None) {
            if (buffers == Py_None && PyBytes_CheckExact(frame))
                return Py_NewRef(frame); /* written whole with the in-band section: bytes, shared safely */
            if (frame == Py_None && PyBytes_CheckExact(buffers)) return to_bytes_one(result, buffers);
        }
    }
    return to_bytes_joined(result);
}

/* to_bytes_c of a result of one buffer that is a bytes object, no key and no frame. */
static PyObject *to_bytes_one(PyObject *result, PyObject *buffer) {
    PyObject *class_hash = *(PyObject **)((char *)result + seen_slot[S_CLASS_HASH]);
    PyObject *in_band = *(PyObject **)((char *)result + seen_slot[S_IN_BAND]);
    if (class_hash != NULL && in_band != NULL && PyBytes_CheckExact(class_hash) && PyBytes_CheckExact(in_band))
        return join_one_bytes(class_hash, in_band, buffer); /* no call out: nothing changes the slots meanwhile */
    return to_bytes_joined(result);
}

/* to_bytes_c of anything but a frame written whole. */
static PyObject *to_bytes_joined(PyObject *result) {
    PyTypeObject *type = Py_TYPE(result);
    if (type == seen_type || find_slots(type)) {
#define AT(i) (*(PyObject **)((char *)result + seen_slot[i]))
        PyObject *key = AT(S_KEY), *buffers = AT(S_BUFFERS), *frame = AT(S_FRAME);
        if (frame != NULL && frame != Py_None && key == Py_None && buffers == Py_None && PyBytes_CheckExact(frame))
            return Py_NewRef(frame); /* written whole with the in-band section: bytes, shared safely */
        PyObject *pieces[2] = {AT(S_CLASS_HASH), AT(S_IN_BAND)};
#undef AT
        int no_buffers = buffers == Py_None || (buffers != NULL && PyList_CheckExact(buffers) && PyList_GET_SIZE(buffers) == 0);
        if (key == Py_None && no_buffers && frame != NULL && PyBytes_CheckExact(frame))
            return Py_NewRef(frame);
        if (key == Py_None && buffers != NULL && pieces[0] != NULL && pieces[1] != NULL &&
            frame == Py_None) { /* (with a frame and buffers, the Python method reads the parts from it) */
            if (no_buffers || PyList_CheckExact(buffers) || PyBytes_CheckExact(buffers)) {
                PyObject *joined = no_buffers ? join_section(NULL, pieces, 2) : join_result(pieces, buffers);
                if (joined != Py_NotImplemented) {
                    /* A ValueError (a part released since the result was made): the Python method says which. */
                    if (joined != NULL || !PyErr_ExceptionMatches(PyExc_ValueError)) return joined;
                    PyErr_Clear();
                } else {
                    Py_DECREF(joined);
                }
            }
        }
    }
    if (to_bytes_python == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "to_bytes_descriptor was not called");
        return NULL;
    }
    return PyObject_CallOneArg(to_bytes_python, result);
}

static PyMethodDef to_bytes_def = {"to_bytes", to_bytes_c, METH_NOARGS, NULL};

/* to_bytes_descriptor(cls, function) -> the method descriptor of cls named to_bytes, to_bytes_c, whose
 * docstring is function's and which calls function (the Python method) for what it does not write. */
static PyObject *to_bytes_descriptor(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyType_Check(args[0]) || !PyCallable_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "to_bytes_descriptor(cls: type, function: callable)");
        return NULL;
    }
    PyObject *doc = PyObject_GetAttrString(args[1], "__doc__"), *text;
    if (doc == NULL) return NULL;
    if (doc == Py_None) text = PyBytes_FromString("to_bytes($self, /)\n--\n\n");
    else {
        const char *utf8 = PyUnicode_Check(doc) ? PyUnicode_AsUTF8(doc) : NULL;
        if (utf8 == NULL && !PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "to_bytes_descriptor: the function's __doc__ is not a str");
        text = utf8 == NULL ? NULL : PyBytes_FromFormat("to_bytes($self, /)\n--\n\n%s", utf8);
    }
    Py_DECREF(doc);
    if (text == NULL) return NULL;
    PyObject *descr = PyDescr_NewMethod((PyTypeObject *)args[0], &to_bytes_def);
    if (descr == NULL) {
        Py_DECREF(text);
        return NULL;
    }
    to_bytes_def.ml_doc = PyBytes_AS_STRING(text); /* kept alive below: read by every descriptor made here */
    Py_XSETREF(to_bytes_doc, text);
    Py_XSETREF(to_bytes_python, Py_NewRef(args[1]));
    Py_CLEAR(seen_type);
    return descr;
}
