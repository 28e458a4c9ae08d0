/* What the decode loop (_core_decode.h) refuses itself, in the pure codec's words (serreg/codec/pure.py,
 * checks.py), also once nested values were decoded, so a document need not be decoded again to say
 * what is wrong with it; and which values read in place enclose the fault (note_open_exts).
 * Each returns -1 (the error set), or -2 where the pure codec decodes the document again. */

/* Remember which values read in place (ext 0 tuples, sets) enclose a failure, innermost first: the
 * error names them outermost first (_core_unpack.h), as their nested decoders would
 * (serreg/_registry/decode.py, _locate): an error not located yet (raised here, or by a struct reader)
 * is named by the innermost one, a located one gets them all in its nesting. */
/* Give a failing value read in place what identifies it (DeserializationError.value_print: its
 * ClassIDHash, its in-band's length and a 16-byte BLAKE2b of it), as the nested decoder gives one it
 * calls (serreg/_registry/decode.py): Registry.deserialize then names its offset (pinpoint.py). */
static void give_value_print(PyObject *error, int kind, const unsigned char *in_band, Py_ssize_t n) {
    PyObject *hashlib = PyImport_ImportModule("hashlib");
    PyObject *view = PyMemoryView_FromMemory((char *)in_band, n, PyBUF_READ);
    PyObject *blake2b = hashlib == NULL ? NULL : PyObject_GetAttrString(hashlib, "blake2b");
    PyObject *args = view == NULL ? NULL : PyTuple_Pack(1, view);
    PyObject *size = Py_BuildValue("{s:i}", "digest_size", 16);
    PyObject *hasher = blake2b == NULL || args == NULL || size == NULL ? NULL : PyObject_Call(blake2b, args, size);
    Py_XDECREF(size);
    Py_XDECREF(args);
    Py_XDECREF(blake2b);
    PyObject *digest = hasher == NULL ? NULL : PyObject_CallMethod(hasher, "digest", NULL);
    PyObject *printed = digest == NULL ? NULL
        : Py_BuildValue("(y#nO)", (const char *)kind_hash[kind], (Py_ssize_t)HASH_SIZE, n, digest);
    if (printed == NULL || PyObject_SetAttrString(error, "value_print", printed) < 0) PyErr_Clear();
    Py_XDECREF(printed);
    Py_XDECREF(digest);
    Py_XDECREF(hasher);
    Py_XDECREF(view);
    Py_XDECREF(hashlib);
}

static void note_open_exts(Dec *d) {
    Py_ssize_t count = 0, at = -1;
    int innermost = K_NONE, skip = 0;
    for (Py_ssize_t i = 0; i < d->sp; i++) {
        if (d->stack[i].kind == D_EXT && d->stack[i].ext_kind < N_KINDS) {
            count++;
            innermost = d->stack[i].ext_kind;
            at = i;
        }
    }
    if (count > 0 && decode_error_type != NULL && PyErr_Occurred()) {
        PyObject *type, *error, *tb;
        PyErr_Fetch(&type, &error, &tb);
        PyErr_NormalizeException(&type, &error, &tb);
        if (error != NULL && PyObject_IsInstance(error, decode_error_type) == 1) {
            PyObject *located = PyObject_GetAttrString(error, "located");
            PyObject *class_id = PyObject_GetAttrString(error, "class_id");
            if (located == Py_False && class_id != NULL) {
                PyObject *id = class_id == Py_None ? PyUnicode_FromString(KIND_IDS[innermost]) : NULL;
                if ((class_id == Py_None && (id == NULL || PyObject_SetAttrString(error, "class_id", id) < 0)) ||
                    PyObject_SetAttrString(error, "located", Py_True) < 0)
                    PyErr_Clear();
                else {
                    skip = 1;
                    /* Its in-band ends where the next document read in place began, or where the decoder is. */
                    Py_ssize_t end = d->doc_end;
                    for (Py_ssize_t i = at + 1; i < d->sp; i++)
                        if (d->stack[i].kind == D_EXT) { end = d->stack[i].saved_doc_end; break; }
                    if (end >= d->stack[at].doc_start)
                        give_value_print(error, innermost, d->p + d->stack[at].doc_start, end - d->stack[at].doc_start);
                }
                Py_XDECREF(id);
            }
            Py_XDECREF(located);
            Py_XDECREF(class_id);
        }
        PyErr_Clear();
        PyErr_Restore(type, error, tb);
    }
    d->ext_kinds = PyMem_Malloc((count ? count : 1) * sizeof(int));
    if (d->ext_kinds == NULL) return;
    for (Py_ssize_t i = d->sp - 1; i >= 0; i--) {
        if (d->stack[i].kind == D_EXT && d->stack[i].ext_kind < N_KINDS) {
            if (skip) skip = 0;
            else d->ext_kinds[d->ext_open++] = d->stack[i].ext_kind;
        }
    }
}

