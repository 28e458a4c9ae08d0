/* Compiled fast path of serreg/codec/scan.py: does a list/dict tree hold a value of one of
 * the given exact types?  msgpack packs bytearray and memoryview as plain bin without
 * asking, so the codec must know whether a tree holds one before packing it.  Same
 * answers as the pure-Python scan.py (the tests run both). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define MAX_DEPTH 2000
/* Deeper than this the C recursion stops and the pure-Python scan (iterative, same answers)
 * takes the whole tree: each C level costs stack, and this scan runs inside deserialize calls
 * that may already be ~100 nested values deep on a thread with a 256 KiB stack. */
#define C_MAX_DEPTH 48
#define TOO_DEEP_FOR_C 2
static PyObject *python_scan = NULL;

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
    if (depth > C_MAX_DEPTH) return TOO_DEEP_FOR_C;
    if (type == &PyList_Type) {
        if (is_special(type, special)) return 1;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(obj); i++) {
            int r = check_item(PyList_GET_ITEM(obj, i), special, depth);
            if (r) return r;
        }
        return 0;
    }
    if (type == &PyDict_Type) {
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        if (is_special(type, special)) return 1;
        while (PyDict_Next(obj, &pos, &key, &value)) {
            int r = check_item(key, special, depth);
            if (!r) r = check_item(value, special, depth);
            if (r) return r;
        }
        return 0;
    }
    return is_special(type, special);
}

static PyObject *holds_any(PyObject *self, PyObject *args) {
    PyObject *obj, *special;
    if (!PyArg_ParseTuple(args, "OO!", &obj, &PyTuple_Type, &special)) return NULL;
    int r = holds(obj, special, 0);
    if (r == TOO_DEEP_FOR_C) {
        if (python_scan == NULL) Py_RETURN_TRUE; /* the slow path reports it */
        return PyObject_CallFunctionObjArgs(python_scan, obj, special, NULL);
    }
    return PyBool_FromLong(r);
}

static PyObject *set_fallback(PyObject *self, PyObject *scan) {
    Py_XINCREF(scan);
    Py_XSETREF(python_scan, scan);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"holds_any", holds_any, METH_VARARGS,
     "holds_any(obj, types: tuple) -> bool: does the list/dict tree obj hold a value whose exact type is in types?"},
    {"set_fallback", set_fallback, METH_O, "set_fallback(scan): the scan holds_any hands trees deeper than its C recursion to"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "serreg.codec._scan", NULL, -1, methods};

PyMODINIT_FUNC PyInit__scan(void) { return PyModule_Create(&module); }
