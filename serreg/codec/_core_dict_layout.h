/* Dicts read and made by serreg/codec/_core.c through CPython 3.11 and 3.12's own dict tables, mirrored
 * here (Include/internal/pycore_dict.h: PyDictKeysObject and its entries), where the public API costs a
 * call per item: the encoder walks a dict's entries (dict_next, PyDict_Next's own walk of a table that
 * holds its values, or of an instance's split table: its class's shared keys and its own values in
 * insertion order), and the decoder puts a map's values, and an implicit struct instance's fields, in a
 * copy of a dict of its keys (_core_decode_values.h, _core_implicit_build.h). At import,
 * dict_layout_check compares what the mirror reads with what PyDict_Next reads from dicts of str keys,
 * of other keys and from an instance's __dict__; if they differ, or on another CPython, dict_layout_ok
 * (split_layout_ok for the instance's) stays 0 and only the public API is used. */

#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030D0000 && !defined(Py_GIL_DISABLED)
#define DICT_LAYOUT_MIRRORED 1

typedef struct { /* PyDictKeysObject */
    Py_ssize_t dk_refcnt;
    uint8_t dk_log2_size, dk_log2_index_bytes, dk_kind;
    uint32_t dk_version;
    Py_ssize_t dk_usable, dk_nentries;
    char dk_indices[];
} DictKeys;

enum { DICT_KEYS_GENERAL = 0, DICT_KEYS_UNICODE = 1 };

typedef struct { /* PyDictUnicodeEntry: a table of str keys only */
    PyObject *me_key, *me_value;
} DictUnicodeEntry;

typedef struct { /* PyDictKeyEntry: any other table */
    Py_hash_t me_hash;
    PyObject *me_key, *me_value;
} DictGeneralEntry;

static int dict_layout_ok, split_layout_ok;
static int dict_layout_found, split_layout_found; /* what dict_layout_check found (dict_layout restores it) */

static inline void *dict_entries(PyObject *dict) {
    DictKeys *keys = (DictKeys *)((PyDictObject *)dict)->ma_keys;
    return keys->dk_indices + ((size_t)1 << keys->dk_log2_index_bytes);
}

/* PyDict_Next (same positions, borrowed references), reading a table holding its own values in place,
 * or a split one: position i is the i-th value inserted, whose index in the shared keys' entries and in
 * the values is the byte at -3 - i from the values (the byte at -2 counts them; CPython's
 * get_index_from_order). */
static inline int dict_next(PyObject *dict, Py_ssize_t *pos, PyObject **key, PyObject **value) {
    PyDictObject *mp = (PyDictObject *)dict;
    if (!dict_layout_ok) return PyDict_Next(dict, pos, key, value);
    DictKeys *keys = (DictKeys *)mp->ma_keys;
    Py_ssize_t i = *pos, n = keys->dk_nentries;
    if (i < 0) return 0;
    if (mp->ma_values != NULL) {
        if (!split_layout_ok) return PyDict_Next(dict, pos, key, value);
        if (i >= mp->ma_used) return 0;
        Py_ssize_t index = ((const uint8_t *)mp->ma_values)[-3 - i];
        *key = ((DictUnicodeEntry *)dict_entries(dict))[index].me_key;
        *value = ((PyObject **)mp->ma_values)[index];
    } else if (keys->dk_kind == DICT_KEYS_UNICODE) {
        DictUnicodeEntry *e = (DictUnicodeEntry *)dict_entries(dict);
        while (i < n && e[i].me_value == NULL) i++;
        if (i >= n) return 0;
        *key = e[i].me_key;
        *value = e[i].me_value;
    } else if (keys->dk_kind == DICT_KEYS_GENERAL) {
        DictGeneralEntry *e = (DictGeneralEntry *)dict_entries(dict);
        while (i < n && e[i].me_value == NULL) i++;
        if (i >= n) return 0;
        *key = e[i].me_key;
        *value = e[i].me_value;
    } else {
        return PyDict_Next(dict, pos, key, value);
    }
    *pos = i + 1;
    return 1;
}

