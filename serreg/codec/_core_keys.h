/* Map keys of serreg/codec/_core.c's decoder: one str object per short ASCII key, kept across calls.
 *
 * Documents repeat their keys (1,000 records, 4 keys each): a key read again is the str already
 * made, found by its bytes in a small table, so it is neither decoded nor hashed again (a str
 * keeps its hash). Values and long or non-ASCII keys are decoded as usual. */

#define KEY_CACHE_SIZE 512 /* a power of two */
#define KEY_CACHE_MAX_LEN 32

static PyObject *key_cache[KEY_CACHE_SIZE];

static PyObject *decode_str(const unsigned char *p, Py_ssize_t n, int is_key) {
    if (!is_key || n == 0 || n > KEY_CACHE_MAX_LEN) return PyUnicode_DecodeUTF8((const char *)p, n, NULL);
    uint32_t h = 2166136261u; /* FNV-1a */
    for (Py_ssize_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    PyObject **slot = &key_cache[(h ^ (h >> 15)) & (KEY_CACHE_SIZE - 1)], *key = *slot;
    if (key != NULL && PyUnicode_GET_LENGTH(key) == n && memcmp(PyUnicode_DATA(key), p, n) == 0)
        return Py_NewRef(key);
    key = PyUnicode_DecodeUTF8((const char *)p, n, NULL);
    if (key != NULL && PyUnicode_IS_COMPACT_ASCII(key)) Py_XSETREF(*slot, Py_NewRef(key));
    return key;
}
