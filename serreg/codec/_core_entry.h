/* Registry.serialize and Registry.deserialize as methods written in C (twin: serreg/codec/top.py's
 * top_method, which leaves the Python methods as they are).
 *
 * top_method(kind, function) wraps the Python method ``function``. Called with the value alone
 * (``registry.serialize(obj)``, ``serreg.deserialize(frame)``), it tries the short way of a small
 * dict or list (_core_lean.h), then the codec's top-level entry (_core_top.h; deserialize then
 * _core_top_value.h), with no Python frame in between, and on
 * NotImplemented calls the registry's
 * full path as the Python method would after its own try (the callables given to
 * MsgpackCodec.bind_registry). Called with anything else (options, keywords, wrong arguments), or
 * on a registry whose codec is not bound, it calls ``function`` itself, which does everything
 * (and words the TypeError of a wrong call). So the Python method stays the one definition of
 * what the call does; this only skips its frame on the common call.
 *
 * Bound to a registry (``registry.serialize``, and so ``serreg.serialize``), a TopMethod is a builtin
 * method (METH_FASTCALL | METH_KEYWORDS, ``__self__`` the registry), which the interpreter calls
 * directly (a specialized call) where it calls any other callable object through its generic path.
 * Its ``__doc__`` is the Python method's, its ``__text_signature__`` the Python method's signature
 * without annotations (a builtin's signature cannot carry them; ``Registry.serialize``, the
 * TopMethod itself, keeps the annotated one through ``__wrapped__``). The builtin's definition
 * (PyMethodDef) is one per kind, so only the last TopMethod made of a kind is bound this way; any
 * other is bound as a Python method object, as before. */

enum { TOP_SERIALIZE = 0, TOP_DESERIALIZE = 1 };

typedef struct {
    PyObject_HEAD
    PyObject *function; /* the Python method */
    int kind;
    vectorcallfunc vectorcall;
    PyObject *module;   /* the Python method's __module__: its bound builtins' */
} TopMethod;

/* The TopMethod of each kind whose bound methods are builtins (see above), and their definitions. */
static TopMethod *entry_method[2];
static PyMethodDef entry_def[2];

/* The registry dict last looked in and what it held: its codec is that one as long as the dict's
 * version is (a version is never given to two dict states, so a freed dict cannot match). The
 * registry and its type are remembered too: the same object of the same type (held: a type is never
 * freed while seen_type is it) has its dict pointer at the same offset, read there without a call. */
static PyObject *seen_dict;
static uint64_t seen_version;
static Codec *seen_codec;
static PyObject *seen_registry;    /* borrowed: only compared */
static PyTypeObject *seen_type;    /* a reference */
static Py_ssize_t seen_dict_offset; /* of seen_type's dict pointer, from the object's address */

static PyObject *str_codec;
static PyTypeObject TopMethodType;

/* The registry's compiled codec, bound to it, or NULL (borrowed; no error set): the cache's check. */
static Codec *bound_codec_looked_up(PyObject *registry);

static inline Codec *bound_codec(PyObject *registry) {
#if PY_VERSION_HEX < 0x030C0000
    if (registry == seen_registry && Py_TYPE(registry) == seen_type) {
        PyObject *dict = *(PyObject **)((char *)registry + seen_dict_offset);
        if (dict == seen_dict && dict != NULL && ((PyDictObject *)dict)->ma_version_tag == seen_version)
            return seen_codec->full_serialize != NULL && seen_codec->owner == registry ? seen_codec : NULL;
    }
#endif
    return bound_codec_looked_up(registry);
}

