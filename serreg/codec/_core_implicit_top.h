/* One implicit struct instance at the top level (docs/FORMAT.md 10.9, class ID serreg.pyobjects), written
 * by serialize_top and read by unpack_top (_core_top.h) in one call each, from what the Python writer and
 * reader of serreg/implicit/ published after doing the same work themselves.
 *
 * Writing: the registry's Encoder publishes, per class, what its implicit attempt used for a top-level
 * instance of that class alone (publish_implicit: the snapshot, the class's plan, the walk's kinds, the
 * frame's head = the classes' bin, ClassIDHash("serreg.structs") and the one-definition table, and how
 * the class pickle is checked). serialize_top takes a value of such a class when the snapshot is the one
 * published under, none of the guard context variables is set (a whole-value attempt running, a
 * cross-language call, a struct table or implicit tables in force), the class pickle still holds (a class
 * written by reference still found under its module and qualified name, one written by value unchanged
 * since: same type version tag; checked in _core_implicit_class.h), and the walk (serreg/implicit/_walk_core.h) finds no object met twice,
 * every type known and no plain object but this one; the instance is then written from its plan, the
 * frame being ClassIDHash("serreg.pyobjects"), the head, the class's ClassIDHash and the instance array.
 *
 * Reading: the serreg.pyobjects reader publishes the prefix of the last frame it read whose value was
 * one instance of its one class (publish_implicit_read: everything up to the instance array), with the
 * snapshot, the class, how it is checked and the table's DecodeScope. unpack_top reads a serreg.pyobjects
 * section starting with that prefix, under that snapshot, its class still found by name if it was (the
 * last class found so is remembered while the dicts it was found through keep their versions), as the
 * reader does: the instance array as an ext 1 one level deep, read with the table's plans, the value of
 * that class.
 *
 * Anything else, and anything that goes wrong, gives NotImplemented: the full path writes or reads the
 * value (the same bytes and values) and words every error. */

enum { IW_SNAPSHOT, IW_PLAN, IW_KINDS, IW_HEAD, IW_QUALNAME, IW_CHECK, IW_SIZE };
enum { IR_SNAPSHOT, IR_PREFIX, IR_CLASS, IR_QUALNAME, IR_CHECK, IR_PLANS, IR_READERS, IR_LEAVES, IR_SIZE };
#define IMPLICIT_WRITES_MAX 64

/* 1 if none of the codec's guard context variables holds a value but None or False. */
static int implicit_unguarded(Codec *self) {
    PyObject *guards = self->implicit_guards;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(guards); i++) {
        PyObject *v;
        if (PyContextVar_Get(PyTuple_GET_ITEM(guards, i), NULL, &v) < 0) { PyErr_Clear(); return 0; }
        int off = v == NULL || v == Py_None || v == Py_False;
        Py_XDECREF(v);
        if (!off) return 0;
    }
    return 1;
}

/* 1 if obj's class is that of the entry serialize_top used last (its plan holds the class: the same
 * class, not another one at its address). */
static inline int implicit_met_last(Codec *self, PyObject *obj) {
    return self->implicit_last != NULL &&
           ((StructPlan *)PyTuple_GET_ITEM(self->implicit_last, IW_PLAN))->cls == (PyObject *)Py_TYPE(obj);
}

/* The plan of obj's class when serialize_top writes obj as the one implicit instance of its frame, and
 * the frame's head (*entry: the published entry, a new reference); NULL (no error set) otherwise. The
 * class check may run Python code (a module's __getattr__): *t is read again after it. The kinds of an
 * entry are a dict its writer never changes (serreg/implicit/writer.py), in which its class is plain
 * (checked when it was published): the walk is told so. */
