/* StructPlan of serreg/codec/_core.c: one registered struct class as the C codec writes and reads it
 * (docs/FORMAT.md, section 10).
 *
 * Made once per class by serreg/structs/plan.py from the class's field types. The codec writes an
 * instance of the class as ext 1 from it (struct_encode.h) and builds instances of a definition equal
 * to the class's own from it (struct_decode.h). Called like a function, a plan is the class's Python
 * ext 1 writer (the pure codec calls it so).
 *
 * A field type is a tree of TNodes: a code (FT_*), for enums the Enum class, for nested structs the
 * class ID, and the item types of containers. */

enum {
    FT_BOOL = 1, FT_INT8, FT_INT16, FT_INT32, FT_INT64, FT_UINT8, FT_UINT16, FT_UINT32, FT_UINT64,
    FT_FLOAT32, FT_FLOAT64, FT_STR, FT_BYTES, FT_ENUM, FT_ANY, FT_STANDARD, FT_STRUCT,
    FT_OPTIONAL, FT_LIST, FT_SET, FT_MAP, FT_TUPLE, FT_LAST
};
/* How instances are built: fill __dict__, set slots, a tuple subclass, or B_CALL: the class called
   with the fields as keyword arguments (a class only its constructor makes, a msgspec Struct).
   B_IMPLICIT: an implicit struct (docs/FORMAT.md 10.9), its fields read from and put into its
   __dict__ itself, past any descriptor, as pickle does. */
enum { B_DICT = 0, B_SLOTS = 1, B_TUPLE = 2, B_CALL = 3, B_IMPLICIT = 4 };
#define MAX_TYPE_NODES 4096

typedef struct TNode {
    int code, nargs;
    long long low;             /* integer widths: the range */
    unsigned long long high;
    PyObject *ref;             /* FT_ENUM: the Enum class; FT_STRUCT: the class ID; FT_STANDARD: the exact type, if any */
    struct TNode *args;
} TNode;

typedef struct {
    PyObject_HEAD
    PyObject *writer;      /* the Python ext 1 writer: writer(obj, state) */
    PyObject *key;         /* the definition's key in a frame's EncodeScope (its packed bytes) */
    PyObject *definition;  /* the packed definition */
    PyObject *class_id, *cls;
    PyObject *class_hash;  /* ClassIDHash(class_id): a top-level instance's inner section (serialize_top), or None */
    PyObject *names;       /* tuple of interned field names */
    PyObject *converters;  /* tuple: the Python field writers, convert(value, state) (they word the errors) */
    PyObject *setters;     /* tuple: per field a descriptor whose __set__ fills it, or None (B_SLOTS) */
    Py_ssize_t n;
    int build, pure_leaf, c_leaf;
    int c_checked; /* every field's decoded value is checked here and kept as is (scalars, any, lists and maps of them) */
    TNode *fields;
    /* Fields held in slots (member descriptors): their offsets, read directly while the class's
       version tag is the one they were found under (a changed class is read through getattr). */
    Py_ssize_t *offsets;
    unsigned int version_tag;
    /* B_IMPLICIT: no field name is a data descriptor of the class (as of version_tag), so setting the
       attribute puts it into the instance's own attributes exactly as filling its __dict__ would. */
    int implicit_direct;
    /* B_IMPLICIT: {name: None} in the fields' order, copied for each instance's __dict__ (_core_implicit_build.h);
       Py_None when its table is not laid out as mirrored; NULL until the first instance is built. */
    PyObject *state_like;
} StructPlan;

static PyTypeObject StructPlanType;
#define IS_PLAN(o) (Py_TYPE(o) == &StructPlanType)

static void tnode_clear(TNode *t) {
    for (int i = 0; i < t->nargs; i++) tnode_clear(&t->args[i]);
    PyMem_Free(t->args);
    t->args = NULL;
    t->nargs = 0;
    Py_CLEAR(t->ref);
}