static Codec *bound_codec_looked_up(PyObject *registry) {
    PyObject **dictptr = _PyObject_GetDictPtr(registry);
    if (dictptr == NULL || *dictptr == NULL || !PyDict_CheckExact(*dictptr)) return NULL;
    PyObject *dict = *dictptr;
#if PY_VERSION_HEX < 0x030C0000
    uint64_t version = ((PyDictObject *)dict)->ma_version_tag;
#else
    uint64_t version = 0; /* no dict versions to rely on: looked up on every call */
    seen_dict = NULL;
#endif
    if (dict == seen_dict && version == seen_version)
        return seen_codec->full_serialize != NULL && seen_codec->owner == registry ? seen_codec : NULL;
    PyObject *codec = PyDict_GetItemWithError(dict, str_codec);
    if (codec == NULL || !PyObject_TypeCheck(codec, &CodecType) || ((Codec *)codec)->full_serialize == NULL ||
        ((Codec *)codec)->owner != registry) /* another registry's codec: the Python method decides */
        return NULL;
    seen_dict = dict;
    seen_version = version;
    seen_codec = (Codec *)codec; /* borrowed: the dict holds it while its version is unchanged */
    seen_registry = registry;
    Py_INCREF(Py_TYPE(registry));
    Py_XSETREF(seen_type, Py_TYPE(registry));
    seen_dict_offset = (char *)dictptr - (char *)registry;
    return (Codec *)codec;
}

/* The one-call path gives up on a value as soon as it meets a part that is not plain, and the full
 * path then writes the whole value again: for values that are mostly plain with such a part late
 * (1,000 records, then a registered object), every call would write them twice. So when a call gave
 * up after writing W >= WASTE_MIN bytes, the next calls of this registry go straight to the full path:
 * 1 call, then 2, 4 ... after each such call in a row, at most W / 1024 (a skipped call costs the
 * full path's fixed costs, tens of instructions per byte were wasted) and SKIP_MAX; each value then
 * written in one call halves the count. The full path writes the same bytes: only the time differs. */
#define WASTE_MIN 4096
#define SKIP_MAX 64

static PyObject *serialize_top_adaptive(Codec *codec, PyObject *value) {
    if (codec->skip_left > 0) {
        codec->skip_left--;
        Py_RETURN_NOTIMPLEMENTED;
    }
    Py_ssize_t wasted;
    PyObject *result = serialize_top(codec, value, &wasted);
    if (wasted >= WASTE_MIN) {
        Py_ssize_t cap = wasted / 1024 < SKIP_MAX ? wasted / 1024 : SKIP_MAX;
        Py_ssize_t next = codec->skip_next == 0 ? 1 : 2 * (Py_ssize_t)codec->skip_next;
        codec->skip_left = codec->skip_next = (int)(next < cap ? next : cap);
    } else if (codec->skip_next > 0 && result != NULL && result != Py_NotImplemented) {
        codec->skip_next /= 2;
    }
    return result;
}

static PyObject *top_plain(Codec *self);

/* registry.serialize(value) and registry.deserialize(value), the registry's codec found bound to it. */
static inline PyObject *entry_serialize_value(Codec *codec, PyObject *value) {
    PyObject *result = lean_serialize(codec, value); /* runs no Python code: the codec stays */
    if (result != NULL || PyErr_Occurred()) return result;
    /* A serializer's own serialize() call inside a value being written is a level of C stack too
       (after the lean way, which calls no Python code: a small list or dict costs nothing more). */
    if (stack_check() < 0) return NULL;
    Py_INCREF(codec); /* the registry's codec attribute may be replaced meanwhile */
    result = serialize_top_adaptive(codec, value);
    if (result == Py_NotImplemented) {
        Py_DECREF(result);
        PyObject *full[4] = {value, Py_False, Py_False, Py_None};
        result = PyObject_Vectorcall(codec->full_serialize, full, 4, NULL);
    }
    Py_DECREF(codec);
    return result;
}

/* The error pending after a failed deserialize of value, as the registry's refine_error(value, error) gives it
   (the offset of a malformed in-band's first wrong byte, a released input named): the error path only. */