/* Whether dict_next reads d as PyDict_Next does, item by item and position by position. */
static int dict_next_agrees(PyObject *d) {
    Py_ssize_t a = 0, b = 0;
    PyObject *ka, *va, *kb, *vb;
    for (;;) {
        int more = dict_next(d, &a, &ka, &va);
        if (more != PyDict_Next(d, &b, &kb, &vb)) return 0;
        if (!more) return 1;
        if (a != b || ka != kb || va != vb) return 0;
    }
}

/* A copy of like (a dict of str keys whose values are all None, its table holding them in order: see
 * dict_like_of) holding values[0], values[stride], ... (their references taken) under keys[0],
 * keys[stride], ...: n entries. NULL, no error set and nothing taken, when the copy's entries are not
 * those keys in that order (the table is not laid out as mirrored); NULL with an error on failure.
 * Tracked by the garbage collector when a value may need it, as PyDict_SetItem would track it. */
static PyObject *dict_copy_filled(PyObject *like, PyObject *const *keys, PyObject *const *values, Py_ssize_t n,
                                  Py_ssize_t stride) {
    if (!dict_layout_ok) return NULL;
    PyObject *out = PyDict_Copy(like);
    if (out == NULL) return NULL;
    DictKeys *table = (DictKeys *)((PyDictObject *)out)->ma_keys;
    DictUnicodeEntry *entries = ((PyDictObject *)out)->ma_values == NULL && table->dk_kind == DICT_KEYS_UNICODE &&
                                table->dk_nentries == n ? dict_entries(out) : NULL;
    int track = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (entries == NULL || entries[i].me_key != keys[i * stride] || entries[i].me_value != Py_None) {
            for (Py_ssize_t j = 0; j < i; j++) entries[j].me_value = Py_NewRef(Py_None); /* the values not taken */
            Py_DECREF(out); /* not the table it was (never seen) */
            return NULL;
        }
        PyObject *v = values[i * stride];
        entries[i].me_value = v; /* its reference, taken */
        Py_DECREF(Py_None);
        track |= PyType_IS_GC(Py_TYPE(v)) && (!PyTuple_CheckExact(v) || PyObject_GC_IsTracked(v));
    }
    if (track && !PyObject_GC_IsTracked(out)) PyObject_GC_Track(out);
    return out;
}

/* {keys[0]: None, keys[stride]: None, ...} (n distinct strs) when its table holds them in that order as
 * mirrored, for dict_copy_filled; NULL otherwise (no error set). */
static PyObject *dict_like_of(PyObject *const *keys, Py_ssize_t n, Py_ssize_t stride) {
    if (!dict_layout_ok) return NULL;
    PyObject *dict = PyDict_New(); /* grown from empty: a table of str keys (presized, a general one) */
    for (Py_ssize_t i = 0; dict != NULL && i < n; i++) {
        if (!PyUnicode_CheckExact(keys[i * stride]) || PyDict_SetItem(dict, keys[i * stride], Py_None) < 0)
            Py_CLEAR(dict);
    }
    if (dict == NULL) { PyErr_Clear(); return NULL; }
    DictKeys *table = (DictKeys *)((PyDictObject *)dict)->ma_keys;
    int laid_out = ((PyDictObject *)dict)->ma_values == NULL && table->dk_kind == DICT_KEYS_UNICODE &&
                   table->dk_nentries == n;
    for (Py_ssize_t i = 0; laid_out && i < n; i++) {
        DictUnicodeEntry *e = &((DictUnicodeEntry *)dict_entries(dict))[i];
        laid_out = e->me_key == keys[i * stride] && e->me_value == Py_None;
    }
    if (!laid_out) Py_CLEAR(dict);
    return dict;
}

/* Whether dict_next reads the __dict__ of instances of a class of ours (a split table: attributes set
 * in another order than the class's first instance's, one deleted) as PyDict_Next does. */