static int tnode_visit(TNode *t, visitproc visit, void *arg) {
    Py_VISIT(t->ref);
    for (int i = 0; i < t->nargs; i++) {
        int r = tnode_visit(&t->args[i], visit, arg);
        if (r) return r;
    }
    return 0;
}

/* A node from (code, ref, (item nodes...)); -1 with TypeError if malformed. */
static int tnode_parse(TNode *t, PyObject *spec, int depth, int *budget) {
    memset(t, 0, sizeof *t);
    if (depth > 64 || --*budget < 0 || !PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) != 3 ||
        !PyLong_Check(PyTuple_GET_ITEM(spec, 0)) || !PyTuple_Check(PyTuple_GET_ITEM(spec, 2))) {
        PyErr_SetString(PyExc_TypeError, "a StructPlan field type is (code, ref, (item types...))");
        return -1;
    }
    long code = PyLong_AsLong(PyTuple_GET_ITEM(spec, 0));
    if (code < FT_BOOL || code >= FT_LAST) {
        PyErr_Format(PyExc_TypeError, "unknown StructPlan type code %ld", code);
        return -1;
    }
    t->code = (int)code;
    static const int bits[] = {8, 16, 32, 64};
    if (code >= FT_INT8 && code <= FT_INT64) {
        int b = bits[code - FT_INT8];
        t->high = b == 64 ? (unsigned long long)LLONG_MAX : (1ULL << (b - 1)) - 1;
        t->low = b == 64 ? LLONG_MIN : -(long long)(1ULL << (b - 1));
    } else if (code >= FT_UINT8 && code <= FT_UINT64) {
        int b = bits[code - FT_UINT8];
        t->high = b == 64 ? ULLONG_MAX : (1ULL << b) - 1;
        t->low = 0;
    }
    PyObject *ref = PyTuple_GET_ITEM(spec, 1), *items = PyTuple_GET_ITEM(spec, 2);
    if (ref != Py_None) t->ref = Py_NewRef(ref);
    Py_ssize_t n = PyTuple_GET_SIZE(items);
    if (n == 0) return 0;
    t->args = PyMem_Calloc(n, sizeof(TNode));
    if (t->args == NULL) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < n; i++) {
        t->nargs = (int)i + 1;
        if (tnode_parse(&t->args[i], PyTuple_GET_ITEM(items, i), depth + 1, budget) < 0) return -1;
    }
    return 0;
}

/* A scalar the C codec checks and reads straight from the bytes. */
static inline int is_c_scalar(int code) { return code >= FT_BOOL && code <= FT_BYTES; }

/* A field type whose decoded value the C reader checks and keeps as is: what its Python reader
 * would return for it is the same value (not an enum, a struct, a set, a tuple, a standard type, a
 * list read as a tuple). */
static int tnode_checked(TNode *t) {
    if (is_c_scalar(t->code) || t->code == FT_ANY) return 1;
    if (t->code == FT_OPTIONAL) return tnode_checked(&t->args[0]);
    if (t->code == FT_LIST) return t->ref == NULL && tnode_checked(&t->args[0]);
    if (t->code == FT_MAP) return tnode_checked(&t->args[0]) && tnode_checked(&t->args[1]);
    return 0;
}

/* The slot offsets of the fields, when every field is a writable object slot of the class. */
/* B_IMPLICIT: whether instances may be filled by setting attributes (no field has a data descriptor). */
static void plan_find_direct(StructPlan *self) {
    PyTypeObject *cls = (PyTypeObject *)self->cls;
    self->implicit_direct = 0;
    for (Py_ssize_t i = 0; i < self->n; i++) {
        PyObject *descr = _PyType_Lookup(cls, PyTuple_GET_ITEM(self->names, i)); /* borrowed */
        if (descr != NULL && Py_TYPE(descr)->tp_descr_set != NULL) return;
    }
    /* Checked after the lookups, which give a class its version tag when it has none yet. */
    if (!(cls->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG)) return;
    self->version_tag = cls->tp_version_tag;
    self->implicit_direct = 1;
}

