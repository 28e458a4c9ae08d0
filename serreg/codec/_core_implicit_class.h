/* Whether the class pickle of an implicit struct instance's class (serreg/implicit/class_pickles.py) still
 * holds, for _core_implicit_top.h: a class written by reference is still what its module and qualified
 * name lead to (found_by_name; on CPython before 3.12 the last class found so is remembered while the
 * dicts it was found through keep their versions), one written by value still has the version tag it
 * was published with. implicit_check_of makes the check a class is published with. */

static PyObject *str_module_attr, *str_modules, *str_dot;
static PyObject *sys_dict; /* the sys module's namespace, where sys.modules is looked up (as Python code does) */

/* getattr(owner, name) as a new reference; NULL, error set, when absent. A plain module's own global is
 * read from its namespace (no data descriptor of the module type has a name without two leading
 * underscores; anything else goes through getattr, __getattr__ hooks included). */
static PyObject *implicit_attribute(PyObject *owner, PyObject *name) {
    if (PyModule_CheckExact(owner) && PyUnicode_GET_LENGTH(name) > 0 && PyUnicode_READ_CHAR(name, 0) != '_') {
        PyObject *found = PyDict_GetItemWithError(PyModule_GetDict(owner), name);
        if (found != NULL) return Py_NewRef(found);
        if (PyErr_Occurred()) return NULL;
    }
    return PyObject_GetAttr(owner, name);
}

#if PY_VERSION_HEX < 0x030C0000
/* The last class found by name at the top of its module, per use (0 writing, 1 reading): found again
 * without a look-up while none of the dicts it was found through changed (a dict's version is given to
 * no other dict state, so equal versions mean the same contents; each dict is kept alive by the one
 * before it, checked first). */
typedef struct {
    PyTypeObject *cls;
    PyObject *qualname, *modules, *module_dict;
    uint64_t type_version, sys_version, modules_version, module_version;
} NameMemo;
static NameMemo name_memo[2];
#define DICT_VERSION(d) (((PyDictObject *)(d))->ma_version_tag)
#endif

/* Whether cls is still what its module and qualified name lead to (serreg/implicit/class_pickles.py,
 * found_by_name): parts is qualname split at its dots. 1 yes, 0 no or an error (cleared). */
static int implicit_found_by_name(PyTypeObject *cls, PyObject *qualname, PyObject *parts, int use) {
    if (!(cls->tp_flags & Py_TPFLAGS_HEAPTYPE)) return 0;
    PyObject *now = ((PyHeapTypeObject *)cls)->ht_qualname;
#if PY_VERSION_HEX < 0x030C0000
    NameMemo *memo = &name_memo[use];
    if (memo->cls == cls && memo->qualname == now && DICT_VERSION(cls->tp_dict) == memo->type_version &&
        DICT_VERSION(sys_dict) == memo->sys_version && DICT_VERSION(memo->modules) == memo->modules_version &&
        DICT_VERSION(memo->module_dict) == memo->module_version)
        return 1;
#endif
    if (now != qualname && (!PyUnicode_CheckExact(now) || PyUnicode_Compare(now, qualname) != 0)) {
        if (PyErr_Occurred()) PyErr_Clear();
        return 0;
    }
    PyObject *name = PyDict_GetItemWithError(cls->tp_dict, str_module_attr); /* cls.__module__ */
    PyObject *modules = name == NULL ? NULL : PyDict_GetItemWithError(sys_dict, str_modules); /* sys.modules */
    PyObject *found = modules == NULL || !PyDict_CheckExact(modules) ? NULL : PyDict_GetItemWithError(modules, name);
    if (found == NULL) {
        if (PyErr_Occurred()) PyErr_Clear();
        return 0;
    }
    /* Held: a module's __getattr__ may run while its globals are read, and change anything. */
    PyObject *module = Py_NewRef(found);
    Py_INCREF(name);
    Py_INCREF(found);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(parts) && found != NULL; i++)
        Py_SETREF(found, implicit_attribute(found, PyTuple_GET_ITEM(parts, i)));
    int same = found == (PyObject *)cls;
    Py_XDECREF(found);
    if (PyErr_Occurred()) PyErr_Clear();
