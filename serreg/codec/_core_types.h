/* Standard types written and read in place by serreg/codec/_core.c beyond the plain leaves:
 * time zones of datetime and time values, and sets of plain members (docs/FORMAT.md, 6.1).
 *
 * Bytes are those of the standard serializers (serreg/standard/datetimes.py,
 * serreg/standard/containers.py), which stay the reference:
 * - a datetime.timezone (UTC and every fixed offset) travels as [offset in microseconds,
 *   name or nil], nil when its name is the default name of its offset; any other tzinfo
 *   (zoneinfo, user classes) is left to the serializer;
 * - a set or frozenset is an array of its members sorted by their encoded bytes; written
 *   here only when every member is None, bool, an int of 64 bits, float, str or bytes and
 *   no user serializer took those types over (then each member's bytes are its plain
 *   msgpack, as the serializer packs it), else the serializer writes the whole set.
 * Both directions keep a few recently met time zones, so a document of values sharing
 * one time zone asks Python for its offset and name once. */

/* ------------------------------------------------------------------ plain leaves, encode */

#if PY_VERSION_HEX >= 0x030C0000
#define LONG_IS_COMPACT(o) PyUnstable_Long_IsCompact((PyLongObject *)(o))
#define LONG_COMPACT_VALUE(o) ((long long)PyUnstable_Long_CompactValue((PyLongObject *)(o)))
#else
#define LONG_IS_COMPACT(o) (Py_SIZE(o) >= -1 && Py_SIZE(o) <= 1)
#define LONG_COMPACT_VALUE(o) (Py_SIZE(o) == 0 ? 0LL : (long long)Py_SIZE(o) * (long long)((PyLongObject *)(o))->ob_digit[0])
#endif

/* A value inside a container written without the general dispatch when it is an exact str
 * (ASCII), int (one digit), float, None or bool that no user serializer took over: 0 written,
 * 1 not such a value (the caller writes it), -1 out of memory. Same bytes as enc_value. */