static int plan_find_slots(StructPlan *self) {
    PyTypeObject *cls = (PyTypeObject *)self->cls;
    if (self->build == B_IMPLICIT) {
        plan_find_direct(self);
        return 0;
    }
    if (self->n == 0 || self->build == B_TUPLE || self->build == B_IMPLICIT) return 0;
    Py_ssize_t *offsets = PyMem_Malloc(self->n * sizeof(Py_ssize_t));
    if (offsets == NULL) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < self->n; i++) {
        PyObject *descr = _PyType_Lookup(cls, PyTuple_GET_ITEM(self->names, i)); /* borrowed */
        if (descr == NULL || Py_TYPE(descr) != &PyMemberDescr_Type) { PyMem_Free(offsets); return 0; }
        PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
        if (member->type != T_OBJECT_EX || (member->flags & READONLY)) { PyMem_Free(offsets); return 0; }
        offsets[i] = member->offset;
    }
    if (!(cls->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG)) { PyMem_Free(offsets); return 0; }
    self->version_tag = cls->tp_version_tag;
    self->offsets = offsets;
    return 0;
}

static int Plan_init(StructPlan *self, PyObject *args, PyObject *kwds) {
    PyObject *writer, *key, *definition, *class_id, *cls, *names, *nodes, *converters, *setters, *class_hash = Py_None;
    int build, pure_leaf;
    static char *kw[] = {"writer", "key", "definition", "class_id", "cls", "build", "names", "types", "converters",
                         "setters", "pure_leaf", "class_hash", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOUOiO!O!O!O!p|O", kw, &writer, &key, &definition, &class_id, &cls,
                                     &build, &PyTuple_Type, &names, &PyTuple_Type, &nodes, &PyTuple_Type, &converters,
                                     &PyTuple_Type, &setters, &pure_leaf, &class_hash))
        return -1;
    if (class_hash != Py_None && (!PyBytes_CheckExact(class_hash) || PyBytes_GET_SIZE(class_hash) != HASH_SIZE)) {
        PyErr_SetString(PyExc_TypeError, "StructPlan: class_hash is the class ID's 8-byte ClassIDHash, or None");
        return -1;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(names);
    if (self->fields != NULL || PyTuple_GET_SIZE(nodes) != n || PyTuple_GET_SIZE(converters) != n ||
        PyTuple_GET_SIZE(setters) != n || build < B_DICT || build > B_IMPLICIT || !PyType_Check(cls) ||
        !PyBytes_Check(key) || !PyBytes_Check(definition)) {
        PyErr_SetString(PyExc_TypeError, "StructPlan: one name, type, converter and setter per field, once");
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(names, i))) {
            PyErr_SetString(PyExc_TypeError, "StructPlan: field names are str");
            return -1;
        }
    }
    self->fields = PyMem_Calloc(n ? n : 1, sizeof(TNode));
    if (self->fields == NULL) { PyErr_NoMemory(); return -1; }
    int budget = MAX_TYPE_NODES * 16, c_leaf = 1, c_checked = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        self->n = i + 1;
        if (tnode_parse(&self->fields[i], PyTuple_GET_ITEM(nodes, i), 0, &budget) < 0) return -1;
        TNode *t = &self->fields[i];
        if (!(is_c_scalar(t->code) || (t->code == FT_OPTIONAL && is_c_scalar(t->args[0].code)))) c_leaf = 0;
        if (!tnode_checked(t)) c_checked = 0;
    }
    self->c_checked = c_checked;
    self->n = n;
    self->build = build;
    self->pure_leaf = pure_leaf;
    self->c_leaf = c_leaf;
    Py_INCREF(names);
    for (Py_ssize_t i = 0; i < n; i++) PyUnicode_InternInPlace(&PyTuple_GET_ITEM(names, i));
    Py_XSETREF(self->names, names);
    Py_XSETREF(self->writer, Py_NewRef(writer));
    Py_XSETREF(self->key, Py_NewRef(key));
    Py_XSETREF(self->definition, Py_NewRef(definition));
    Py_XSETREF(self->class_id, Py_NewRef(class_id));
    Py_XSETREF(self->class_hash, class_hash == Py_None ? NULL : Py_NewRef(class_hash));
    Py_XSETREF(self->cls, Py_NewRef(cls));
    Py_XSETREF(self->converters, Py_NewRef(converters));
    Py_XSETREF(self->setters, Py_NewRef(setters));
    return plan_find_slots(self);
}

