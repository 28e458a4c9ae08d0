/* The output buffer of the compiled codec (serreg/codec/_core.c) and the msgpack writer's
 * primitives on it: growth, ints, floats, str/bin/array/map headers, raw bytes, and the ext 0
 * envelope written with room for its longest header and moved back into place. */

typedef struct {
    char *buf;
    Py_ssize_t len, cap;
    int owns;
} Out;

static int out_grow(Out *o, Py_ssize_t extra) {
    Py_ssize_t need = o->len + extra, cap = o->cap ? o->cap : 256;
    while (cap < need) {
        if (cap > PY_SSIZE_T_MAX / 2) { PyErr_NoMemory(); return -1; }
        cap *= 2;
    }
    char *buf;
    if (o->owns) {
        buf = PyMem_Realloc(o->buf, cap);
    } else {
        buf = PyMem_Malloc(cap);
        if (buf != NULL && o->len) memcpy(buf, o->buf, o->len);
    }
    if (buf == NULL) { PyErr_NoMemory(); return -1; }
    o->buf = buf;
    o->cap = cap;
    o->owns = 1;
    return 0;
}

#define RESERVE(o, n) do { if ((o)->cap - (o)->len < (Py_ssize_t)(n) && out_grow((o), (n)) < 0) return -1; } while (0)

static inline void put1(Out *o, unsigned char c) { o->buf[o->len++] = (char)c; }
static inline void put_be(Out *o, uint64_t v, int n) {
#if !PY_BIG_ENDIAN && (defined(__GNUC__) || defined(__clang__))
    if (n == 8) { /* a double or a 64-bit int: one store */
        v = __builtin_bswap64(v);
        memcpy(o->buf + o->len, &v, 8);
        o->len += 8;
        return;
    }
#endif
    for (int i = n - 1; i >= 0; i--) o->buf[o->len++] = (char)(v >> (8 * i));
}

/* A big-endian 16 or 32-bit value stored at q (one store each). */
static inline void store_be16(char *q, uint16_t v) {
    q[0] = (char)(v >> 8);
    q[1] = (char)v;
}
static inline void store_be32(char *q, uint32_t v) {
#if !PY_BIG_ENDIAN && (defined(__GNUC__) || defined(__clang__))
    v = __builtin_bswap32(v);
    memcpy(q, &v, 4);
#else
    for (int i = 0; i < 4; i++) q[i] = (char)(v >> (24 - 8 * i));
#endif
}

/* msgpack's shortest form of an int: each width one branch and whole stores. */
static inline int pack_uint(Out *o, unsigned long long v) {
    RESERVE(o, 9);
    char *q = o->buf + o->len;
    if (v < 128) { q[0] = (char)v; o->len += 1; }
    else if (v < 256) { q[0] = (char)0xcc; q[1] = (char)v; o->len += 2; }
    else if (v < 65536) { q[0] = (char)0xcd; store_be16(q + 1, (uint16_t)v); o->len += 3; }
    else if (v < 4294967296ULL) { q[0] = (char)0xce; store_be32(q + 1, (uint32_t)v); o->len += 5; }
    else { put1(o, 0xcf); put_be(o, v, 8); }
    return 0;
}

static inline int pack_sint(Out *o, long long v) {
    if (v >= 0) return pack_uint(o, (unsigned long long)v);
    RESERVE(o, 9);
    char *q = o->buf + o->len;
    if (v >= -32) { q[0] = (char)(v & 0xff); o->len += 1; }
    else if (v >= -128) { q[0] = (char)0xd0; q[1] = (char)(v & 0xff); o->len += 2; }
    else if (v >= -32768) { q[0] = (char)0xd1; store_be16(q + 1, (uint16_t)v); o->len += 3; }
    else if (v >= -2147483648LL) { q[0] = (char)0xd2; store_be32(q + 1, (uint32_t)v); o->len += 5; }
    else { put1(o, 0xd3); put_be(o, (uint64_t)v, 8); }
    return 0;
}

static int pack_double(Out *o, double d) {
    uint64_t bits;
    memcpy(&bits, &d, 8);
    RESERVE(o, 9);
    put1(o, 0xcb);
    put_be(o, bits, 8);
    return 0;
}