/* Whether the pure codec words a fault of the document the decoder is in as this file does: the
 * call's own document, or the in-band of a value read in place (one msgpack document each; an
 * untrusted one longer than STRUCTURE_CHECK_THRESHOLD is walked first, as checks.py walks it: by
 * _core_unpack.h for the call's own, by walk_in_place for one read in place, so what is left to
 * find in it is found alike); with in_structs 1 a struct instance's payload too (read by an
 * Unpacker whose errors the pure codec words as its own), with 2 an ext 2's columns too (for
 * faults their reader meets as any document's reader does: refused ext types). */
static int worded_alike(const Dec *d, int in_structs) {
    for (Py_ssize_t i = d->sp - 1; i >= 0; i--) {
        const DFrame *f = &d->stack[i];
        if (f->kind != D_EXT) continue;
        if (f->ext_kind >= N_KINDS) return in_structs >= (f->ext_kind == K_STRUCT ? 1 : 2);
        return 1;
    }
    return 1;
}

/* Where the document the decoder is in starts (worded_alike without in_structs). */
static Py_ssize_t doc_start(const Dec *d) {
    for (Py_ssize_t i = d->sp - 1; i >= 0; i--) {
        if (d->stack[i].kind == D_EXT) return d->stack[i].doc_start;
    }
    return 0;
}

/* A document [start, end) (the call's own, or the in-band of a value read in place) holding bytes
 * after its one msgpack value: refused with the pure codec's words (serreg/codec/pure.py,
 * _extra_data), counted from the document's start, also after nested values were decoded (so not
 * "malformed ..., after nested values"). */
static int refuse_extra_data(Dec *d, Py_ssize_t start, Py_ssize_t end) {
    if (decode_error_type == NULL || !worded_alike(d, 0)) return -2;
    PyErr_Format(decode_error_type,
                 "invalid msgpack in-band data: %zd bytes of extra data after the value, which ends at byte %zd of %zd",
                 end - d->pos, d->pos - start, end - start);
    note_open_exts(d);
    return -1;
}

/* A container declaring more items than the bytes left hold. Before any nested value was decoded:
 * left to the pure codec (-2), which decodes the document again. After: where the pure codec reads
 * the document alike (a struct instance's payload too: walked whole before it is opened, so only
 * what the containers around it still owe is beyond its bytes, which its own reader never sees; an
 * ext 2's columns too, each checked whole by dec_struct_list_here before it is opened, and read by
 * their own reader, serreg/structs/lists.py, whose limits are the payload's as here),
 * refused with msgpack's words when the count is beyond its reader's limits (the document's
 * length, half of it for a map's pairs), else read on (0) as msgpack reads on, to the fault it
 * meets first (a value cut short, a refused ext...): never more items than the document's length,
 * and a container costs nothing before its items are read. */
static int count_beyond_bytes(Dec *d, int container, Py_ssize_t n) {
    Py_ssize_t limit = d->doc_end - doc_start(d);
    if (container == D_MAP) limit /= 2;
    if (!d->called || decode_error_type == NULL || !worded_alike(d, 2)) return -2;
    if (n <= limit) return 0;
    PyErr_Format(decode_error_type, "invalid msgpack in-band data: ValueError: %zd exceeds max_%s_len(%zd)", n,
                 container == D_MAP ? "map" : "array", limit);
    note_open_exts(d);
    return -1;
}

/* A value whose bytes run past the end of its document: once nested values were decoded, refused
 * with the pure codec's words (serreg/codec/pure.py) where it reads that document alike; else left
 * to the pure codec, which decodes the document again (-2). */
static int refuse_cut_short(Dec *d) {
    if (!d->called || decode_error_type == NULL || !worded_alike(d, 0)) return -2;
    PyErr_SetString(decode_error_type, "invalid msgpack in-band data: it ends inside a value");
    note_open_exts(d);
    return -1;
}

/* The byte 0xc1, which msgpack never uses: once nested values were decoded, refused with the words
 * of msgpack's reader (FormatError, without a message) where the pure codec reads the document alike. */
