/* An implicit struct instance (B_IMPLICIT, docs/FORMAT.md 10.9) built by plan_build (_core_structs_decode.h)
 * as its Python reader builds it (serreg/structs/compile.py, build "dict"): object.__new__(cls), then its
 * __dict__ set to a new dict of the fields in the definition's order, past any __setattr__ or descriptor
 * (a frozen dataclass's reader fills the dict it has: the same contents).
 *
 * The instance is allocated as object.__new__ allocates it (the class's tp_alloc) when object.__new__ is
 * the class's and the class is not abstract (object.__new__ refuses those); object.__new__ would also
 * give it room for attribute values (CPython 3.11+), which setting __dict__ drops at once. The dict is a
 * copy of the plan's {name: None} with the values put in its entries (dict_copy_filled,
 * _core_dict_layout.h) where CPython's dict table is mirrored, else made item by item (PyDict_SetItem);
 * both give a dict of the names in order, each once (a name repeated keeps its last value, as a dict
 * display does). */

#define NOT_BUILT ((PyObject *)&StructPlanType) /* implicit_build: the class is not built here */

/* The instance's __dict__ from vals[0..n) (references stolen); NULL with an error on failure. */
static PyObject *implicit_state_dict(StructPlan *plan, PyObject **vals) {
    Py_ssize_t n = plan->n;
    PyObject *const *names = &PyTuple_GET_ITEM(plan->names, 0);
    if (plan->state_like == NULL) {
        PyObject *like = dict_like_of(names, n, 1);
        plan->state_like = like != NULL ? like : Py_NewRef(Py_None);
    }
    if (plan->state_like != Py_None) {
        PyObject *state = dict_copy_filled(plan->state_like, names, vals, n, 1);
        if (state != NULL) return state;
        if (PyErr_Occurred()) goto fail;
    }
    PyObject *state = _PyDict_NewPresized(n);
    if (state == NULL) goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PyDict_SetItem(state, names[i], vals[i]) < 0) {
            Py_DECREF(state);
            goto fail;
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) Py_DECREF(vals[i]);
    return state;
fail:
    for (Py_ssize_t i = 0; i < n; i++) Py_DECREF(vals[i]);
    return NULL;
}

/* An instance of plan's class (B_IMPLICIT) from its field values vals (references stolen), or NULL with
 * an error; NOT_BUILT (nothing stolen) for a class built otherwise (see the top of this file). */
static PyObject *implicit_build(StructPlan *plan, PyObject **vals) {
    PyTypeObject *cls = (PyTypeObject *)plan->cls;
    if (cls->tp_new != PyBaseObject_Type.tp_new || (cls->tp_flags & Py_TPFLAGS_IS_ABSTRACT) ||
        cls->tp_dictoffset == 0 || cls->tp_alloc == NULL)
        return NOT_BUILT;
    PyObject *state = implicit_state_dict(plan, vals);
    if (state == NULL) return NULL;
    PyObject *obj = cls->tp_alloc(cls, 0);
    if (obj != NULL && PyObject_GenericSetDict(obj, state, NULL) < 0) Py_CLEAR(obj);
    Py_DECREF(state);
    return obj;
}