static inline int enc_plain_leaf(Out *o, PyObject *obj, unsigned overrides) {
    PyTypeObject *type = Py_TYPE(obj);
    if (type == &PyUnicode_Type) {
        if ((overrides & N_STR) || !PyUnicode_IS_COMPACT_ASCII(obj)) return 1;
        Py_ssize_t n = PyUnicode_GET_LENGTH(obj);
        if (n >= 32) return pack_raw(o, (const char *)(((PyASCIIObject *)obj) + 1), n, 1) < 0 ? 1 : 0;
        RESERVE(o, 1 + n);
        put1(o, (unsigned char)(0xa0 | n));
        if (n <= 16) copy_short(o->buf + o->len, (const char *)(((PyASCIIObject *)obj) + 1), n);
        else memcpy(o->buf + o->len, ((PyASCIIObject *)obj) + 1, n);
        o->len += n;
        return 0;
    }
    if (type == &PyLong_Type) {
        if ((overrides & N_INT) || !LONG_IS_COMPACT(obj)) return 1;
        long long v = LONG_COMPACT_VALUE(obj);
        if (v >= 0 && v < 128) { RESERVE(o, 1); put1(o, (unsigned char)v); return 0; }
        return pack_sint(o, v);
    }
    if (type == &PyFloat_Type) return (overrides & N_FLOAT) ? 1 : pack_double(o, PyFloat_AS_DOUBLE(obj));
    if (obj == Py_None) {
        if (overrides & N_NONE) return 1;
        RESERVE(o, 1);
        put1(o, 0xc0);
        return 0;
    }
    if (type == &PyBool_Type) {
        if (overrides & N_BOOL) return 1;
        RESERVE(o, 1);
        put1(o, obj == Py_True ? 0xc3 : 0xc2);
        return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------ time zones, encode */

#define TZ_CACHE 4
#define TZ_NAME_MAX 64

typedef struct {
    PyObject *tz;                      /* strong; NULL: empty */
    unsigned char form[16 + TZ_NAME_MAX]; /* its wire form: [offset, name or nil] */
    Py_ssize_t len;
} TzEncEntry;

static TzEncEntry tz_enc_cache[TZ_CACHE];
static int tz_enc_next;

static long long delta_us(PyObject *delta) {
    return ((long long)PyDateTime_DELTA_GET_DAYS(delta) * 86400 + PyDateTime_DELTA_GET_SECONDS(delta)) * 1000000LL +
           PyDateTime_DELTA_GET_MICROSECONDS(delta);
}

/* The wire form of a datetime.timezone into o: 0, 1000 (not a form written here), -1 error. */
static int tz_form(PyObject *tz, Out *o) {
    PyObject *offset = NULL, *name = NULL, *plain = NULL, *plain_name = NULL;
    int r = 1000;
    offset = PyObject_CallMethod(tz, "utcoffset", "O", Py_None);
    if (offset == NULL || !PyDelta_CheckExact(offset)) goto done;
    name = PyObject_CallMethod(tz, "tzname", "O", Py_None);
    plain = PyTimeZone_FromOffset(offset);
    if (name == NULL || plain == NULL || !PyUnicode_CheckExact(name)) goto done;
    plain_name = PyObject_CallMethod(plain, "tzname", "O", Py_None);
    if (plain_name == NULL) goto done;
    int same = PyObject_RichCompareBool(name, plain_name, Py_EQ);
    if (same < 0) goto done;
    Py_ssize_t n = 0;
    const char *text = same ? NULL : PyUnicode_AsUTF8AndSize(name, &n);
    if (!same && (text == NULL || n > TZ_NAME_MAX)) goto done;
    if (o->cap - o->len < 16 + TZ_NAME_MAX && out_grow(o, 16 + TZ_NAME_MAX) < 0) { r = -1; goto fail; }
    put1(o, 0x92);
    pack_sint(o, delta_us(offset));
    if (same) put1(o, 0xc0);
    else if (pack_raw(o, text, n, 1) < 0) goto done;
    r = 0;
done:
    PyErr_Clear(); /* whatever went wrong, the serializer meets it again and words it */
fail:
    Py_XDECREF(offset);
    Py_XDECREF(name);
    Py_XDECREF(plain);
    Py_XDECREF(plain_name);
    return r;
}

/* Append the wire form of tz (a datetime or time's tzinfo) to o: 0, or 1000 to leave the
 * value to its serializer (a tzinfo other than datetime.timezone, or one it may refuse). */
static int enc_tz(Out *o, PyObject *tz) {
    if (tz == Py_None) { RESERVE(o, 1); put1(o, 0xc0); return 0; }
    if (Py_TYPE(tz) != Py_TYPE(PyDateTime_TimeZone_UTC)) return 1000;
    for (int i = 0; i < TZ_CACHE; i++) {
        TzEncEntry *c = &tz_enc_cache[i];
        if (c->tz == tz) {
            RESERVE(o, c->len);
            memcpy(o->buf + o->len, c->form, c->len);
            o->len += c->len;
            return 0;
        }
    }
    Py_ssize_t start = o->len;
    int r = tz_form(tz, o);
    if (r != 0) { o->len = start; return r; }
    TzEncEntry *c = &tz_enc_cache[tz_enc_next];
    tz_enc_next = (tz_enc_next + 1) % TZ_CACHE;
    Py_INCREF(tz);
    Py_XSETREF(c->tz, tz);
    c->len = o->len - start;
    memcpy(c->form, o->buf + start, c->len);
    return 0;
}

/* ------------------------------------------------------------------ time zones, decode */

typedef struct {
    PyObject *tz;       /* strong; NULL: empty */
    long long us;
    Py_ssize_t name_len; /* -1: no name */
    char name[TZ_NAME_MAX];
} TzDecEntry;

static TzDecEntry tz_dec_cache[TZ_CACHE];
static int tz_dec_next;

/* A msgpack int at p[*at..end): 1 and its value, or 0 if something else is there or an
   unsigned one is above max_unsigned. */
static int read_int_upto(const unsigned char *p, Py_ssize_t *at, Py_ssize_t end, long long *out,
                         unsigned long long max_unsigned) {
    Py_ssize_t i = *at;
    if (i >= end) return 0;
    unsigned char b = p[i++];
    if (b <= 0x7f) { *out = b; *at = i; return 1; }
    if (b >= 0xe0) { *out = (signed char)b; *at = i; return 1; }
    int size, is_signed = 0;
    if (b >= 0xcc && b <= 0xcf) size = 1 << (b - 0xcc);
    else if (b >= 0xd0 && b <= 0xd3) { size = 1 << (b - 0xd0); is_signed = 1; }
    else return 0;
    if (end - i < size) return 0;
    uint64_t v = 0;
    for (int k = 0; k < size; k++) v = (v << 8) | p[i + k];
    if (is_signed) {
        int shift = 64 - 8 * size;
        *out = shift ? ((int64_t)(v << shift)) >> shift : (int64_t)v;
    } else {
        if (v > max_unsigned) return 0;
        *out = (long long)v;
    }
    *at = i + size;
    return 1;
}

/* A msgpack int of any width at p[*at..end) as a signed 64-bit value; 0 if not one. */
static int read_int64(const unsigned char *p, Py_ssize_t *at, Py_ssize_t end, long long *out) {
    return read_int_upto(p, at, end, out, (unsigned long long)LLONG_MAX);
}

/* The tzinfo of the wire form at p[*at..end): a new reference, Py_None for nil; NULL (no error
 * set) for anything the serializer should read (another form, a value it refuses). */
static PyObject *dec_tz(const unsigned char *p, Py_ssize_t *at, Py_ssize_t end) {
    Py_ssize_t i = *at;
    if (i >= end) return NULL;
    if (p[i] == 0xc0) { *at = i + 1; return Py_NewRef(Py_None); }
    if (p[i] != 0x92) return NULL;
    i++;
    long long us;
    if (!read_int64(p, &i, end, &us)) return NULL;
    if (us <= -86400000000LL || us >= 86400000000LL) return NULL; /* refused by timezone() */
    Py_ssize_t n = -1;
    const unsigned char *name = NULL;
    if (i >= end) return NULL;
    unsigned char b = p[i++];
    if (b == 0xc0) n = -1;
    else if (b >= 0xa0 && b <= 0xbf) n = b & 0x1f;
    else if (b == 0xd9 && i < end) n = p[i++];
    else if (b == 0xda && end - i >= 2) { n = (p[i] << 8) | p[i + 1]; i += 2; }
    else return NULL;
    if (n >= 0) {
        if (end - i < n) return NULL;
        name = p + i;
        i += n;
    }
    for (int k = 0; k < TZ_CACHE; k++) {
        TzDecEntry *c = &tz_dec_cache[k];
        if (c->tz != NULL && c->us == us && c->name_len == n && (n <= 0 || memcmp(c->name, name, n) == 0)) {
            *at = i;
            return Py_NewRef(c->tz);
        }
    }
    long long days = us / 86400000000LL, rest = us % 86400000000LL;
    if (rest < 0) { rest += 86400000000LL; days--; }
    PyObject *delta = PyDelta_FromDSU((int)days, (int)(rest / 1000000), (int)(rest % 1000000));
    PyObject *text = NULL, *tz = NULL;
    if (delta != NULL && n >= 0) text = PyUnicode_DecodeUTF8((const char *)name, n, NULL);
    if (delta != NULL && (n < 0 || text != NULL)) tz = PyTimeZone_FromOffsetAndName(delta, text);
    Py_XDECREF(delta);
    Py_XDECREF(text);
    if (tz == NULL) { PyErr_Clear(); return NULL; }
    if (n <= TZ_NAME_MAX) {
        TzDecEntry *c = &tz_dec_cache[tz_dec_next];
        tz_dec_next = (tz_dec_next + 1) % TZ_CACHE;
        Py_XSETREF(c->tz, Py_NewRef(tz));
        c->us = us;
        c->name_len = n;
        if (n > 0) memcpy(c->name, name, n);
    }
    *at = i;
    return tz;
}

/* ------------------------------------------------------------------ sets, encode */

/* The plain msgpack of a set member into o: 0, or 1000 if it is not a plain leaf written here. */
static int enc_set_member(Out *o, PyObject *obj, unsigned overrides) {
    unsigned bit = native_bit((PyObject *)Py_TYPE(obj));
    if (bit == 0 || (overrides & bit) || bit == N_LIST || bit == N_DICT) return 1000;
    switch (bit) {
    case N_NONE: RESERVE(o, 1); put1(o, 0xc0); return 0;
    case N_BOOL: RESERVE(o, 1); put1(o, obj == Py_True ? 0xc3 : 0xc2); return 0;
    case N_FLOAT: return pack_double(o, PyFloat_AS_DOUBLE(obj));
    case N_BYTES: return pack_raw(o, PyBytes_AS_STRING(obj), PyBytes_GET_SIZE(obj), 0) < 0 ? 1000 : 0;
    case N_STR: {
        Py_ssize_t n;
        const char *text = PyUnicode_AsUTF8AndSize(obj, &n);
        if (text == NULL) { PyErr_Clear(); return 1000; } /* the serializer words it */
        return pack_raw(o, text, n, 1) < 0 ? 1000 : 0;
    }
    case N_INT: {
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (overflow == 0) return pack_sint(o, v);
        if (overflow > 0) {
            unsigned long long u = PyLong_AsUnsignedLongLong(obj);
            if (!(u == (unsigned long long)-1 && PyErr_Occurred())) return pack_uint(o, u);
        }
        PyErr_Clear();
        return 1000;
    }
    }
    return 1000;
}

typedef struct {
    Py_ssize_t at, len;
} SetMember;

static const char *set_sort_base;

/* bytes order (memcmp, then the shorter first); ties keep iteration order, as list.sort does. */
static int cmp_set_member(const void *a, const void *b) {
    const SetMember *x = a, *y = b;
    Py_ssize_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(set_sort_base + x->at, set_sort_base + y->at, n);
    if (c != 0) return c;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* A set or frozenset of plain members as ext 0 into o: 0, 1000 (its serializer writes it), -1. */
static int enc_plain_set(Out *o, PyObject *obj, int kind, unsigned overrides) {
    Py_ssize_t n = PySet_GET_SIZE(obj), pos = 0;
    Out tmp = {0};
    SetMember *members = PyMem_Malloc((n ? n : 1) * sizeof(SetMember));
    if (members == NULL) { PyErr_NoMemory(); return -1; }
    PyObject *key;
    Py_hash_t hash;
    Py_ssize_t count = 0;
    int r = 0;
    while (_PySet_NextEntry(obj, &pos, &key, &hash)) {
        if (count == n) { r = 1000; break; } /* changed meanwhile */
        Py_ssize_t at = tmp.len;
        r = enc_set_member(&tmp, key, overrides);
        if (r != 0) break;
        members[count].at = at;
        members[count].len = tmp.len - at;
        count++;
    }
    if (r == 0 && count != n) r = 1000;
    if (r == 0) {
        set_sort_base = tmp.buf;
        qsort(members, n, sizeof(SetMember), cmp_set_member);
        Py_ssize_t start = o->len;
        r = ext_begin(o, kind_hash[kind]);
        if (r == 0) r = ARRAY_HEADER(o, n) < 0 ? 1000 : 0;
        if (r == 0 && o->cap - o->len < tmp.len && out_grow(o, tmp.len) < 0) r = -1;
        if (r == 0) {
            for (Py_ssize_t i = 0; i < n; i++) {
                memcpy(o->buf + o->len, tmp.buf + members[i].at, members[i].len);
                o->len += members[i].len;
            }
            r = ext_end(o, start) < 0 ? 1000 : 0;
        }
        if (r != 0) o->len = start;
    }
    if (tmp.owns) PyMem_Free(tmp.buf);
    PyMem_Free(members);
    return r;
}
