/* MsgpackCodec.pack of serreg/codec/_core.c: a value tree into one buffer, with an explicit stack.
 *
 * Return codes of the helpers: 0 done, 1 a container was opened (its frame pushed),
 * -1 a Python error to propagate (raised by encode_nested), -2 this code does not handle the
 * value: the whole call goes to the pure codec; -3 nested too deep, -4 a str that is not UTF-8:
 * the pure codec words the error (never writes the value: msgpack-python's writer recurses in
 * C per level and would overflow a small thread stack). */

enum { S_LIST, S_TUPLE, S_DICT };

typedef struct {
    PyObject *obj;       /* the container (strong) */
    PyObject *value;     /* a dict value waiting for its key to be written (strong) */
    Py_ssize_t i, n;     /* next index (dict: PyDict_Next position), item count */
    Py_ssize_t ext_start; /* >= 0: this container is the in-band of an ext 0 that starts there */
    int kind, depth, inline_level;
} EFrame;

typedef struct {
    Codec *codec;
    Out out;
    PyObject *oob;
    Tables t;
    EFrame *stack;
    Py_ssize_t sp, cap;
    PyObject *scope, *scope_index, *scope_definitions; /* the frame's struct table (EncodeScope) */
    Py_ssize_t definitions_before;  /* how many definitions it held when this call began */
    int struct_level;              /* struct instances being written inside each other (C recursion) */
    PyTypeObject *plan_type;       /* the struct class met last and its plan (held by ext_writers) */
    StructPlan *plan, *index_plan; /* index_plan: the plan whose definition index was looked up last */
    long long index;
    int plain_top; /* serialize_top: a value that calls a serializer is not plain (-2) */
    int root_array; /* pack(obj, oob, False): a root list is an array, never ext 2 (a tuple's items) */
} Enc;

static int enc_value(Enc *e, PyObject *obj, int depth, int root, int inline_level);
static int enc_drain(Enc *e, Py_ssize_t base);

/* The struct writer (_core_structs_encode.h) and this encoder call each other: the encoder
 * reaches it through this table, which _core.c fills at import, so neither file names the other's
 * functions both ways. */
typedef struct {
    int (*write)(Enc *e, PyObject *obj, StructPlan *plan); /* one instance, as ext 1 */
    /* a non-empty list or tuple: as ext 2 if its items are instances of one definition (1000: not) */
    int (*write_list)(Enc *e, PyObject *seq, TNode *item, int depth);
    int (*scope_open)(Enc *e);                            /* the frame's struct table, at a pack's start */
    void (*scope_undo)(Enc *e);                           /* forget what this pack added to it */
} EncStructOps;

static const EncStructOps *enc_structs;

static int enc_push(Enc *e, PyObject *obj, int kind, Py_ssize_t n, int depth, Py_ssize_t ext_start, int inline_level) {
    if (e->sp == e->cap) {
        Py_ssize_t cap = e->cap ? 2 * e->cap : 32;
        EFrame *stack = PyMem_Realloc(e->stack, cap * sizeof(EFrame));
        if (stack == NULL) { PyErr_NoMemory(); return -1; }
        e->stack = stack;
        e->cap = cap;
    }
    EFrame *f = &e->stack[e->sp++];
    Py_INCREF(obj);
    f->obj = obj;
    f->value = NULL;
    f->i = 0;
    f->n = n;
    f->kind = kind;
    f->depth = depth;
    f->ext_start = ext_start;
    f->inline_level = inline_level;
    return 1;
}

static int enc_pop(Enc *e) {
    EFrame *f = &e->stack[--e->sp];
    Py_ssize_t ext_start = f->ext_start;
    Py_CLEAR(f->obj);
    Py_CLEAR(f->value);
    return ext_start >= 0 ? ext_end(&e->out, ext_start) : 0;
}