static int split_next_agrees(void) {
    PyObject *cls = PyObject_CallFunction((PyObject *)&PyType_Type, "s()N", "SplitCheck", PyDict_New());
    PyObject *a = cls == NULL ? NULL : PyObject_CallNoArgs(cls), *b = cls == NULL ? NULL : PyObject_CallNoArgs(cls);
    int ok = a != NULL && b != NULL && PyObject_SetAttrString(a, "x", Py_None) == 0 &&
             PyObject_SetAttrString(a, "y", Py_True) == 0 && PyObject_SetAttrString(b, "y", Py_False) == 0 &&
             PyObject_SetAttrString(b, "z", Py_None) == 0 && PyObject_SetAttrString(b, "x", Py_True) == 0 &&
             PyObject_DelAttrString(b, "z") == 0 && PyObject_SetAttrString(b, "w", Py_None) == 0;
    PyObject *da = ok ? PyObject_GenericGetDict(a, NULL) : NULL, *db = ok ? PyObject_GenericGetDict(b, NULL) : NULL;
    split_layout_ok = 1;
    ok = da != NULL && db != NULL && PyDict_CheckExact(da) && ((PyDictObject *)da)->ma_values != NULL &&
         ((PyDictObject *)db)->ma_values != NULL && dict_next_agrees(da) && dict_next_agrees(db);
    split_layout_ok = 0;
    Py_XDECREF(da);
    Py_XDECREF(db);
    Py_XDECREF(a);
    Py_XDECREF(b);
    Py_XDECREF(cls);
    PyErr_Clear();
    return ok;
}

/* Sets dict_layout_ok when the mirror reads dicts (str keys, other keys, a deleted entry) as
 * PyDict_Next does, and split_layout_ok when it reads an instance's split table so too. */
static void dict_layout_check(void) {
    PyObject *str_keys = Py_BuildValue("{s:i,s:i,s:i}", "a", 1, "bb", 2, "ccc", 3);
    PyObject *other_keys = Py_BuildValue("{i:s,s:i,i:i}", 7, "x", "k", 8, 9, 10);
    int ok = str_keys != NULL && other_keys != NULL && PyDict_DelItemString(str_keys, "bb") == 0;
    dict_layout_ok = 1;
    ok = ok && dict_next_agrees(str_keys) && dict_next_agrees(other_keys) &&
         ((DictKeys *)((PyDictObject *)str_keys)->ma_keys)->dk_kind == DICT_KEYS_UNICODE &&
         ((DictKeys *)((PyDictObject *)other_keys)->ma_keys)->dk_kind == DICT_KEYS_GENERAL;
    dict_layout_ok = ok;
    Py_XDECREF(str_keys);
    Py_XDECREF(other_keys);
    PyErr_Clear();
    split_layout_ok = ok && split_next_agrees();
    dict_layout_found = dict_layout_ok;
    split_layout_found = split_layout_ok;
}
#else
static const int dict_layout_ok = 0, split_layout_ok = 0;
#define dict_next PyDict_Next
static void dict_layout_check(void) {}
static PyObject *dict_copy_filled(PyObject *like, PyObject *const *keys, PyObject *const *values, Py_ssize_t n,
                                  Py_ssize_t stride) { return NULL; }
static PyObject *dict_like_of(PyObject *const *keys, Py_ssize_t n, Py_ssize_t stride) { return NULL; }
#endif

/* dict_layout(mirrored=None) -> bool: whether CPython's dict tables are read and made in place (see the
 * top of this file); dict_layout(False) keeps to the public API, dict_layout(True) goes back to what the
 * import check found. For the tests of both ways. */
static PyObject *dict_layout(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs > 1) {
        PyErr_SetString(PyExc_TypeError, "dict_layout(mirrored: bool | None = None)");
        return NULL;
    }
    if (nargs == 1 && args[0] != Py_None) {
        int on = PyObject_IsTrue(args[0]);
        if (on < 0) return NULL;
#if DICT_LAYOUT_MIRRORED
        dict_layout_ok = on && dict_layout_found;
        split_layout_ok = on && split_layout_found;
#endif
    }
    return PyBool_FromLong(dict_layout_ok);
}

#define DICT_LAYOUT_METHODS                                                                                       \
    {"dict_layout", (PyCFunction)(void (*)(void))dict_layout, METH_FASTCALL,                                       \
     "dict_layout(mirrored=None) -> bool: whether dicts are read and made through CPython's own tables (checked at " \
     "import); False keeps to the public API, True goes back to what the import check found (for tests)."},