static int refuse_format(Dec *d) {
    if (!d->called || decode_error_type == NULL || !worded_alike(d, 0)) return -2;
    PyErr_SetString(decode_error_type, "invalid msgpack in-band data: FormatError: ");
    note_open_exts(d);
    return -1;
}

/* A tuple, set or frozenset read in place whose in-band is one msgpack value but not an array:
 * refused with its serializer's words (serreg/standard/base.py, unpack_array, describe_value),
 * once nested values were decoded, where the pure codec reads the in-band alike. */
static int refuse_not_array(Dec *d, int kind, PyObject *inner) {
    if (!d->called || decode_error_type == NULL || !worded_alike(d, 0)) return -2;
    PyObject *name = PyType_GetName(Py_TYPE(inner));
    if (name == NULL) return -1;
    PyErr_Format(decode_error_type, "%s in-band must be an array, got a %U", KIND_IDS[kind], name);
    Py_DECREF(name);
    note_open_exts(d);
    return -1;
}

/* An ext the pure codec's hook refuses (serreg/codec/pure.py), ext -1 aside (read_timestamp): refused
 * here with its words, also after nested values were decoded (so not "malformed ..., after nested
 * values"). */
static int refuse_ext(Dec *d, signed char type, Py_ssize_t n) {
    if (decode_error_type == NULL || !worded_alike(d, 2)) return -2;
    if (type != 0)
        PyErr_Format(decode_error_type, "msgpack ext type %d is not used by serreg (only ext 0, nested value, ext 1, "
                     "struct, and ext 2, list of structs)", (int)type);
    else
        PyErr_Format(decode_error_type, "nested value of %zd bytes is too short to hold a ClassIDHash", n);
    note_open_exts(d);
    return -1;
}

#define TIMESTAMP_REFUSAL "msgpack ext type -1 (timestamp) is not used by serreg and is refused (docs/FORMAT.md, " \
    "section 3); serreg writes datetime values as class ID 'datetime'"

/* Ext -1, a timestamp: msgpack's reader decodes it itself, refusing at once a length or a nanoseconds
 * field it cannot take, and the pure codec refuses what it made only once the document holding it is
 * read (serreg/codec/checks.py, refuse_timestamps), so a fault after it in that document comes first.
 * Before nested values were decoded: left to the pure codec (-2). After, where the pure codec reads
 * the document alike: msgpack's refusal in its words (-1), else 0: the document (the call's own, or
 * the in-band of the value read in place around it) is marked and read on, a None standing in, and
 * refused when it ends (refuse_timestamp). In an ext 2's columns (in_struct_list), msgpack's refusal
 * in the ext 2 reader's words; there and in a struct instance's payload, a msgpack.Timestamp stands in
 * (*stand_in) and the instance or list holding it is marked 2: built by its Python readers once its
 * payload is read, which refuse it in their words, as the pure codec's readers do. */
static int read_timestamp(Dec *d, const unsigned char *p, Py_ssize_t n, PyObject **stand_in) {
    PyObject *class_id = NULL;
    Py_ssize_t count_at = 0;
    int listed = d->called && decode_error_type != NULL && in_struct_list(d, &class_id, &count_at);
    if (!listed && (!d->called || decode_error_type == NULL || !worded_alike(d, 1))) return -2;
    const char *words = NULL;
    char length_words[64];
    unsigned long long head = 0; /* the nanoseconds: 32 bits of 96, or the top 30 bits of 64 */
    if (n != 4 && n != 8 && n != 12) {
        PyOS_snprintf(length_words, sizeof length_words, "invalid timestamp data (length %zd)", n);
        words = length_words;
    } else {
        for (int k = 0; k < (n == 8 ? 8 : 4); k++) head = (head << 8) | p[k];
        unsigned long long nanoseconds = n == 12 ? head : n == 8 ? head >> 34 : 0;
        if (nanoseconds > 999999999ULL)
            words = "nanoseconds must be a non-negative integer not greater than 999999999.";
    }
    if (words != NULL) {
        set_value_error(listed ? class_id : NULL, count_at, words);
        note_open_exts(d);
        return -1;
    }
    DFrame *innermost = NULL;
    for (Py_ssize_t i = d->sp - 1; i >= 0 && innermost == NULL; i--) {
        if (d->stack[i].kind == D_EXT) innermost = &d->stack[i];
    }
    if (listed || (innermost != NULL && innermost->ext_kind == K_STRUCT)) {
        if ((*stand_in = timestamp_stand_in(p, n)) == NULL) return -1;
        innermost->holds_timestamp = 2;
        return 0;
    }
    if (!worded_alike(d, 0)) return -2;
    for (Py_ssize_t i = d->sp - 1; i >= 0; i--) {
        if (d->stack[i].kind == D_EXT) {
            d->stack[i].holds_timestamp = 1;
            return 0;
        }
    }
    d->top_timestamp = 1;
    return 0;
}

