/* strs read by serreg/codec/_core.c's decoder: ASCII without the UTF-8 decoder, and map keys
 * through one str object per short ASCII key, kept across calls.
 *
 * Documents repeat their keys (1,000 records, 4 keys each): a key read again is the str already
 * made, found by its bytes in a small table (a slot holds the last key that hashed to it), so it
 * is neither decoded nor hashed again (a str keeps its hash). Keys are immutable strs equal to
 * what the pure codec returns; only their identity is shared. Values and long or non-ASCII keys
 * are decoded as usual; ASCII ones are copied into a new str without the UTF-8 decoder. */

#define KEY_CACHE_SIZE 512 /* a power of two */
#define KEY_CACHE_MAX_LEN 32

static PyObject *key_cache[KEY_CACHE_SIZE];

static inline int is_ascii(const unsigned char *p, Py_ssize_t n) {
    Py_ssize_t i = 0;
    uint64_t acc = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        acc |= w;
    }
    for (; i < n; i++) acc |= p[i];
    return (acc & 0x8080808080808080ULL) == 0;
}

/* A str of the UTF-8 bytes p[0..n): NULL with an error set if they are not UTF-8. */
static inline PyObject *ascii_or_utf8(const unsigned char *p, Py_ssize_t n) {
    if (n <= 1 || !is_ascii(p, n)) return PyUnicode_DecodeUTF8((const char *)p, n, NULL); /* 0, 1: cached */
    PyObject *s = PyUnicode_New(n, 127);
    if (s != NULL) memcpy(PyUnicode_DATA(s), p, n);
    return s;
}

static inline PyObject *decode_str(const unsigned char *p, Py_ssize_t n, int is_key) {
    if (!is_key || n == 0 || n > KEY_CACHE_MAX_LEN) return ascii_or_utf8(p, n);
    uint32_t h = 2166136261u; /* FNV-1a */
    for (Py_ssize_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    PyObject **slot = &key_cache[(h ^ (h >> 15)) & (KEY_CACHE_SIZE - 1)], *key = *slot;
    if (key != NULL && PyUnicode_GET_LENGTH(key) == n) {
        const unsigned char *data = PyUnicode_DATA(key);
        Py_ssize_t i = 0;
        while (i < n && data[i] == p[i]) i++;
        if (i == n) return Py_NewRef(key);
    }
    key = ascii_or_utf8(p, n);
    if (key != NULL && PyUnicode_IS_COMPACT_ASCII(key)) Py_XSETREF(*slot, Py_NewRef(key));
    return key;
}