static PyObject *entry_refine_error(Codec *codec, PyObject *value) __attribute__((noinline));
static PyObject *entry_refine_error(Codec *codec, PyObject *value) {
    if (codec->refine_error == NULL || !PyErr_ExceptionMatches(PyExc_Exception)) return NULL;
    PyObject *type, *error, *traceback;
    PyErr_Fetch(&type, &error, &traceback);
    PyErr_NormalizeException(&type, &error, &traceback);
    if (traceback != NULL) PyException_SetTraceback(error, traceback);
    PyObject *refined = PyObject_CallFunctionObjArgs(codec->refine_error, value, error, NULL);
    if (refined == NULL) { /* the refiner failed: its error stands */
        Py_XDECREF(type);
        Py_XDECREF(error);
        Py_XDECREF(traceback);
        return NULL;
    }
    if (refined == error) {
        PyErr_Restore(type, error, traceback);
        Py_DECREF(refined);
        return NULL;
    }
    Py_XDECREF(type);
    Py_XDECREF(error);
    Py_XDECREF(traceback);
    PyErr_SetObject((PyObject *)Py_TYPE(refined), refined);
    Py_DECREF(refined);
    return NULL;
}

static inline PyObject *entry_deserialize_value(Codec *codec, PyObject *value) {
    Py_INCREF(codec);
    /* A frame in bytes with out-of-band buffers is never plain (lean_deserialize and unpack_top read only frames
       without): its serializer. */
    int with_buffers = PyBytes_CheckExact(value) && PyBytes_GET_SIZE(value) >= FRAME_HEADER &&
                       frame_le((const unsigned char *)PyBytes_AS_STRING(value) + 8, 4) != 0;
    PyObject *plain = with_buffers ? NULL : top_plain(codec), *result = plain == NULL ? NULL : lean_deserialize(codec, value, plain);
    if (result != NULL || PyErr_Occurred()) {
        if (result == NULL) result = entry_refine_error(codec, value);
        Py_DECREF(codec);
        return result;
    }
    result = with_buffers ? top_bytes_frame(codec, value) : unpack_top(codec, value, plain);
    if (result == Py_NotImplemented) { /* not plain: read by its serializer (_core_top_value.h) */
        Py_DECREF(result);
        result = top_value(codec, value);
    }
    if (result == Py_NotImplemented) {
        Py_DECREF(result);
        PyObject *full[5] = {value, Py_None, Py_None, Py_None, Py_None};
        result = PyObject_Vectorcall(codec->full_deserialize, full, 5, NULL);
    }
    if (result == NULL) result = entry_refine_error(codec, value);
    Py_DECREF(codec);
    return result;
}

static PyObject *TopMethod_vectorcall(TopMethod *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    Codec *codec = nargs == 2 && kwnames == NULL ? bound_codec(args[0]) : NULL;
    if (codec == NULL) {
        if (PyErr_Occurred()) return NULL;
        return PyObject_Vectorcall(self->function, args, nargsf, kwnames);
    }
    return self->kind == TOP_SERIALIZE ? entry_serialize_value(codec, args[1]) : entry_deserialize_value(codec, args[1]);
}

/* The bound builtin of kind called with anything but the value alone: the Python method, the registry first. */
static PyObject *entry_python(int kind, PyObject *registry, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    if (PyErr_Occurred()) return NULL;
    PyObject *function = entry_method[kind] == NULL ? NULL : entry_method[kind]->function;
    if (function == NULL) {
        PyErr_SetString(PyExc_SystemError, "serreg: a bound top-level method without its TopMethod");
        return NULL;
    }
    Py_ssize_t total = nargs + (kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames));
    PyObject *small[8], **all = total < 8 ? small : PyMem_New(PyObject *, total + 1);
    if (all == NULL) return PyErr_NoMemory();
    all[0] = registry;
    for (Py_ssize_t i = 0; i < total; i++) all[i + 1] = args[i];
    Py_INCREF(function);
    PyObject *result = PyObject_Vectorcall(function, all, (size_t)(nargs + 1), kwnames);
    Py_DECREF(function);
    if (all != small) PyMem_Free(all);
    return result;
}