/* A document marked by read_timestamp, read to its end without another fault: refused as the pure
 * codec refuses it then, named by the values read in place around it. */
static int refuse_timestamp(Dec *d) {
    PyErr_SetString(decode_error_type, TIMESTAMP_REFUSAL);
    note_open_exts(d);
    return -1;
}

/* A container header while MSGPACK_MAX_NESTING containers of the document are open (an empty one
 * too, as msgpack counts): once nested values were decoded, refused with the pure codec's words
 * (serreg/codec/pure.py: msgpack's StackError) where it reads the document alike; else left to the
 * pure codec, which decodes the document again (-2). */
static int refuse_too_deep(Dec *d) {
    if (!d->called || limit_error_type == NULL || !worded_alike(d, 0)) return -2;
    PyErr_Format(limit_error_type, "msgpack containers are nested more than %d deep (msgpack's own limit)",
                 MSGPACK_MAX_NESTING);
    note_open_exts(d);
    return -1;
}

/* The in-band of a tuple, set or frozenset about to be read in place, p[0..n): in untrusted mode,
 * one longer than STRUCTURE_CHECK_THRESHOLD is walked first (walk_structure), as its serializer's
 * codec walks it before decoding any of it (serreg/codec/checks.py, check_structure), and a fault
 * the walk finds is refused with check_structure's words, also after nested values were decoded
 * (else left to the pure codec, which decodes the document again: -2). 0: read it. */
static int walk_in_place(Dec *d, const unsigned char *p, Py_ssize_t n) {
    if (!d->untrusted || n <= STRUCTURE_CHECK_THRESHOLD) return 0;
    int fault = walk_structure(p, n);
    if (fault == WALK_SOUND) return 0;
    if (fault == WALK_NO_MEMORY) return -1;
    if (!d->called || decode_error_type == NULL || limit_error_type == NULL) return -2;
    if (fault == WALK_TOO_DEEP)
        PyErr_Format(limit_error_type, "msgpack containers are nested more than %d deep (msgpack's own limit)",
                     MSGPACK_MAX_NESTING);
    else
        PyErr_Format(decode_error_type, "invalid msgpack in-band data: %s: the document is truncated or declares "
                     "more items than it holds", fault == WALK_FORMAT ? "FormatError" : "OutOfData");
    note_open_exts(d);
    return -1;
}

/* A str whose bytes are not UTF-8 (the UnicodeDecodeError set by decode_str): once nested values
 * were decoded, refused with the pure codec's words (serreg/codec/pure.py: msgpack's reader raises
 * the same UnicodeDecodeError, which names the byte and its position in the str) where it reads the
 * document alike (a struct instance's payload too: its reader's error passes through as the
 * document's; in an ext 2's columns, the ext 2 reader's words: in_struct_list); else left to the
 * pure codec, which decodes the document again (-2). */
static int refuse_bad_utf8(Dec *d) {
    PyObject *class_id = NULL;
    Py_ssize_t count_at = 0;
    if (!d->called || decode_error_type == NULL || !PyErr_ExceptionMatches(PyExc_UnicodeDecodeError) ||
        !(in_struct_list(d, &class_id, &count_at) || worded_alike(d, 1)))
        return -2;
    PyObject *type, *cause, *tb;
    PyErr_Fetch(&type, &cause, &tb);
    PyErr_NormalizeException(&type, &cause, &tb);
    Py_XDECREF(type);
    Py_XDECREF(tb);
    if (cause == NULL) return -2;
    set_bad_utf8(class_id, count_at, cause);
    note_open_exts(d);
    return -1;
}

/* A map whose keys, or a set or frozenset whose members, are not all hashable (the TypeError of
 * building it, or of hashing them for check_spread): once nested values were decoded, refused with
 * the pure codec's words where it reads the document alike: a map's from its msgpack reader
 * (serreg/codec/pure.py; a struct instance's payload too, whose reader's error passes through as the
 * document's; in an ext 2's columns, the ext 2 reader's words), a set's as its serializer's failure
 * (serreg/_registry/decode.py, _deserializer_failure), and over MAX_KEYS_PER_HASH keys in untrusted
 * mode check_hash_spread's (serreg/codec/checks.py). Any other error is left as it was (-2). */