/* A value no code here writes: its serializer's result, through encode_nested, as ext 0. */
static int enc_nested(Enc *e, PyObject *obj) {
    if (e->plain_top && e->scope_index == NULL) return -2; /* serialize_top: structs only with its own table */
    if (Py_TYPE(obj) == e->plan_type) return enc_structs->write(e, obj, e->plan);
    if (e->t.ext_writers != NULL) {
        PyObject *writer = PyDict_GetItemWithError(e->t.ext_writers, (PyObject *)Py_TYPE(obj));
        if (writer == NULL && PyErr_Occurred()) return -1;
        /* A struct (ext 1): written here from its plan; a carrier, or a class compiled later, by the pure codec. */
        if (writer != NULL && !IS_PLAN(writer)) return -2;
        if (writer != NULL) {
            e->plan_type = Py_TYPE(obj);
            e->plan = (StructPlan *)writer;
            return enc_structs->write(e, obj, e->plan);
        }
    }
    if (e->plain_top) return -2;
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

/* The minimal two's-complement little-endian bytes of an int beyond 64 bits (FORMAT 6.1). */
static int enc_big_int(Enc *e, PyObject *obj) {
    int negative = _PyLong_Sign(obj) < 0;
    PyObject *magnitude = negative ? PyNumber_Invert(obj) : (Py_INCREF(obj), obj);
    if (magnitude == NULL) return -1;
    size_t bits = _PyLong_NumBits(magnitude);
    Py_DECREF(magnitude);
    if (bits == (size_t)-1) return -2;
    Py_ssize_t size = (Py_ssize_t)((bits + 8) / 8), start = e->out.len;
    if (ext_begin(&e->out, kind_hash[K_INT]) < 0) return -1;
    if (pack_header(&e->out, size, -1, 0, 0xc4, 0xc5, 0xc6) < 0) return -2;
    RESERVE(&e->out, size);
#if PY_VERSION_HEX >= 0x030D0000
    if (_PyLong_AsByteArray((PyLongObject *)obj, (unsigned char *)e->out.buf + e->out.len, size, 1, 1, 1) < 0) return -2;
#else
    if (_PyLong_AsByteArray((PyLongObject *)obj, (unsigned char *)e->out.buf + e->out.len, size, 1, 1) < 0) return -2;
#endif
    e->out.len += size;
    return ext_end(&e->out, start);
}

static int enc_int(Enc *e, PyObject *obj) {
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (overflow == 0) return pack_sint(&e->out, v);
    if (overflow > 0) {
        unsigned long long u = PyLong_AsUnsignedLongLong(obj);
        if (!(u == (unsigned long long)-1 && PyErr_Occurred())) return pack_uint(&e->out, u);
        PyErr_Clear();
    }
    return 1000; /* beyond 64 bits: the caller decides (ext 0, in place or through encode_nested) */
}

/* The in-place ext 0 of a standard type that has no containers inside; 1000: not handled here. */
static int enc_leaf_kind(Enc *e, PyObject *obj, int kind) {
    Out *o = &e->out;
    Py_ssize_t start = o->len;
    PyObject *tz = NULL;
    if (kind == K_DATETIME || kind == K_TIME) {
        tz = kind == K_DATETIME ? PyDateTime_DATE_GET_TZINFO(obj) : PyDateTime_TIME_GET_TZINFO(obj);
        /* a tzinfo other than datetime.timezone: the serializer writes it (and may refuse it) */
        if (tz != Py_None && Py_TYPE(tz) != Py_TYPE(PyDateTime_TimeZone_UTC)) return 1000;
    }
    if (kind == K_INT) return enc_big_int(e, obj);
    if (ext_begin(o, kind_hash[kind]) < 0) return -1;
    RESERVE(o, 64);
    switch (kind) {
    case K_BYTEARRAY: {
        put1(o, 0xc0);
        PyObject *view = PyMemoryView_FromObject(obj);
        if (view == NULL) return -2;
        int s = PyList_Append(e->oob, view);
        Py_DECREF(view);
        if (s < 0) return -1;
        break;
    }
    case K_COMPLEX:
        put1(o, 0x92);
        if (pack_double(o, PyComplex_RealAsDouble(obj)) < 0 || pack_double(o, PyComplex_ImagAsDouble(obj)) < 0) return -1;
        break;
    case K_DATETIME:
        put1(o, 0x99);
        pack_sint(o, PyDateTime_GET_YEAR(obj));
        pack_sint(o, PyDateTime_GET_MONTH(obj));
        pack_sint(o, PyDateTime_GET_DAY(obj));
        pack_sint(o, PyDateTime_DATE_GET_HOUR(obj));
        pack_sint(o, PyDateTime_DATE_GET_MINUTE(obj));
        pack_sint(o, PyDateTime_DATE_GET_SECOND(obj));
        pack_sint(o, PyDateTime_DATE_GET_MICROSECOND(obj));
        pack_sint(o, PyDateTime_DATE_GET_FOLD(obj));
        break;
    case K_DATE:
        put1(o, 0x93);
        pack_sint(o, PyDateTime_GET_YEAR(obj));
        pack_sint(o, PyDateTime_GET_MONTH(obj));
        pack_sint(o, PyDateTime_GET_DAY(obj));
        break;
    case K_TIME:
        put1(o, 0x96);
        pack_sint(o, PyDateTime_TIME_GET_HOUR(obj));
        pack_sint(o, PyDateTime_TIME_GET_MINUTE(obj));
        pack_sint(o, PyDateTime_TIME_GET_SECOND(obj));
        pack_sint(o, PyDateTime_TIME_GET_MICROSECOND(obj));
        pack_sint(o, PyDateTime_TIME_GET_FOLD(obj));
        break;
    case K_TIMEDELTA:
        put1(o, 0x93);
        pack_sint(o, PyDateTime_DELTA_GET_DAYS(obj));
        pack_sint(o, PyDateTime_DELTA_GET_SECONDS(obj));
        pack_sint(o, PyDateTime_DELTA_GET_MICROSECONDS(obj));
        break;
    case K_UUID: {
        PyObject *number = PyObject_GetAttr(obj, str_int);
        if (number == NULL) return -2;
        if (!PyLong_CheckExact(number)) { Py_DECREF(number); return -2; }
        put1(o, 0xc4);
        put1(o, 16);
#if PY_VERSION_HEX >= 0x030D0000
        int s = _PyLong_AsByteArray((PyLongObject *)number, (unsigned char *)o->buf + o->len, 16, 0, 0, 1);
#else
        int s = _PyLong_AsByteArray((PyLongObject *)number, (unsigned char *)o->buf + o->len, 16, 0, 0);
#endif
        Py_DECREF(number);
        if (s < 0) return -2;
        o->len += 16;
        break;
    }
    default:
        return -2;
    }
    if (tz != NULL) {
        int r = enc_tz(o, tz);
        if (r != 0) {
            o->len = start;
            return r;
        }
    }
    return ext_end(o, start);
}

static int kind_of(PyTypeObject *type) {
    if (type == &PyTuple_Type) return K_TUPLE;
    if (type == &PySet_Type) return K_SET;
    if (type == &PyFrozenSet_Type) return K_FROZENSET;
    if (type == &PyByteArray_Type) return K_BYTEARRAY;
    if (type == &PyComplex_Type) return K_COMPLEX;
    if (type == PyDateTimeAPI->DateTimeType) return K_DATETIME;
    if (type == PyDateTimeAPI->DateType) return K_DATE;
    if (type == PyDateTimeAPI->TimeType) return K_TIME;
    if (type == PyDateTimeAPI->DeltaType) return K_TIMEDELTA;
    if (type == uuid_type) return K_UUID;
    return K_NONE;
}

/* Write one value at msgpack nesting ``depth`` of its document; containers push a frame. */
static int enc_value(Enc *e, PyObject *obj, int depth, int root, int inline_level) {
    PyTypeObject *type = Py_TYPE(obj);
    Out *o = &e->out;
    if (depth > MSGPACK_MAX_NESTING) return -3;
    if (type == e->plan_type) return enc_structs->write(e, obj, e->plan); /* the struct class met last (never a native type) */
    unsigned bit = native_bit((PyObject *)type);
    if (bit) {
        if (!root && (e->t.native_overrides & bit)) return enc_nested(e, obj);
        switch (bit) {
        case N_NONE: RESERVE(o, 1); put1(o, 0xc0); return 0;
        case N_BOOL: RESERVE(o, 1); put1(o, obj == Py_True ? 0xc3 : 0xc2); return 0;
        case N_FLOAT: return pack_double(o, PyFloat_AS_DOUBLE(obj));
        case N_STR: {
            Py_ssize_t n;
            const char *text = PyUnicode_AsUTF8AndSize(obj, &n);
            if (text == NULL) return PyErr_ExceptionMatches(PyExc_UnicodeEncodeError) ? -4 : -1;
            return pack_raw(o, text, n, 1);
        }
        case N_BYTES: return pack_raw(o, PyBytes_AS_STRING(obj), PyBytes_GET_SIZE(obj), 0);
        case N_INT: {
            int r = enc_int(e, obj);
            if (r != 1000) return r;
            if (e->t.write[K_INT] && inline_level < MAX_INLINE_LEVELS) return enc_big_int(e, obj);
            return enc_nested(e, obj);
        }
        case N_LIST: {
            Py_ssize_t n = PyList_GET_SIZE(obj);
            int r;
            if (n > 0 && e->t.ext_writers != NULL && !(root && e->root_array) &&
                (r = enc_structs->write_list(e, obj, NULL, depth)) != 1000)
                return r;
            r = ARRAY_HEADER(o, n);
            if (r < 0 || n == 0) return r;
            return enc_push(e, obj, S_LIST, n, depth + 1, -1, inline_level);
        }
        case N_DICT: {
            Py_ssize_t n = PyDict_GET_SIZE(obj);
            int r = MAP_HEADER(o, n);
            if (r < 0 || n == 0) return r;
            return enc_push(e, obj, S_DICT, n, depth + 1, -1, inline_level);
        }
        }
    }
    if (root && (type == &PyByteArray_Type || type == &PyMemoryView_Type)) return -2; /* msgpack's own bin */
    int kind = kind_of(type);
    if (kind == K_NONE || !e->t.write[kind] || inline_level >= MAX_INLINE_LEVELS) return enc_nested(e, obj);
    if (kind == K_SET || kind == K_FROZENSET) {
        int r = enc_plain_set(o, obj, kind, e->t.native_overrides);
        return r == 1000 ? enc_nested(e, obj) : r;
    }
    if (kind == K_TUPLE) {
        Py_ssize_t n = PyTuple_GET_SIZE(obj), start = o->len;
        if (ext_begin(o, kind_hash[K_TUPLE]) < 0) return -1;
        int r = ARRAY_HEADER(o, n);
        if (r < 0) return r;
        if (n == 0) return ext_end(o, start);
        return enc_push(e, obj, S_TUPLE, n, 1, start, inline_level + 1);
    }
    int r = enc_leaf_kind(e, obj, kind);
    return r == 1000 ? enc_nested(e, obj) : r;
}

/* Write the items of the containers opened above stack height base, until they are all closed. */
static int enc_drain(Enc *e, Py_ssize_t base) {
    int r;
    while (e->sp > base) {
        EFrame *f = &e->stack[e->sp - 1];
        PyObject *item;
        int depth = f->depth, level = f->inline_level;
        /* Plain leaves are written in a tight loop (no Python code runs meanwhile). */
        int plain = depth <= MSGPACK_MAX_NESTING;
        if (f->kind == S_DICT) {
            if (f->value != NULL) {
                item = f->value;
                f->value = NULL;
            } else {
                PyObject *key, *value;
                if (PyDict_GET_SIZE(f->obj) != f->n) return -2; /* changed while written */
                int need = 0; /* 0: the dict is done, 1: its key goes the general way, 2: its value */
                r = 0;
                for (;;) {
                    if (!PyDict_Next(f->obj, &f->i, &key, &value)) break;
                    if (!plain || (r = enc_plain_leaf(&e->out, key, e->t.native_overrides)) != 0) { need = 1; break; }
                    if ((r = enc_plain_leaf(&e->out, value, e->t.native_overrides)) != 0) { need = 2; break; }
                }
                if (need && r < 0) return r;
                if (need == 0) {
                    if ((r = enc_pop(e)) < 0) return r;
                    continue;
                }
                Py_INCREF(value);
                f->value = value;
                if (need == 2) continue;
                item = key;
                Py_INCREF(item);
            }
        } else {
            Py_ssize_t size = f->kind == S_LIST ? PyList_GET_SIZE(f->obj) : PyTuple_GET_SIZE(f->obj);
            if (size != f->n) return -2;
            if (plain) {
                r = 0;
                PyObject **items = f->kind == S_LIST ? ((PyListObject *)f->obj)->ob_item : ((PyTupleObject *)f->obj)->ob_item;
                while (f->i < f->n && (r = enc_plain_leaf(&e->out, items[f->i], e->t.native_overrides)) == 0) f->i++;
                if (r < 0) return r;
            }
            if (f->i >= f->n) {
                if ((r = enc_pop(e)) < 0) return r;
                continue;
            }
            item = f->kind == S_LIST ? PyList_GET_ITEM(f->obj, f->i) : PyTuple_GET_ITEM(f->obj, f->i);
            f->i++;
            Py_INCREF(item);
        }
        r = enc_value(e, item, depth, 0, level);
        Py_DECREF(item);
        if (r < 0) return r;
    }
    return 0;
}

static int enc_tree(Enc *e, PyObject *root) {
    int r = enc_value(e, root, 0, 1, 0);
    return r < 0 ? r : enc_drain(e, 0);
}

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