static StructPlan *implicit_top_plan(Codec *self, Tables *t, PyObject *obj, PyObject **entry) {
    if (self->implicit_writes == NULL || self->implicit_guards == NULL || self->implicit_hash == NULL ||
        structs_hash == NULL)
        return NULL;
    PyTypeObject *cls = Py_TYPE(obj);
    PyObject *found = self->implicit_last;
    if (!implicit_met_last(self, obj)) {
        found = PyDict_GetItemWithError(self->implicit_writes, (PyObject *)cls);
        if (found != NULL) Py_XSETREF(self->implicit_last, Py_NewRef(found));
    }
    if (found == NULL || PyTuple_GET_ITEM(found, IW_SNAPSHOT) != self->cached_snapshot) {
        if (PyErr_Occurred()) PyErr_Clear();
        return NULL;
    }
    Py_INCREF(found); /* the class check below may run Python code (a module's __getattr__) */
    StructPlan *plan = (StructPlan *)PyTuple_GET_ITEM(found, IW_PLAN);
    PyObject *kinds = PyTuple_GET_ITEM(found, IW_KINDS), *unknown = NULL;
    WalkNames names = {cls, plan->names};
    if (!implicit_unguarded(self) ||
        !implicit_class_holds(cls, PyTuple_GET_ITEM(found, IW_QUALNAME), PyTuple_GET_ITEM(found, IW_CHECK)) ||
        top_tables(self, t) < 0 || PyTuple_GET_ITEM(found, IW_SNAPSHOT) != self->cached_snapshot ||
        walk_run(obj, kinds, NULL, &names, &unknown, cls) != WALK_OK) {
        if (PyErr_Occurred()) PyErr_Clear();
        Py_DECREF(found);
        return NULL;
    }
    *entry = found;
    return plan;
}

/* The frame of an implicit instance: ClassIDHash("serreg.pyobjects"), the entry's head, *hash (the
 * class's ClassIDHash, then replaced by serreg.pyobjects') and the instance array body[0..n). Its class's
 * definition is the head table's only one, index 0 without a table of the call's: a call that opened
 * one (another struct met) gets NULL, no error set. */
static PyObject *implicit_frame(Codec *self, Enc *e, PyObject *entry, PyObject **hash, const char *body, Py_ssize_t n) {
    PyObject *head = PyTuple_GET_ITEM(entry, IW_HEAD);
    if (e->scope_definitions != NULL && PyList_GET_SIZE(e->scope_definitions) != 0) return NULL;
    Py_ssize_t h = PyBytes_GET_SIZE(head);
    /* Written in place: the head, the class's hash and the instance array, each copied once. */
    PyObject *frame = section_frame(PyBytes_AS_STRING(self->implicit_hash), NULL, h + HASH_SIZE + n);
    if (frame != NULL) {
        char *out = PyBytes_AS_STRING(frame) + FRAME_HEADER + HASH_SIZE;
        memcpy(out, PyBytes_AS_STRING(head), h);
        memcpy(out + h, PyBytes_AS_STRING(*hash), HASH_SIZE);
        memcpy(out + h + HASH_SIZE, body, n);
        Py_SETREF(*hash, Py_NewRef(self->implicit_hash));
    }
    return frame;
}

/* What a top-level implicit instance's array is read as: an instance of cls, by one of plans. */
typedef struct {
    PyTypeObject *cls;
    PyObject *plans;
} ImplicitTop;

/* The instance of arg's class from its decoded array items[0..n) ([index, values...]) when the index is
 * that of a plan of the class and the values are its fields: the items are then taken (*taken), the
 * values given to the instance. NULL otherwise: no error set and nothing taken when the array is not
 * such, an error (all taken) when the instance could not be made. Made by plan_build as the struct reader
 * makes an instance whose fields its plan checks (build_checked). */
static PyObject *implicit_instance(const void *arg, PyObject **items, Py_ssize_t n, int *taken) {
    const ImplicitTop *top = arg;
    if (n < 1 || !PyLong_CheckExact(items[0])) return NULL;
    Py_ssize_t index = PyLong_AsSsize_t(items[0]);
    if (index < 0 || index >= PyList_GET_SIZE(top->plans)) {
        PyErr_Clear();
        return NULL;
    }
    StructPlan *plan = (StructPlan *)PyList_GET_ITEM(top->plans, index);
    if (!IS_PLAN(plan) || plan->cls != (PyObject *)top->cls || n != plan->n + 1 || !plan->c_checked) return NULL;
    for (Py_ssize_t k = 0; k < plan->n; k++) {
        if (plan->fields[k].code != FT_ANY && !value_fits(&plan->fields[k], items[k + 1])) return NULL;
    }
    *taken = 1;
    Py_DECREF(items[0]);
    PyObject *obj = plan_build(plan, items + 1); /* takes the values */
    if (obj != NULL && Py_TYPE(obj) != top->cls) Py_CLEAR(obj); /* (not plain: no error set) */
    return obj;
}