/* A str/bin/array/map header: fix form (when fix_base), then the 8, 16 and 32-bit forms. */
static int pack_header(Out *o, Py_ssize_t n, int fix_base, int fix_max, int c8, int c16, int c32) {
    RESERVE(o, 5);
    if (fix_base >= 0 && n < fix_max) put1(o, (unsigned char)(fix_base | n));
    else if (c8 >= 0 && n < 256) { put1(o, (unsigned char)c8); put_be(o, (uint64_t)n, 1); }
    else if (n < 65536) { put1(o, (unsigned char)c16); put_be(o, (uint64_t)n, 2); }
    else if ((unsigned long long)n <= 0xffffffffULL) { put1(o, (unsigned char)c32); put_be(o, (uint64_t)n, 4); }
    else return -2;
    return 0;
}
/* An array or map header: the fix form (up to 15 items) without a call. */
static inline int container_header(Out *o, Py_ssize_t n, int fix_base, int c16, int c32) {
    if (n >= 16) return pack_header(o, n, fix_base, 16, -1, c16, c32);
    RESERVE(o, 1);
    put1(o, (unsigned char)(fix_base | n));
    return 0;
}
#define ARRAY_HEADER(o, n) container_header((o), (n), 0x90, 0xdc, 0xdd)
#define MAP_HEADER(o, n) container_header((o), (n), 0x80, 0xde, 0xdf)

/* n bytes (n <= 16) from src to dst without a call: two overlapping loads and stores of 8, 4 or 2
 * bytes, each within the n bytes (none read past the source's end). */
static inline void copy_short(char *dst, const char *src, Py_ssize_t n) {
    if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, src, 8);
        memcpy(&b, src + n - 8, 8);
        memcpy(dst, &a, 8);
        memcpy(dst + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, src, 4);
        memcpy(&b, src + n - 4, 4);
        memcpy(dst, &a, 4);
        memcpy(dst + n - 4, &b, 4);
    } else if (n >= 2) {
        uint16_t a, b;
        memcpy(&a, src, 2);
        memcpy(&b, src + n - 2, 2);
        memcpy(dst, &a, 2);
        memcpy(dst + n - 2, &b, 2);
    } else if (n == 1) {
        dst[0] = src[0];
    }
}

static int pack_raw(Out *o, const char *data, Py_ssize_t n, int is_str) {
    int r = is_str ? pack_header(o, n, 0xa0, 32, 0xd9, 0xda, 0xdb) : pack_header(o, n, -1, 0, 0xc4, 0xc5, 0xc6);
    if (r < 0) return r;
    RESERVE(o, n);
    memcpy(o->buf + o->len, data, n);
    o->len += n;
    return 0;
}

/* An ext 0 is written with room for its longest header; ext_end moves the payload back. */
#define EXT_ROOM 6
static int ext_begin(Out *o, const unsigned char *hash) {
    RESERVE(o, EXT_ROOM + HASH_SIZE);
    o->len += EXT_ROOM;
    memcpy(o->buf + o->len, hash, HASH_SIZE);
    o->len += HASH_SIZE;
    return 0;
}

static int ext_end(Out *o, Py_ssize_t start) {
    Py_ssize_t payload = o->len - start - EXT_ROOM;
    unsigned char head[EXT_ROOM];
    int h;
    if (payload == 8) { head[0] = 0xd7; h = 1; }
    else if (payload == 16) { head[0] = 0xd8; h = 1; }
    else if (payload < 256) { head[0] = 0xc7; head[1] = (unsigned char)payload; h = 2; }
    else if (payload < 65536) { head[0] = 0xc8; head[1] = (unsigned char)(payload >> 8); head[2] = (unsigned char)payload; h = 3; }
    else if ((unsigned long long)payload <= 0xffffffffULL) {
        head[0] = 0xc9;
        for (int i = 0; i < 4; i++) head[1 + i] = (unsigned char)(payload >> (24 - 8 * i));
        h = 5;
    } else return -2;
    head[h++] = 0; /* ext type 0 */
    if (h < EXT_ROOM) memmove(o->buf + start + h, o->buf + start + EXT_ROOM, payload);
    memcpy(o->buf + start, head, h);
    o->len -= EXT_ROOM - h;
    return 0;
}