#if PY_VERSION_HEX < 0x030C0000
    PyObject *global = PyTuple_GET_SIZE(parts) != 1 ? NULL : PyTuple_GET_ITEM(parts, 0);
    if (same && global != NULL && PyModule_CheckExact(module) && PyUnicode_GET_LENGTH(global) > 0 &&
        PyUnicode_READ_CHAR(global, 0) != '_' && PyDict_CheckExact(cls->tp_dict) && PyDict_CheckExact(sys_dict) &&
        PyDict_GetItemWithError(cls->tp_dict, str_module_attr) == name &&
        (modules = PyDict_GetItemWithError(sys_dict, str_modules)) != NULL && PyDict_CheckExact(modules) &&
        PyDict_GetItemWithError(modules, name) == module &&
        PyDict_GetItemWithError(PyModule_GetDict(module), global) == (PyObject *)cls) {
        /* found in the module's namespace (implicit_attribute's first way), through dicts looked in again
           here (nothing runs between these look-ups and the versions taken), which the memo then watches */
        memo->cls = cls;
        memo->qualname = now;
        memo->modules = modules;
        memo->module_dict = PyModule_GetDict(module);
        memo->type_version = DICT_VERSION(cls->tp_dict);
        memo->sys_version = DICT_VERSION(sys_dict);
        memo->modules_version = DICT_VERSION(modules);
        memo->module_version = DICT_VERSION(memo->module_dict);
    }
    if (PyErr_Occurred()) PyErr_Clear();
#endif
    Py_DECREF(module);
    Py_DECREF(name);
    return same;
}

/* Whether the class pickle of an entry still holds: qualname None: check is the class's version tag
 * (written by value); else check is qualname's parts (written by reference). */
static int implicit_class_holds(PyTypeObject *cls, PyObject *qualname, PyObject *check) {
    if (qualname != Py_None) return implicit_found_by_name(cls, qualname, check, 0);
    if (!(cls->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG)) return 0;
    unsigned long tag = PyLong_AsUnsignedLong(check);
    if (tag == (unsigned long)-1 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
    return tag == cls->tp_version_tag;
}

/* (qualname, parts) of a class checked by name, (None, version tag) of one checked by its attributes;
 * NULL with no error set: its version tag cannot be had (it is not published). */
static PyObject *implicit_check_of(PyTypeObject *cls, int by_name) {
    if (by_name) {
        if (!(cls->tp_flags & Py_TPFLAGS_HEAPTYPE)) return NULL;
        PyObject *qualname = ((PyHeapTypeObject *)cls)->ht_qualname;
        PyObject *parts = PyUnicode_Split(qualname, str_dot, -1), *list = parts;
        if (parts != NULL) parts = PyList_AsTuple(list);
        Py_XDECREF(list);
        if (parts == NULL) return NULL;
        return Py_BuildValue("(ON)", qualname, parts);
    }
    if (_PyType_Lookup(cls, str_module_attr) == NULL && PyErr_Occurred()) return NULL; /* gives it a tag */
    if (!(cls->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG)) return NULL;
    return Py_BuildValue("(Ok)", Py_None, (unsigned long)cls->tp_version_tag);
}

static int implicit_module_init(void) {
    if ((str_module_attr = PyUnicode_InternFromString("__module__")) == NULL) return -1;
    if ((str_modules = PyUnicode_InternFromString("modules")) == NULL) return -1;
    if ((str_dot = PyUnicode_InternFromString(".")) == NULL) return -1;
    PyObject *sys = PyImport_ImportModule("sys");
    if (sys == NULL) return -1;
    sys_dict = Py_NewRef(PyModule_GetDict(sys));
    Py_DECREF(sys);
    return 0;
}