/* The value of a serreg.pyobjects section p[0..n) (after its ClassIDHash) that starts with the prefix
 * published by its reader; NotImplemented otherwise. */
static PyObject *unpack_implicit(Codec *self, Tables *t, const unsigned char *p, Py_ssize_t n, long long max_depth) {
    PyObject *entry = self->implicit_read;
    if (entry == NULL || decode_scope_var == NULL || max_depth == 0 ||
        PyTuple_GET_ITEM(entry, IR_SNAPSHOT) != self->cached_snapshot)
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *prefix = PyTuple_GET_ITEM(entry, IR_PREFIX);
    Py_ssize_t k = PyBytes_GET_SIZE(prefix), m = n - k;
    if (m < 1 || memcmp(p, PyBytes_AS_STRING(prefix), k) != 0) Py_RETURN_NOTIMPLEMENTED;
    PyObject *scope;
    if (PyContextVar_Get(decode_scope_var, NULL, &scope) < 0) {
        PyErr_Clear();
        Py_RETURN_NOTIMPLEMENTED;
    }
    int in_scope = scope != NULL && scope != Py_None;
    Py_XDECREF(scope);
    if (in_scope) Py_RETURN_NOTIMPLEMENTED; /* inside another table's reading: the full path */
    Py_INCREF(entry); /* the class check may run Python code */
    PyTypeObject *cls = (PyTypeObject *)PyTuple_GET_ITEM(entry, IR_CLASS);
    PyObject *qualname = PyTuple_GET_ITEM(entry, IR_QUALNAME), *value = NULL;
    Tables now; /* the class check may run Python code (a module's __getattr__): the tables read again after it */
    if ((qualname != Py_None && !implicit_found_by_name(cls, qualname, PyTuple_GET_ITEM(entry, IR_CHECK), 1)) ||
        top_tables(self, &now) < 0 || PyTuple_GET_ITEM(entry, IR_SNAPSHOT) != self->cached_snapshot)
        goto done;
    t = &now;
    /* The instance array read as the reader reads the ext 1 holding it (one level deep, its items two), with
       the table's plans, readers and leaves given to the decoder, not its DecodeScope set (no table is in
       scope, checked above): whatever would read the scope itself (the pure codec, a Python reader of a
       list of instances) finds none and fails, and the full path then reads the frame. The instance is
       made from the array's items once they are read (implicit_instance), with no list in between. */
    PyObject *const *lists = &PyTuple_GET_ITEM(entry, IR_PLANS);
    if (max_depth >= 0 && max_depth < 2) {
        value = Py_NewRef(Py_NotImplemented); /* refused by the full path */
        goto done;
    }
    ImplicitTop top = {cls, lists[0]};
    TopBuild build = {implicit_instance, &top};
    value = struct_value(self, t, p + k, m, 2, max_depth, lists, &build);
    if (value != NULL && value != Py_NotImplemented && Py_TYPE(value) != cls) Py_SETREF(value, Py_NewRef(Py_NotImplemented));
done:
    Py_DECREF(entry);
    if (value != NULL) return value;
    if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_Exception)) return NULL;
    PyErr_Clear(); /* the full path reads it again and words the refusal */
    Py_RETURN_NOTIMPLEMENTED;
}

