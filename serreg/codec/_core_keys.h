/* strs read by serreg/codec/_core.c's decoder: ASCII without the UTF-8 decoder, and map keys
 * through one str object per short ASCII key, kept across calls.
 *
 * Documents repeat their keys (1,000 records, 4 keys each): a key read again is the str already
 * made, found by its bytes in a small table (compared as words: its first 16 bytes and its length;
 * the two slots of its hash hold the last two keys that hashed there), so it is neither decoded nor
 * hashed again (a str keeps its hash). Keys are immutable strs equal to what the pure codec returns;
 * only their identity is shared. Strs of one ASCII byte, keys or values, are CPython's own cached
 * one-character strs, kept in a table. Other values and long or non-ASCII keys are decoded as usual;
 * ASCII ones are copied into a new str without the UTF-8 decoder. */

#define KEY_CACHE_BITS 9 /* 512 slots */
#define KEY_CACHE_MAX_LEN 32

/* A slot: the key's first 16 bytes as two words (zero past its end), its length, and the key. Slots
 * go by pairs: a key is looked for in the two slots of its hash, so two keys of one hash both stay. */
typedef struct {
    uint64_t lo, hi;
    Py_ssize_t n;
    PyObject *key; /* strong; NULL: empty */
} KeySlot;

static KeySlot key_cache[1 << KEY_CACHE_BITS];

/* The low n bytes of a word, n = 0..8. */
static const uint64_t LOW_BYTES[9] = {0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffffULL, 0xffffffffffffULL,
                                      0xffffffffffffffULL, 0xffffffffffffffffULL};

/* Whether p[0..n) is ASCII. room: the bytes readable from p (at least n): up to 8 bytes with room
 * for a word are one load and a mask. */
static inline int is_ascii(const unsigned char *p, Py_ssize_t n, Py_ssize_t room) {
    Py_ssize_t i = 0;
    uint64_t acc = 0;
#if !PY_BIG_ENDIAN
    if (n <= 8 && room >= 8) {
        memcpy(&acc, p, 8);
        return (acc & LOW_BYTES[n] & 0x8080808080808080ULL) == 0;
    }
#endif
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        acc |= w;
    }
    for (; i < n; i++) acc |= p[i];
    return (acc & 0x8080808080808080ULL) == 0;
}

/* The strs of one ASCII character, as CPython's UTF-8 decoder returns them (its own cached objects),
 * kept here once asked for: a one-byte key or value ("x", "a") is then one load. */
static PyObject *ascii_char[128];

/* A str of the UTF-8 bytes p[0..n) (room: the bytes readable from p, at least n): NULL with an error
 * set if they are not UTF-8. */
static inline PyObject *ascii_or_utf8(const unsigned char *p, Py_ssize_t n, Py_ssize_t room) {
    if (n == 1 && p[0] < 0x80) {
        PyObject *c = ascii_char[p[0]];
        if (c == NULL && (c = PyUnicode_DecodeUTF8((const char *)p, 1, NULL)) != NULL) ascii_char[p[0]] = Py_NewRef(c);
        else Py_XINCREF(c);
        return c;
    }
    if (n <= 1 || !is_ascii(p, n, room)) return PyUnicode_DecodeUTF8((const char *)p, n, NULL); /* 0: cached */
    PyObject *s = PyUnicode_New(n, 127);
    if (s != NULL) memcpy(PyUnicode_DATA(s), p, n);
    return s;
}

/* The first 16 bytes of p[0..n) (n <= 32) as two little-endian words, zero past n. With room
 * (bytes readable from p) for whole words, one or two loads and a mask; else byte by byte. */
static inline void key_words(const unsigned char *p, Py_ssize_t n, Py_ssize_t room, uint64_t *lo, uint64_t *hi) {
#if !PY_BIG_ENDIAN
    if (n <= 8 && room >= 8) {
        memcpy(lo, p, 8);
        *lo &= LOW_BYTES[n];
        *hi = 0;
        return;
    }
    if (room >= 16) {
        memcpy(lo, p, 8);
        memcpy(hi, p + 8, 8);
        *hi &= LOW_BYTES[n < 16 ? n - 8 : 8];
        return;
    }
#endif
    uint64_t w[2] = {0, 0};
    for (Py_ssize_t i = 0; i < n && i < 16; i++) w[i >> 3] |= (uint64_t)p[i] << (8 * (i & 7));
    *lo = w[0];
    *hi = w[1];
}

/* A str of the UTF-8 bytes p[0..n); a map key (is_key) of up to KEY_CACHE_MAX_LEN bytes through the
 * cache. room: the bytes readable from p (at least n), read as whole words when there are 16. Inlined in
 * each of its three readers (the decoder's loops and _core_lean.h): the compiler's own choice, with three,
 * was a call from the decoder's tight loop. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline PyObject *decode_str(const unsigned char *p, Py_ssize_t n, Py_ssize_t room, int is_key) {
    if (!is_key || n <= 1 || n > KEY_CACHE_MAX_LEN) return ascii_or_utf8(p, n, room);
    uint64_t lo, hi;
    key_words(p, n, room, &lo, &hi);
    uint64_t h = (lo ^ (hi * UINT64_C(0xC2B2AE3D27D4EB4F)) ^ (uint64_t)n) * UINT64_C(0x9E3779B97F4A7C15);
    KeySlot *way = &key_cache[(h >> (64 - KEY_CACHE_BITS)) & ~(uint64_t)1]; /* a pair of slots */
    for (int w = 0; w < 2; w++) {
        KeySlot *slot = &way[w];
        /* An empty slot has n == 0: never equal here (n >= 2). */
        if (slot->lo == lo && slot->hi == hi && slot->n == n &&
            (n <= 16 || memcmp((const char *)PyUnicode_DATA(slot->key) + 16, p + 16, n - 16) == 0))
            return Py_NewRef(slot->key);
    }
    PyObject *key = ascii_or_utf8(p, n, room);
    if (key != NULL && PyUnicode_IS_COMPACT_ASCII(key)) {
        /* The new key takes the first slot; the one there moves to the second (the oldest leaves). */
        Py_XDECREF(way[1].key);
        way[1] = way[0];
        way[0].key = Py_NewRef(key);
        way[0].lo = lo;
        way[0].hi = hi;
        way[0].n = n;
    }
    return key;
}
