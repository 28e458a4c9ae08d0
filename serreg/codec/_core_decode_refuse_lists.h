/* What an ext 2's columns' reader (serreg/structs/lists.py, read_struct_list) says of what its msgpack
 * reader raises in them (a str that is not UTF-8, a map key that is not hashable, a timestamp msgpack
 * cannot read, and in a struct instance in the columns that the pure codec read alone, any fault
 * msgpack meets), for the decode loop's refusals (_core_decode_refuse.h; and _core_decode.h): the same
 * words, naming the class and where the ext 2's count starts in its payload, also after nested values. */

/* The list of struct instances (ext 2) whose columns the decoder is in, checked by
 * dec_struct_list_here, with only struct instances (ext 1) read in frames between: an error their
 * readers meet passes through them as msgpack's (serreg/structs/frames.py), and the ext 2's reader
 * (serreg/structs/lists.py, read_struct_list) words it. 1 with its class ID (borrowed) and where its
 * count starts in its payload (the last place that reader notes before it reads the columns); else 0. */
static int in_struct_list(const Dec *d, PyObject **class_id, Py_ssize_t *count_at) {
    const DFrame *f = NULL;
    Py_ssize_t end = d->doc_end;
    for (Py_ssize_t i = d->sp - 1; i >= 0 && f == NULL; i--) {
        if (d->stack[i].kind != D_EXT) continue;
        if (d->stack[i].ext_kind != K_STRUCT) f = &d->stack[i];
        else end = d->stack[i].saved_doc_end; /* the document around this instance */
    }
    if (f == NULL || f->ext_kind != K_STRUCTS || d->struct_plans == NULL) return 0;
    const unsigned char *payload = d->p + f->doc_start;
    Py_ssize_t n = end - f->doc_start, at;
    unsigned char b = n > 0 ? payload[0] : 0;
    if (b >= 0x90 && b <= 0x9f) at = 1;
    else if (b == 0xdc) at = 3;
    else if (b == 0xdd) at = 5;
    else return 0;
    long long index;
    if (at > n || !read_int(payload, &at, n, &index) || index < 0 || index >= PyList_GET_SIZE(d->struct_plans))
        return 0;
    PyObject *plan = PyList_GET_ITEM(d->struct_plans, index);
    if (!IS_PLAN(plan) || ((StructPlan *)plan)->class_id == NULL) return 0;
    *class_id = ((StructPlan *)plan)->class_id;
    *count_at = at;
    return 1;
}

#define MSGPACK_WORDS "invalid msgpack in-band data: "
#define BAD_UTF8_WORDS MSGPACK_WORDS "UnicodeDecodeError: "

/* The error set is raised from cause (stolen), as "raise ... from cause". */
static void raised_from(PyObject *cause) {
    PyObject *etype, *error, *etb;
    PyErr_Fetch(&etype, &error, &etb);
    PyErr_NormalizeException(&etype, &error, &etb);
    if (error != NULL) PyException_SetCause(error, cause); /* as "raise ... from error"; steals cause */
    else Py_DECREF(cause);
    PyErr_Restore(etype, error, etb);
}

/* Sets the error the ext 2 reader (read_struct_list) makes of an error its msgpack reader raised in the
 * columns (cause, stolen): its words, naming the class and where the count starts; raised from the cause. */
static void set_list_fault(PyObject *class_id, Py_ssize_t count_at, PyObject *cause) {
    PyObject *name = PyType_GetName(Py_TYPE(cause));
    if (name == NULL) {
        Py_DECREF(cause);
        return;
    }
    PyErr_Format(decode_error_type, "struct %R: a list of its instances (msgpack ext 2) is not valid msgpack "
                 "after byte %zd of its payload: %U: %S", class_id, count_at, name, cause);
    Py_DECREF(name);
    raised_from(cause);
}

/* Sets the error of a str that is not UTF-8 (its UnicodeDecodeError: cause, stolen) as the pure
 * codec words it: in an ext 2's columns (class_id not NULL) as its reader does, else as msgpack's
 * in-band reader (serreg/codec/pure.py); raised from the cause. */
static void set_bad_utf8(PyObject *class_id, Py_ssize_t count_at, PyObject *cause) {
    if (class_id != NULL) {
        set_list_fault(class_id, count_at, cause);
        return;
    }
    PyErr_Format(decode_error_type, BAD_UTF8_WORDS "%S", cause);
    raised_from(cause);
}