static PyObject *entry_serialize(PyObject *registry, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    Codec *codec;
    if (nargs == 1 && kwnames == NULL && (codec = bound_codec(registry)) != NULL)
        return entry_serialize_value(codec, args[0]);
    return entry_python(TOP_SERIALIZE, registry, args, nargs, kwnames);
}

static PyObject *entry_deserialize(PyObject *registry, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    Codec *codec;
    if (nargs == 1 && kwnames == NULL && (codec = bound_codec(registry)) != NULL)
        return entry_deserialize_value(codec, args[0]);
    return entry_python(TOP_DESERIALIZE, registry, args, nargs, kwnames);
}

static PyObject *TopMethod_get(TopMethod *self, PyObject *obj, PyObject *type) {
    if (obj == NULL || obj == Py_None) return Py_NewRef(self);
    if (entry_method[self->kind] == self) return PyCFunction_NewEx(&entry_def[self->kind], obj, self->module);
    return PyMethod_New((PyObject *)self, obj);
}

/* __doc__, __name__, __qualname__, __module__: the Python method's. */
static PyObject *TopMethod_getattro(TopMethod *self, PyObject *name) {
    PyObject *found = PyObject_GenericGetAttr((PyObject *)self, name);
    if (found != NULL || !PyErr_ExceptionMatches(PyExc_AttributeError)) return found;
    PyErr_Clear();
    return PyObject_GetAttr(self->function, name);
}

static PyObject *TopMethod_doc(TopMethod *self, void *closure) {
    return PyObject_GetAttrString(self->function, "__doc__");
}

static PyObject *TopMethod_reduce(TopMethod *self, PyObject *unused) {
    return PyObject_GetAttrString(self->function, "__qualname__");
}

static int TopMethod_traverse(TopMethod *self, visitproc visit, void *arg) {
    Py_VISIT(self->function);
    Py_VISIT(self->module);
    return 0;
}

