/* The scalars the encoder (_core_encode.h) writes in place: ints of any size (beyond 64 bits as
 * FORMAT 6.1), the standard leaf ext 0 values (complex, datetime, date, time, timedelta, uuid),
 * and the standard kind of a type. */

/* The longest big int (FORMAT 6.1: every value of that many bytes fits a Java BigInteger and a
 * JavaScript BigInt); serreg/standard/scalars.py MAX_INT_BYTES. */
#define MAX_INT_BYTES ((size_t)134217727)

/* The minimal two's-complement little-endian bytes of an int beyond 64 bits (FORMAT 6.1); 1000: a
 * longer int, which the serializer refuses in its own words. */
static int enc_big_int(Enc *e, PyObject *obj) {
    int negative = _PyLong_Sign(obj) < 0;
    PyObject *magnitude = negative ? PyNumber_Invert(obj) : (Py_INCREF(obj), obj);
    if (magnitude == NULL) return -1;
    size_t bits = _PyLong_NumBits(magnitude);
    Py_DECREF(magnitude);
    if (bits == (size_t)-1) return -2;
    if ((bits + 8) / 8 > MAX_INT_BYTES) return 1000;
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