static int Plan_traverse(StructPlan *self, visitproc visit, void *arg) {
    Py_VISIT(self->writer);
    Py_VISIT(self->key);
    Py_VISIT(self->definition);
    Py_VISIT(self->class_id);
    Py_VISIT(self->class_hash);
    Py_VISIT(self->cls);
    Py_VISIT(self->names);
    Py_VISIT(self->converters);
    Py_VISIT(self->setters);
    Py_VISIT(self->state_like);
    for (Py_ssize_t i = 0; self->fields != NULL && i < self->n; i++) {
        int r = tnode_visit(&self->fields[i], visit, arg);
        if (r) return r;
    }
    return 0;
}

static int Plan_clear(StructPlan *self) {
    Py_CLEAR(self->writer);
    Py_CLEAR(self->key);
    Py_CLEAR(self->definition);
    Py_CLEAR(self->class_id);
    Py_CLEAR(self->class_hash);
    Py_CLEAR(self->cls);
    Py_CLEAR(self->names);
    Py_CLEAR(self->converters);
    Py_CLEAR(self->setters);
    Py_CLEAR(self->state_like);
    if (self->fields != NULL) {
        for (Py_ssize_t i = 0; i < self->n; i++) tnode_clear(&self->fields[i]);
        PyMem_Free(self->fields);
        self->fields = NULL;
    }
    PyMem_Free(self->offsets);
    self->offsets = NULL;
    self->n = 0;
    return 0;
}