static int refuse_unhashable(Dec *d, int set, Py_ssize_t keys) {
    PyObject *class_id = NULL;
    Py_ssize_t count_at = 0;
    if (!d->called || decode_error_type == NULL || !PyErr_ExceptionMatches(PyExc_TypeError)) return -2;
    int listed = !set && in_struct_list(d, &class_id, &count_at); /* a map in an ext 2's columns */
    if (!listed && !worded_alike(d, !set)) return -2; /* a map in a struct's payload: its reader's error passes */
    PyObject *type, *cause, *tb;
    PyErr_Fetch(&type, &cause, &tb);
    PyErr_NormalizeException(&type, &cause, &tb);
    Py_XDECREF(type);
    Py_XDECREF(tb);
    if (cause == NULL) return -2;
    PyObject *name = PyType_GetName(Py_TYPE(cause));
    if (name == NULL) {
        Py_DECREF(cause);
        return -1;
    }
    if (keys > MAX_KEYS_PER_HASH && d->untrusted) {
        PyErr_Format(decode_error_type, "a %s key or member is not hashable: %S", set ? "set" : "map", cause);
    } else if (listed) { /* the ext 2 reader's words, raised from the TypeError */
        Py_DECREF(name);
        set_list_fault(class_id, count_at, cause);
        note_open_exts(d);
        return -1;
    } else
        PyErr_Format(decode_error_type, "%s: %U: %S", set ? "could not decode the value" : "invalid msgpack in-band data",
                     name, cause);
    Py_DECREF(name);
    raised_from(cause);
    note_open_exts(d);
    return -1;
}

/* Trusted mode, a fault met (r: -1 or -2) once nested values were decoded, or a nested value met in
 * plain_only (-5): the pure codec's msgpack reader puts each pair of a map into its dict as soon as
 * the pair is read, so a key that is not hashable, in a pair completed before that point (in any
 * map still open, outermost first: the order it was read in), is what it refuses first. Then
 * refused with its words, named by the values read in place around that map (before any nested
 * value was decoded: left to the pure codec, -2); else r. (Untrusted, the pure codec builds a map
 * when it ends, as the decode loop does.) */
static int refuse_earlier_key(Dec *d, int r) {
    if ((!d->called && r != -5) || decode_error_type == NULL || (d->state_loaded && d->untrusted)) return r;
    PyObject *saved_type, *saved, *saved_tb; /* the fault's error, if any: kept while keys are hashed */
    PyErr_Fetch(&saved_type, &saved, &saved_tb);
    for (Py_ssize_t i = 0; i < d->sp; i++) {
        const DFrame *f = &d->stack[i];
        if (f->kind != D_MAP) continue;
        Py_ssize_t end = i + 1 < d->sp ? d->stack[i + 1].vstart : d->nvals;
        for (Py_ssize_t k = f->vstart; k + 1 < end; k += 2) {
            if (PyObject_Hash(d->vals[k]) != -1 || !PyErr_Occurred()) continue;
            PyObject *type, *cause, *tb;
            PyErr_Fetch(&type, &cause, &tb);
            PyErr_NormalizeException(&type, &cause, &tb);
            Py_XDECREF(tb);
            Py_ssize_t sp = d->sp;
            d->sp = i + 1; /* the map's document, as when its pair was read */
            PyObject *class_id = NULL;
            Py_ssize_t count_at = 0;
            int alike = cause != NULL && type == PyExc_TypeError &&
                        (worded_alike(d, 1) || in_struct_list(d, &class_id, &count_at)) && dec_load_state(d) == 0 &&
                        !d->untrusted;
            Py_XDECREF(type);
            PyErr_Clear();
            if (!alike || !d->called) {
                d->sp = sp;
                Py_XDECREF(cause);
                PyErr_Restore(saved_type, saved, saved_tb);
                return alike ? -2 : r; /* plain_only, an unhashable key first: the pure codec refuses it */
            }
            Py_XDECREF(saved_type);
            Py_XDECREF(saved);
            Py_XDECREF(saved_tb);
            PyMem_Free(d->ext_kinds);
            d->ext_kinds = NULL;
            d->ext_open = 0;
            PyErr_SetObject(PyExc_TypeError, cause);
            Py_DECREF(cause);
            return refuse_unhashable(d, 0, 0);
        }
    }
    PyErr_Restore(saved_type, saved, saved_tb);
    return r;
}
