/* Compiled fast path of serreg/codec/scan.py: does a list/dict tree hold a value of one of
 * the given exact types?  msgpack packs bytearray and memoryview as plain bin without
 * asking, so the codec must know whether a tree holds one before packing it.  Same
 * answers as the pure-Python scan.py (the tests run both). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define MAX_DEPTH 2000

static int is_special(PyTypeObject *type, PyObject *special) {
    Py_ssize_t n = PyTuple_GET_SIZE(special);
    for (Py_ssize_t i = 0; i < n; i++) {
        if ((PyObject *)type == PyTuple_GET_ITEM(special, i)) return 1;
    }
    return 0;
}

static int holds(PyObject *obj, PyObject *special, int depth);

static int check_item(PyObject *item, PyObject *special, int depth) {
    PyTypeObject *type = Py_TYPE(item);
    if (type == &PyList_Type || type == &PyDict_Type) return holds(item, special, depth + 1);
    return is_special(type, special);
}

static int holds(PyObject *obj, PyObject *special, int depth) {
    PyTypeObject *type = Py_TYPE(obj);
    if (depth > MAX_DEPTH) return 1; /* too deep or cyclic: let the slow path report it */
    if (type == &PyList_Type) {
        if (is_special(type, special)) return 1;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(obj); i++) {
            if (check_item(PyList_GET_ITEM(obj, i), special, depth)) return 1;
        }
        return 0;
    }
    if (type == &PyDict_Type) {
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        if (is_special(type, special)) return 1;
        while (PyDict_Next(obj, &pos, &key, &value)) {
            if (check_item(key, special, depth) || check_item(value, special, depth)) return 1;
        }
        return 0;
    }
    return is_special(type, special);
}

static PyObject *holds_any(PyObject *self, PyObject *args) {
    PyObject *obj, *special;
    if (!PyArg_ParseTuple(args, "OO!", &obj, &PyTuple_Type, &special)) return NULL;
    return PyBool_FromLong(holds(obj, special, 0));
}

static PyMethodDef methods[] = {
    {"holds_any", holds_any, METH_VARARGS,
     "holds_any(obj, types: tuple) -> bool: does the list/dict tree obj hold a value whose exact type is in types?"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "serreg.codec._scan", NULL, -1, methods};

PyMODINIT_FUNC PyInit__scan(void) { return PyModule_Create(&module); }
