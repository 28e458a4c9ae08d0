/* The frame's struct table (EncodeScope) as the struct writers (_core_structs_encode.h,
 * _core_structs_list_encode.h) use it: opened at a pack's start, a definition's index looked up
 * (added on first use, as the Python writer does), and what a call added forgotten when the call
 * goes to the pure codec. */

/* The frame's struct table at the start of a call (none: structs are left to the pure codec, which
 * says they need one), and how many definitions it holds then. */
static int enc_scope_open(Enc *e) {
    if (encode_scope_var == NULL) return 0;
    PyObject *scope;
    if (PyContextVar_Get(encode_scope_var, NULL, &scope) < 0) return -1;
    if (scope == NULL || scope == Py_None) { Py_XDECREF(scope); return 0; }
    PyObject *definitions = PyObject_GetAttr(scope, str_definitions);
    if (definitions == NULL || !PyList_CheckExact(definitions)) {
        Py_XDECREF(definitions);
        Py_DECREF(scope);
        PyErr_Clear();
        return 0;
    }
    e->scope = scope;
    e->scope_definitions = definitions;
    e->definitions_before = PyList_GET_SIZE(definitions);
    return 0;
}

/* The table's index (definition key -> index), read at the first struct of the call. */
static int enc_scope(Enc *e) {
    if (e->scope_index != NULL) return 0;
    if (e->scope == NULL) return -2;
    PyObject *index = PyObject_GetAttr(e->scope, str_index);
    if (index == NULL) return -1;
    if (!PyDict_CheckExact(index)) { Py_DECREF(index); return -2; }
    e->scope_index = index;
    return 0;
}

/* Forget the definitions added during a call handed to the pure codec: it adds them again in the
 * order it meets them (the members of a set field before the struct's other fields). */
static void enc_scope_undo(Enc *e) {
    if (e->scope_definitions == NULL || PyList_GET_SIZE(e->scope_definitions) <= e->definitions_before) return;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    Py_ssize_t before = e->definitions_before;
    PyObject *index = e->scope_index != NULL ? Py_NewRef(e->scope_index) : PyObject_GetAttr(e->scope, str_index);
    PyObject *added = PyList_New(0);
    if (index != NULL && PyDict_CheckExact(index) && added != NULL) {
        Py_ssize_t pos = 0;
        PyObject *key, *at;
        while (PyDict_Next(index, &pos, &key, &at)) {
            if (PyLong_Check(at) && PyLong_AsSsize_t(at) >= before && PyList_Append(added, key) < 0) break;
        }
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(added); i++) PyDict_DelItem(index, PyList_GET_ITEM(added, i));
    }
    PyList_SetSlice(e->scope_definitions, before, PY_SSIZE_T_MAX, NULL);
    Py_XDECREF(index);
    Py_XDECREF(added);
    PyErr_Clear();
    PyErr_Restore(type, value, tb);
}

/* The index of plan's definition in the frame's table (added on first use) into *at. */
static int enc_definition_index(Enc *e, StructPlan *plan, long long *at) {
    if (plan == e->index_plan) {
        *at = e->index;
        return 0;
    }
    int r;
    if ((r = enc_scope(e)) < 0) return r;
    PyObject *index = PyDict_GetItemWithError(e->scope_index, plan->key);
    if (index == NULL) {
        if (PyErr_Occurred()) return -1;
        if (e->scope == NULL) { /* serialize_top's own table (top_structs_open) */
            Py_ssize_t n = PyList_GET_SIZE(e->scope_definitions);
            if (n >= 65535) return -2; /* the limit of a table: the full path says so */
            if ((index = PyLong_FromSsize_t(n)) == NULL) return -1;
            if (PyDict_SetItem(e->scope_index, plan->key, index) < 0 ||
                PyList_Append(e->scope_definitions, plan->definition) < 0) {
                Py_DECREF(index);
                return -1;
            }
        } else {
            index = PyObject_CallMethodObjArgs(e->scope, str_add, plan->key, plan->definition, NULL);
            if (index == NULL) return -1;
        }
    } else {
        Py_INCREF(index);
    }
    long long found = PyLong_Check(index) ? PyLong_AsLongLong(index) : -1;
    Py_DECREF(index);
    if (found < 0) { PyErr_Clear(); return -2; }
    e->index_plan = plan;
    e->index = *at = found;
    return 0;
}