static void Plan_dealloc(StructPlan *self) {
    PyObject_GC_UnTrack(self);
    Plan_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Plan_call(StructPlan *self, PyObject *args, PyObject *kwds) {
    if (self->writer == NULL) {
        PyErr_SetString(PyExc_TypeError, "StructPlan not initialized");
        return NULL;
    }
    return PyObject_Call(self->writer, args, kwds);
}

static PyObject *Plan_get_class_id(StructPlan *self, void *closure) {
    return Py_NewRef(self->class_id != NULL ? self->class_id : Py_None);
}

static PyGetSetDef Plan_getset[] = {
    {"class_id", (getter)Plan_get_class_id, NULL, "the class ID of the struct", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject StructPlanType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "serreg.codec._core.StructPlan",
    .tp_basicsize = sizeof(StructPlan),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "StructPlan(writer, key, definition, class_id, cls, build, names, types, converters, setters, "
              "pure_leaf, class_hash=None): how the compiled codec writes and reads one struct class; calling it calls writer.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Plan_init,
    .tp_dealloc = (destructor)Plan_dealloc,
    .tp_traverse = (traverseproc)Plan_traverse,
    .tp_clear = (inquiry)Plan_clear,
    .tp_call = (ternaryfunc)Plan_call,
    .tp_getset = Plan_getset,
};

/* Set once by set_struct_state (serreg/codec/compiled.py). */
static PyObject *structs_hash; /* ClassIDHash("serreg.structs"): serialize_top writes a struct table itself */
static PyObject *encode_scope_var, *decode_scope_var, *read_instance_fn, *check_state, *str_index, *str_add,
    *str_plans, *str_readers, *str_leaves, *str_definitions, *str_name, *empty_tuple, *str_by_hash, *str_serializer,
    *str_frames, *str_open_table;

/* The context variable holding the tables a pack call reads instead of the snapshot's while a value is
   written with implicit structs (serreg.structs.scope.IMPLICIT_TABLES); set by set_implicit_state. */
static PyObject *implicit_tables_var, *str_ext_writers_attr;

static PyObject *set_implicit_state(PyObject *module, PyObject *var) {
    if (str_ext_writers_attr == NULL && (str_ext_writers_attr = PyUnicode_InternFromString("ext_writers")) == NULL)
        return NULL;
    Py_XSETREF(implicit_tables_var, Py_NewRef(var));
    Py_RETURN_NONE;
}

/* The ext_writers of the implicit tables in force (borrowed: the context variable's value holds it), or
   NULL: none (or an error, set). */
static PyObject *implicit_ext_writers(void) {
    if (implicit_tables_var == NULL) return NULL;
    PyObject *tables;
    if (PyContextVar_Get(implicit_tables_var, NULL, &tables) < 0) return NULL;
    if (tables == NULL || tables == Py_None) {
        Py_XDECREF(tables);
        return NULL;
    }
    PyObject *writers = PyObject_GetAttr(tables, str_ext_writers_attr);
    Py_DECREF(tables);
    if (writers == NULL) return NULL;
    PyObject *found = PyDict_Check(writers) ? writers : NULL;
    Py_DECREF(writers); /* the tables object keeps it alive, and the context variable keeps the tables */
    return found;
}

static PyObject *set_struct_state(PyObject *module, PyObject *args) {
    PyObject *enc, *dec, *read, *check, *hash = NULL;
    if (!PyArg_ParseTuple(args, "OOOO|O!", &enc, &dec, &read, &check, &PyBytes_Type, &hash)) return NULL;
    if (hash != NULL && PyBytes_GET_SIZE(hash) != HASH_SIZE) {
        PyErr_SetString(PyExc_ValueError, "the ClassIDHash of serreg.structs has 8 bytes");
        return NULL;
    }
    Py_XSETREF(structs_hash, Py_XNewRef(hash));
    Py_XSETREF(encode_scope_var, Py_NewRef(enc));
    Py_XSETREF(decode_scope_var, Py_NewRef(dec));
    Py_XSETREF(read_instance_fn, Py_NewRef(read));
    Py_XSETREF(check_state, Py_NewRef(check));
    Py_RETURN_NONE;
}

static int structs_module_init(PyObject *m) {
    if ((str_index = PyUnicode_InternFromString("index")) == NULL) return -1;
    if ((str_add = PyUnicode_InternFromString("add")) == NULL) return -1;
    if ((str_plans = PyUnicode_InternFromString("plans")) == NULL) return -1;
    if ((str_by_hash = PyUnicode_InternFromString("by_hash")) == NULL) return -1;
    if ((str_serializer = PyUnicode_InternFromString("serializer")) == NULL) return -1;
    if ((str_frames = PyUnicode_InternFromString("frames")) == NULL) return -1;
    if ((str_open_table = PyUnicode_InternFromString("open_table")) == NULL) return -1;
    if ((str_readers = PyUnicode_InternFromString("readers")) == NULL) return -1;
    if ((str_leaves = PyUnicode_InternFromString("leaves")) == NULL) return -1;
    if ((str_definitions = PyUnicode_InternFromString("definitions")) == NULL) return -1;
    if ((str_name = PyUnicode_InternFromString("name")) == NULL) return -1;
    if ((empty_tuple = PyTuple_New(0)) == NULL) return -1;
    if (PyType_Ready(&StructPlanType) < 0) return -1;
    Py_INCREF(&StructPlanType);
    if (PyModule_AddObject(m, "StructPlan", (PyObject *)&StructPlanType) < 0) {
        Py_DECREF(&StructPlanType);
        return -1;
    }
    return 0;
}
