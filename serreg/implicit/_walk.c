/* Compiled twin of serreg/implicit/walk.py (walk_python): the same answers, in C.
 *
 * walk(obj, kinds) answers (0, {class: field names}) when no object is met twice and every type is
 * known, (1, None) to give up, or (2, obj) for an object of a type `kinds` does not list. The walk
 * itself is _walk_core.h, which the codec's entry of one implicit struct instance shares
 * (serreg/codec/_core_implicit_top.h). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include "_walk_core.h"

static PyObject *walk(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyDict_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "walk(obj, kinds: dict)");
        return NULL;
    }
    PyObject *found = PyDict_New(), *unknown = NULL;
    if (found == NULL) return NULL;
    WalkNames last_names = {NULL, NULL};
    int status = walk_run(args[0], args[1], found, &last_names, &unknown, NULL);
    if (status < 0) {
        Py_DECREF(found);
        return NULL;
    }
    if (status == WALK_OK) return Py_BuildValue("(iN)", WALK_OK, found);
    Py_DECREF(found);
    return Py_BuildValue("(iO)", status, status == WALK_UNKNOWN ? unknown : Py_None);
}

static PyMethodDef methods[] = {
    {"walk", (PyCFunction)(void (*)(void))walk, METH_FASTCALL,
     "walk(obj, kinds) -> (status, answer): see serreg/implicit/walk.py."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "serreg.implicit._walk", NULL, -1, methods};

PyMODINIT_FUNC PyInit__walk(void) { return PyModule_Create(&module); }
