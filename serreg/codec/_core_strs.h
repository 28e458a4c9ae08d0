/* str values read by serreg/codec/_core_decode.h: ASCII without the UTF-8 decoder, and map
 * keys through a cache of recently read short keys.
 *
 * A document of many maps repeats the same few keys: each is read once, kept (with the hash
 * Python caches in it), and the same str object is handed out again for the same bytes, so
 * building the map neither decodes nor hashes the key again. Only ASCII keys of at most
 * KEY_CACHE_MAX_LEN bytes are kept; a slot holds the last key that hashed to it. Keys are
 * immutable strs equal to what the pure codec returns; only their identity is shared. */

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
static inline PyObject *dec_str(const unsigned char *p, Py_ssize_t n) {
    if (n <= 1 || !is_ascii(p, n)) return PyUnicode_DecodeUTF8((const char *)p, n, NULL); /* 0, 1: cached */
    PyObject *s = PyUnicode_New(n, 127);
    if (s != NULL) memcpy(PyUnicode_DATA(s), p, n);
    return s;
}

/* A map key: the cached str for these bytes, or a new one (kept if short and ASCII). */
static inline PyObject *dec_key(const unsigned char *p, Py_ssize_t n) {
    if (n > KEY_CACHE_MAX_LEN || n == 0) return dec_str(p, n);
    uint32_t h = 2166136261u; /* FNV-1a */
    for (Py_ssize_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    PyObject **slot = &key_cache[h & (KEY_CACHE_SIZE - 1)];
    PyObject *cached = *slot;
    if (cached != NULL && PyUnicode_GET_LENGTH(cached) == n) {
        const unsigned char *data = PyUnicode_DATA(cached);
        Py_ssize_t i = 0;
        while (i < n && data[i] == p[i]) i++;
        if (i == n) return Py_NewRef(cached);
    }
    if (!is_ascii(p, n)) return PyUnicode_DecodeUTF8((const char *)p, n, NULL);
    PyObject *s = PyUnicode_New(n, 127);
    if (s == NULL) return NULL;
    memcpy(PyUnicode_DATA(s), p, n);
    Py_XSETREF(*slot, Py_NewRef(s));
    return s;
}