static void TopMethod_dealloc(TopMethod *self) {
    PyObject_GC_UnTrack(self);
    if (entry_method[self->kind] == self) entry_method[self->kind] = NULL; /* its builtins fall to SystemError */
    Py_CLEAR(self->function);
    Py_CLEAR(self->module);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef TopMethod_members[] = {
    {"__wrapped__", T_OBJECT, offsetof(TopMethod, function), READONLY, "the Python method"},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef TopMethod_getset[] = {
    {"__doc__", (getter)TopMethod_doc, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef TopMethod_methods[] = {
    {"__reduce__", (PyCFunction)TopMethod_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject TopMethodType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "serreg.codec._core.TopMethod",
    .tp_basicsize = sizeof(TopMethod),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_vectorcall_offset = offsetof(TopMethod, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_descr_get = (descrgetfunc)TopMethod_get,
    .tp_getattro = (getattrofunc)TopMethod_getattro,
    .tp_dealloc = (destructor)TopMethod_dealloc,
    .tp_traverse = (traverseproc)TopMethod_traverse,
    .tp_members = TopMethod_members,
    .tp_getset = TopMethod_getset,
    .tp_methods = TopMethod_methods,
};

/* top_method(kind, function, text_signature=None): kind is "serialize" or "deserialize"; text_signature
 * (the Python method's, "($self, ...)", without annotations) makes this TopMethod the one of its kind whose
 * bound methods are builtins. */
static PyObject *top_method(PyObject *module, PyObject *args) {
    const char *kind;
    PyObject *function, *signature = Py_None;
    if (!PyArg_ParseTuple(args, "sO|O", &kind, &function, &signature)) return NULL;
    int k = strcmp(kind, "serialize") == 0 ? TOP_SERIALIZE : strcmp(kind, "deserialize") == 0 ? TOP_DESERIALIZE : -1;
    if (k < 0 || !PyCallable_Check(function) || (signature != Py_None && !PyUnicode_Check(signature))) {
        PyErr_SetString(PyExc_ValueError, "top_method(kind, function, text_signature=None): kind is 'serialize' or "
                                          "'deserialize', text_signature a str");
        return NULL;
    }
    char *doc = NULL;
    PyObject *function_module = PyObject_GetAttrString(function, "__module__");
    if (function_module == NULL) return NULL;
    if (signature != Py_None) {
        /* The builtin's ml_doc, "name(signature)\n--\n\ndocstring": made once per kind and kept for good,
           since bound builtins may outlive this TopMethod. */
        PyObject *docstring = PyObject_GetAttrString(function, "__doc__"), *text = NULL;
        if (docstring != NULL && !PyUnicode_Check(docstring)) Py_SETREF(docstring, PyUnicode_New(0, 0));
        if (docstring != NULL) text = PyUnicode_FromFormat("%s%U\n--\n\n%U", kind, signature, docstring);
        Py_XDECREF(docstring);
        const char *utf8 = text == NULL ? NULL : PyUnicode_AsUTF8(text);
        doc = utf8 == NULL ? NULL : PyMem_RawMalloc(strlen(utf8) + 1);
        if (doc != NULL) strcpy(doc, utf8);
        else if (utf8 != NULL) PyErr_NoMemory();
        Py_XDECREF(text);
        if (doc == NULL) {
            Py_DECREF(function_module);
            return NULL;
        }
    }
    TopMethod *self = PyObject_GC_New(TopMethod, &TopMethodType);
    if (self == NULL) {
        PyMem_RawFree(doc);
        Py_DECREF(function_module);
        return NULL;
    }
    self->function = Py_NewRef(function);
    self->module = function_module;
    self->kind = k;
    self->vectorcall = (vectorcallfunc)TopMethod_vectorcall;
    if (doc != NULL) {
        /* the previous doc of this kind is left allocated: a builtin made before may still read it */
        entry_def[k].ml_name = k == TOP_SERIALIZE ? "serialize" : "deserialize";
        entry_def[k].ml_meth = (PyCFunction)(void (*)(void))(k == TOP_SERIALIZE ? entry_serialize : entry_deserialize);
        entry_def[k].ml_flags = METH_FASTCALL | METH_KEYWORDS;
        entry_def[k].ml_doc = doc;
        entry_method[k] = self; /* borrowed: cleared by its dealloc */
    }
    PyObject_GC_Track(self);
    return (PyObject *)self;
}

/* The registry's settings.plain (borrowed), or NULL with an error set. */
static PyObject *top_plain(Codec *self) {
    if (self->plain_slot > 0) {
        PyObject *plain = *(PyObject **)((char *)self->settings + self->plain_slot);
        if (plain != NULL) return plain;
    }
    PyObject *plain = PyObject_GetAttr(self->settings, str_plain);
    Py_XDECREF(plain); /* the settings keep it */
    return plain;
}

/* bind_registry(registry, settings, full_serialize, full_deserialize, refine_error) */
static PyObject *Codec_bind_registry(Codec *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5 || !PyCallable_Check(args[2]) || !PyCallable_Check(args[3]) || !PyCallable_Check(args[4])) {
        PyErr_SetString(PyExc_TypeError,
                        "bind_registry(registry, settings, full_serialize, full_deserialize, refine_error)");
        return NULL;
    }
    self->owner = args[0];
    args++;
    self->plain_slot = object_slot(Py_TYPE(args[0]), "plain");
    Py_XSETREF(self->settings, Py_NewRef(args[0]));
    Py_XSETREF(self->full_serialize, Py_NewRef(args[1]));
    Py_XSETREF(self->full_deserialize, Py_NewRef(args[2]));
    Py_XSETREF(self->refine_error, Py_NewRef(args[3]));
    Py_RETURN_NONE;
}