/* A ValueError msgpack's reader raises with these words: in an ext 2's columns (class_id not NULL) the
 * ext 2 reader's error, else the in-band reader's (serreg/codec/pure.py), raised from it. */
static void set_value_error(PyObject *class_id, Py_ssize_t count_at, const char *words) {
    PyObject *cause = PyObject_CallFunction(PyExc_ValueError, "s", words);
    if (cause == NULL) return;
    if (class_id != NULL) {
        set_list_fault(class_id, count_at, cause);
        return;
    }
    PyErr_Format(decode_error_type, MSGPACK_WORDS "ValueError: %s", words);
    raised_from(cause);
}

/* What msgpack's reader makes of a timestamp (ext -1) of n bytes at p, checked before: a msgpack.Timestamp,
 * which stands in for it in a struct instance's payload or an ext 2's columns, where the readers of the
 * fields refuse it (serreg/structs/values.py: a field of any type, "class.field: msgpack ext type -1
 * (timestamp) is not used by serreg") only once the payload was read, as the pure codec's readers
 * refuse it; NULL with an error. */
static PyObject *timestamp_stand_in(const unsigned char *p, Py_ssize_t n) {
    static PyObject *from_bytes = NULL; /* msgpack.Timestamp.from_bytes, looked up at the first need */
    if (from_bytes == NULL) {
        PyObject *module = PyImport_ImportModule("msgpack");
        PyObject *type = module == NULL ? NULL : PyObject_GetAttrString(module, "Timestamp");
        from_bytes = type == NULL ? NULL : PyObject_GetAttrString(type, "from_bytes");
        Py_XDECREF(type);
        Py_XDECREF(module);
        if (from_bytes == NULL) return NULL;
    }
    PyObject *data = PyBytes_FromStringAndSize((const char *)p, n);
    if (data == NULL) return NULL;
    PyObject *stamp = PyObject_CallOneArg(from_bytes, data);
    Py_DECREF(data);
    return stamp;
}

/* A struct instance (ext 1) in an ext 2's columns that the pure codec read alone (dec_struct) and
 * refused as its msgpack reader refuses a fault in a document ("invalid msgpack in-band data: ...",
 * not located, raised from what msgpack's reader raised: a str that is not UTF-8, a map key that is
 * not hashable, a payload cut short, the byte 0xc1 ...): in the pure codec, what msgpack's reader
 * raised passes through the instance's reader to the ext 2's reader, which words it (set_list_fault);
 * reworded so. Any other error (bytes left over, worded alike in both places; a serreg check's) is kept. */
static void reword_struct_in_list(Dec *d) {
    PyObject *class_id = NULL;
    Py_ssize_t count_at = 0;
    if (decode_error_type == NULL || !PyErr_ExceptionMatches(decode_error_type) ||
        !in_struct_list(d, &class_id, &count_at))
        return;
    PyObject *type, *error, *tb;
    PyErr_Fetch(&type, &error, &tb);
    PyErr_NormalizeException(&type, &error, &tb);
    PyObject *cause = error != NULL ? PyException_GetCause(error) : NULL; /* new reference */
    PyObject *located = error != NULL ? PyObject_GetAttrString(error, "located") : NULL;
    if (located == NULL) PyErr_Clear();
    int msgpacks = cause != NULL && located == Py_False;
    if (msgpacks) { /* msgpack's words, not those of a reader inside (an ext 2's) */
        PyObject *words = PyObject_Str(error), *prefix = PyUnicode_FromString(MSGPACK_WORDS);
        msgpacks = words != NULL && prefix != NULL && PyUnicode_Tailmatch(words, prefix, 0, PY_SSIZE_T_MAX, -1) == 1;
        Py_XDECREF(words);
        Py_XDECREF(prefix);
        PyErr_Clear();
    }
    if (msgpacks) {
        Py_XDECREF(type);
        Py_XDECREF(error);
        Py_XDECREF(tb);
        Py_DECREF(located);
        set_list_fault(class_id, count_at, cause); /* steals cause */
        return;
    }
    Py_XDECREF(located);
    Py_XDECREF(cause);
    PyErr_Restore(type, error, tb);
}