/* bind_implicit(ClassIDHash("serreg.pyobjects"), guards: tuple of context variables) */
static PyObject *Codec_bind_implicit(Codec *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyBytes_CheckExact(args[0]) || PyBytes_GET_SIZE(args[0]) != HASH_SIZE ||
        !PyTuple_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "bind_implicit(pyobjects_hash: 8 bytes, guards: tuple of ContextVar)");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args[1]); i++) {
        if (!PyContextVar_CheckExact(PyTuple_GET_ITEM(args[1], i))) {
            PyErr_SetString(PyExc_TypeError, "bind_implicit: guards must be ContextVars");
            return NULL;
        }
    }
    Py_XSETREF(self->implicit_hash, Py_NewRef(args[0]));
    Py_XSETREF(self->implicit_guards, Py_NewRef(args[1]));
    Py_RETURN_NONE;
}

/* publish_implicit(cls, snapshot, plan, kinds, head, by_name) publishes the class's entry; publish_implicit(None)
 * forgets them all. */
static PyObject *Codec_publish_implicit(Codec *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs == 1 && args[0] == Py_None) {
        Py_CLEAR(self->implicit_writes);
        Py_CLEAR(self->implicit_last);
        Py_RETURN_NONE;
    }
    if (nargs != 6 || !PyType_Check(args[0]) || !IS_PLAN(args[2]) || !PyDict_CheckExact(args[3]) ||
        !PyBytes_CheckExact(args[4]) || ((StructPlan *)args[2])->cls != args[0] ||
        ((StructPlan *)args[2])->build != B_IMPLICIT ||
        ((StructPlan *)args[2])->class_hash == NULL || !PyBytes_CheckExact(((StructPlan *)args[2])->class_hash) ||
        PyBytes_GET_SIZE(((StructPlan *)args[2])->class_hash) != HASH_SIZE) {
        PyErr_SetString(PyExc_TypeError, "publish_implicit(cls, snapshot, implicit plan of cls, kinds: dict, "
                                         "head: bytes, by_name) or publish_implicit(None)");
        return NULL;
    }
    int by_name = PyObject_IsTrue(args[5]);
    if (by_name < 0) return NULL;
    PyObject *kind = PyDict_GetItemWithError(args[3], args[0]);
    if (kind == NULL && PyErr_Occurred()) return NULL;
    if (kind == NULL || !PyLong_CheckExact(kind) || PyLong_AsLong(kind) != WALK_PLAIN) {
        if (PyErr_Occurred()) return NULL;
        Py_RETURN_NONE; /* not a plain class in its kinds (the walk would give it up): not published */
    }
    PyObject *kept = self->implicit_writes == NULL ? NULL : PyDict_GetItemWithError(self->implicit_writes, args[0]);
    if (kept == NULL && PyErr_Occurred()) return NULL;
    if (kept != NULL && PyTuple_GET_ITEM(kept, IW_SNAPSHOT) == args[1] && PyTuple_GET_ITEM(kept, IW_PLAN) == args[2] &&
        PyTuple_GET_ITEM(kept, IW_KINDS) == args[3] && PyTuple_GET_ITEM(kept, IW_HEAD) == args[4] &&
        (PyTuple_GET_ITEM(kept, IW_QUALNAME) != Py_None) == by_name &&
        (by_name ? PyTuple_GET_ITEM(kept, IW_QUALNAME) == ((PyHeapTypeObject *)args[0])->ht_qualname
                 : implicit_class_holds((PyTypeObject *)args[0], Py_None, PyTuple_GET_ITEM(kept, IW_CHECK))))
        Py_RETURN_NONE; /* published already, as it is (the full path wrote a value the one call left to it) */
    PyObject *check = implicit_check_of((PyTypeObject *)args[0], by_name);
    if (check == NULL) {
        if (PyErr_Occurred()) return NULL;
        Py_RETURN_NONE; /* no version tag to check it by: the full path writes its instances */
    }
    PyObject *entry = PyTuple_Pack(IW_SIZE, args[1], args[2], args[3], args[4], PyTuple_GET_ITEM(check, 0),
                                   PyTuple_GET_ITEM(check, 1));
    Py_DECREF(check);
    if (entry == NULL) return NULL;
    /* Replaced whole, bounded: entries of an older snapshot are dropped with it. */
    PyObject *writes = PyDict_New();
    int failed = writes == NULL;
    if (!failed && self->implicit_writes != NULL && PyDict_GET_SIZE(self->implicit_writes) < IMPLICIT_WRITES_MAX) {
        Py_ssize_t pos = 0;
        PyObject *key, *kept;
        while (!failed && PyDict_Next(self->implicit_writes, &pos, &key, &kept)) {
            if (PyTuple_GET_ITEM(kept, IW_SNAPSHOT) == args[1]) failed = PyDict_SetItem(writes, key, kept) < 0;
        }
    }
    if (!failed) failed = PyDict_SetItem(writes, args[0], entry) < 0;
    Py_DECREF(entry);
    if (failed) {
        Py_XDECREF(writes);
        return NULL;
    }
    Py_XSETREF(self->implicit_writes, writes);
    Py_CLEAR(self->implicit_last);
    Py_RETURN_NONE;
}

/* publish_implicit_read(snapshot, prefix, cls, by_name, scope), or publish_implicit_read(None) */
static PyObject *Codec_publish_implicit_read(Codec *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs == 1 && args[0] == Py_None) {
        Py_CLEAR(self->implicit_read);
        Py_RETURN_NONE;
    }
    if (nargs != 5 || !PyBytes_CheckExact(args[1]) || !PyType_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "publish_implicit_read(snapshot, prefix: bytes, cls, by_name, scope) or "
                                         "publish_implicit_read(None)");
        return NULL;
    }
    int by_name = PyObject_IsTrue(args[3]);
    if (by_name < 0) return NULL;
    PyObject *check = by_name ? implicit_check_of((PyTypeObject *)args[2], 1) : Py_BuildValue("(OO)", Py_None, Py_None);
    if (check == NULL) {
        if (PyErr_Occurred()) return NULL;
        Py_CLEAR(self->implicit_read);
        Py_RETURN_NONE;
    }
    PyObject *plans = PyObject_GetAttr(args[4], str_plans), *readers = PyObject_GetAttr(args[4], str_readers),
             *leaves = PyObject_GetAttr(args[4], str_leaves), *entry = NULL;
    if (plans != NULL && readers != NULL && leaves != NULL) {
        if (PyList_CheckExact(plans) && PyList_CheckExact(readers) && PyList_CheckExact(leaves) &&
            PyList_GET_SIZE(plans) == PyList_GET_SIZE(readers))
            entry = PyTuple_Pack(IR_SIZE, args[0], args[1], args[2], PyTuple_GET_ITEM(check, 0),
                                 PyTuple_GET_ITEM(check, 1), plans, readers, leaves);
        else
            PyErr_SetString(PyExc_TypeError, "publish_implicit_read: scope's plans, readers and leaves are lists");
    }
    Py_DECREF(check);
    Py_XDECREF(plans);
    Py_XDECREF(readers);
    Py_XDECREF(leaves);
    if (entry == NULL) return NULL;
    Py_XSETREF(self->implicit_read, entry);
    Py_RETURN_NONE;
}

#define IMPLICIT_TOP_METHODS                                                                                       \
    {"bind_implicit", (PyCFunction)(void (*)(void))Codec_bind_implicit, METH_FASTCALL,                             \
     "bind_implicit(pyobjects_hash, guards): ClassIDHash('serreg.pyobjects'), and the context variables that keep " \
     "serialize_top from writing an implicit instance while one holds anything but None or False."},                \
    {"publish_implicit", (PyCFunction)(void (*)(void))Codec_publish_implicit, METH_FASTCALL,                       \
     "publish_implicit(cls, snapshot, plan, kinds, head, by_name): what serialize_top writes a top-level instance " \
     "of cls with (see _core_implicit_top.h); publish_implicit(None) forgets every class."},                        \
    {"publish_implicit_read", (PyCFunction)(void (*)(void))Codec_publish_implicit_read, METH_FASTCALL,             \
     "publish_implicit_read(snapshot, prefix, cls, by_name, scope): the serreg.pyobjects frames unpack_top reads " \
     "(see _core_implicit_top.h); publish_implicit_read(None) forgets it."},
