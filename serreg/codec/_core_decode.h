/* The decode loop of MsgpackCodec.unpack (serreg/codec/_core.c): one msgpack document read item
 * by item on the decoder's stacks (_core_decode_state.h), values built by _core_decode_values.h,
 * handed to Python by _core_decode_calls.h, runs of scalars by _core_decode_scalars.h.
 * Return codes: -1 a Python error, -2 not handled here, -5 a nested value met in plain_only. */

#define NEED(k) do { if (d->doc_end - d->pos < (Py_ssize_t)(k)) return refuse_cut_short(d); } while (0)

static uint64_t rd_be(Dec *d, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = (v << 8) | d->p[d->pos + i];
    d->pos += n;
    return v;
}

/* Remember which values read in place (ext 0 tuples, sets) enclose a failure, innermost first: the
 * error names them outermost first (_core_unpack.h), as their nested decoders would
 * (serreg/_registry/decode.py, _locate): an error not located yet (raised here, or by a struct reader)
 * is named by the innermost one, a located one gets them all in its nesting. */
static void note_open_exts(Dec *d) {
    Py_ssize_t count = 0;
    int innermost = K_NONE, skip = 0;
    for (Py_ssize_t i = 0; i < d->sp; i++) {
        if (d->stack[i].kind == D_EXT && d->stack[i].ext_kind < N_KINDS) {
            count++;
            innermost = d->stack[i].ext_kind;
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
                else
                    skip = 1;
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
 * the document alike, refused with msgpack's words when the count is beyond its reader's limits
 * (the document's length, half of it for a map's pairs), else read on (0) as msgpack reads on, to
 * the fault it meets first (a value cut short, a refused ext...): never more items than the
 * document's length, and a container costs nothing before its items are read. */
static int count_beyond_bytes(Dec *d, int container, Py_ssize_t n) {
    Py_ssize_t limit = d->doc_end - doc_start(d);
    if (container == D_MAP) limit /= 2;
    if (!d->called || decode_error_type == NULL || !worded_alike(d, 0)) return -2;
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

/* An ext the pure codec's hook refuses (serreg/codec/pure.py): refused here with its words, also after
 * nested values were decoded (so not "malformed ..., after nested values"). Ext -1, which msgpack
 * decodes itself and the pure codec refuses after the document, is left to the caller (-2), but for
 * a length msgpack's reader refuses at once (after nested values, where the pure codec reads the
 * document alike). */
static int refuse_ext(Dec *d, signed char type, Py_ssize_t n) {
    if (type == -1) { /* msgpack's own reader refuses a timestamp of another length at once */
        if (n == 4 || n == 8 || n == 12 || !d->called || decode_error_type == NULL || !worded_alike(d, 1)) return -2;
        PyErr_Format(decode_error_type, "invalid msgpack in-band data: ValueError: invalid timestamp data (length %zd)", n);
        note_open_exts(d);
        return -1;
    }
    if (decode_error_type == NULL || !worded_alike(d, 2)) return -2;
    if (type != 0)
        PyErr_Format(decode_error_type, "msgpack ext type %d is not used by serreg (only ext 0, nested value, ext 1, "
                     "struct, and ext 2, list of structs)", (int)type);
    else
        PyErr_Format(decode_error_type, "nested value of %zd bytes is too short to hold a ClassIDHash", n);
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
 * document's); else left to the pure codec, which decodes the document again (-2). */
static int refuse_bad_utf8(Dec *d) {
    if (!d->called || decode_error_type == NULL || !PyErr_ExceptionMatches(PyExc_UnicodeDecodeError) ||
        !worded_alike(d, 1))
        return -2;
    PyObject *type, *cause, *tb;
    PyErr_Fetch(&type, &cause, &tb);
    PyErr_NormalizeException(&type, &cause, &tb);
    Py_XDECREF(type);
    Py_XDECREF(tb);
    if (cause == NULL) return -2;
    PyErr_Format(decode_error_type, "invalid msgpack in-band data: UnicodeDecodeError: %S", cause);
    PyObject *etype, *error, *etb;
    PyErr_Fetch(&etype, &error, &etb);
    PyErr_NormalizeException(&etype, &error, &etb);
    if (error != NULL) PyException_SetCause(error, cause); /* as "raise ... from error"; steals cause */
    else Py_DECREF(cause);
    PyErr_Restore(etype, error, etb);
    note_open_exts(d);
    return -1;
}

static int dec_run(Dec *d) {
    for (;;) {
        PyObject *v = NULL;
        if (d->sp > 0 && d->stack[d->sp - 1].kind != D_EXT) {
            int r = dec_scalars(d, &v);
            if (r < 0) return r == -3 ? refuse_bad_utf8(d) : r;
            if (r == 1) goto complete; /* the container's last item, a scalar */
        }
        Py_ssize_t n;
        int container = -1, ext = 0, is_str = 0;
        NEED(1);
        Py_ssize_t start = d->pos;
        /* This item of the open container is started: what is still owed starts after it. */
        if (d->sp > 0 && d->stack[d->sp - 1].kind != D_EXT) d->pending--;
        unsigned char b = d->p[d->pos++];
        if (b <= 0x7f) v = PyLong_FromLong(b);
        else if (b >= 0xe0) v = PyLong_FromLong((signed char)b);
        else if (b <= 0x8f) { n = b & 0x0f; container = D_MAP; }
        else if (b <= 0x9f) { n = b & 0x0f; container = D_ARRAY; }
        else if (b <= 0xbf) { n = b & 0x1f; is_str = 1; goto raw; }
        else {
            switch (b) {
            case 0xc0: v = Py_NewRef(Py_None); break;
            case 0xc2: v = Py_NewRef(Py_False); break;
            case 0xc3: v = Py_NewRef(Py_True); break;
            case 0xc4: NEED(1); n = (Py_ssize_t)rd_be(d, 1); goto raw;
            case 0xc5: NEED(2); n = (Py_ssize_t)rd_be(d, 2); goto raw;
            case 0xc6: NEED(4); n = (Py_ssize_t)rd_be(d, 4); goto raw;
            case 0xc7: NEED(1); n = (Py_ssize_t)rd_be(d, 1); ext = 1; break;
            case 0xc8: NEED(2); n = (Py_ssize_t)rd_be(d, 2); ext = 1; break;
            case 0xc9: NEED(4); n = (Py_ssize_t)rd_be(d, 4); ext = 1; break;
            case 0xca: {
                NEED(4);
                uint32_t bits = (uint32_t)rd_be(d, 4);
                float x;
                memcpy(&x, &bits, 4);
                v = PyFloat_FromDouble(x);
                break;
            }
            case 0xcb: {
                NEED(8);
                uint64_t bits = rd_be(d, 8);
                double x;
                memcpy(&x, &bits, 8);
                v = PyFloat_FromDouble(x);
                break;
            }
            case 0xcc: NEED(1); v = PyLong_FromLong((long)rd_be(d, 1)); break;
            case 0xcd: NEED(2); v = PyLong_FromLong((long)rd_be(d, 2)); break;
            case 0xce: NEED(4); v = PyLong_FromLongLong((long long)rd_be(d, 4)); break;
            case 0xcf: NEED(8); v = PyLong_FromUnsignedLongLong(rd_be(d, 8)); break;
            case 0xd0: NEED(1); v = PyLong_FromLong((int8_t)rd_be(d, 1)); break;
            case 0xd1: NEED(2); v = PyLong_FromLong((int16_t)rd_be(d, 2)); break;
            case 0xd2: NEED(4); v = PyLong_FromLong((int32_t)rd_be(d, 4)); break;
            case 0xd3: NEED(8); v = PyLong_FromLongLong((int64_t)rd_be(d, 8)); break;
            case 0xd4: n = 1; ext = 1; break;
            case 0xd5: n = 2; ext = 1; break;
            case 0xd6: n = 4; ext = 1; break;
            case 0xd7: n = 8; ext = 1; break;
            case 0xd8: n = 16; ext = 1; break;
            case 0xd9: NEED(1); n = (Py_ssize_t)rd_be(d, 1); is_str = 1; goto raw;
            case 0xda: NEED(2); n = (Py_ssize_t)rd_be(d, 2); is_str = 1; goto raw;
            case 0xdb: NEED(4); n = (Py_ssize_t)rd_be(d, 4); is_str = 1; goto raw;
            case 0xdc: NEED(2); n = (Py_ssize_t)rd_be(d, 2); container = D_ARRAY; break;
            case 0xdd: NEED(4); n = (Py_ssize_t)rd_be(d, 4); container = D_ARRAY; break;
            case 0xde: NEED(2); n = (Py_ssize_t)rd_be(d, 2); container = D_MAP; break;
            case 0xdf: NEED(4); n = (Py_ssize_t)rd_be(d, 4); container = D_MAP; break;
            default: return refuse_format(d); /* 0xc1 is never used */
            }
        }
        if (container >= 0) {
            if (d->doc_depth >= MSGPACK_MAX_NESTING) return refuse_too_deep(d);
            if (n == 0) {
                v = container == D_ARRAY ? PyList_New(0) : PyDict_New();
            } else {
                Py_ssize_t items = container == D_MAP ? 2 * n : n;
                if (items > d->doc_end - d->pos || d->pending + items > d->end - d->pos) {
                    int r = count_beyond_bytes(d, container, n);
                    if (r < 0) return r;
                }
                if (push_frame(d, container, items) < 0) return -1;
                d->pending += items;
                d->doc_depth++;
                continue;
            }
        } else if (ext) {
            NEED(1 + n);
            signed char type = (signed char)d->p[d->pos++];
            const unsigned char *payload = d->p + d->pos;
            if (type == -1) d->saw_timestamp = 1;
            if (d->plain_only) return -5;
            if (type == 1 || type == 2) {
                int how = type == 1 ? dec_structs->here(d, payload, n, &v) : dec_structs->here_list(d, payload, n, &v);
                if (how < 0) return how;
                if (how == 1) { /* its array is decoded in a frame, then built by its reader(s) */
                    if (push_frame(d, D_EXT, 0) < 0) return -1;
                    DFrame *f = &d->stack[d->sp - 1];
                    f->ext_kind = type == 1 ? K_STRUCT : K_STRUCTS;
                    f->saved_doc_end = d->doc_end;
                    f->saved_doc_depth = d->doc_depth;
                    d->doc_end = d->pos + n;
                    d->doc_depth = 0;
                    d->depth++;
                    continue;
                }
                if (how == 2 && (v = dec_struct(d, start, d->pos + n)) == NULL) {
                    note_open_exts(d);
                    return -1;
                }
                d->pos += n;
                goto complete;
            }
            if (type != 0 || n < HASH_SIZE) return refuse_ext(d, type, n); /* reserved types, ext -1, short payloads */
            if (dec_load_state(d) < 0) return -2;
            int kind = hash_kind(d, payload);
            if (kind != K_NONE && d->inline_ok && d->allowed[kind] && d->depth < d->max_depth) {
                if (kind == K_TUPLE || kind == K_SET || kind == K_FROZENSET) {
                    if (push_frame(d, D_EXT, 0) < 0) return -1;
                    DFrame *f = &d->stack[d->sp - 1];
                    f->ext_kind = kind;
                    f->saved_doc_end = d->doc_end;
                    f->saved_doc_depth = d->doc_depth;
                    d->doc_end = d->pos + n;
                    d->pos += HASH_SIZE;
                    f->doc_start = d->pos;
                    d->doc_depth = 0;
                    d->depth++;
                    int walked = walk_in_place(d, d->p + d->pos, n - HASH_SIZE);
                    if (walked < 0) return walked;
                    continue;
                }
                v = dec_leaf(kind, payload + HASH_SIZE, n - HASH_SIZE);
            }
            if (v == NULL) {
                v = dec_nested(d, payload, n);
                if (v == NULL) {
                    note_open_exts(d);
                    return -1;
                }
            }
            d->pos += n;
        }
        if (0) {
        raw:
            NEED(n);
            v = is_str ? decode_str(d->p + d->pos, n, d->end - d->pos, d->sp > 0 && d->stack[d->sp - 1].kind == D_MAP &&
                                                          !((d->nvals - d->stack[d->sp - 1].vstart) & 1))
                       : PyBytes_FromStringAndSize((const char *)d->p + d->pos, n);
            if (v == NULL && is_str) return refuse_bad_utf8(d);
            d->pos += n;
        }
    complete:;
        /* A value is complete: it fills its container, which may complete in turn. */
        int r = push_val(d, v);
        if (r < 0) return r;
        for (;;) {
            if (d->sp == 0) return d->pos == d->end ? 0 : refuse_extra_data(d, 0, d->end);
            DFrame *f = &d->stack[d->sp - 1];
            if (f->kind == D_EXT) {
                if (d->pos != d->doc_end) return f->ext_kind < N_KINDS ? refuse_extra_data(d, f->doc_start, d->doc_end) : -2;
                PyObject *inner = d->vals[--d->nvals];
                if (f->ext_kind < N_KINDS && !PyList_CheckExact(inner)) {
                    r = refuse_not_array(d, f->ext_kind, inner);
                    Py_DECREF(inner);
                    return r;
                }
                v = finish_ext(d, f->ext_kind, inner);
                Py_DECREF(inner);
                d->doc_end = f->saved_doc_end;
                d->doc_depth = f->saved_doc_depth;
                d->depth--;
                d->sp--;
            } else {
                if (--f->remaining > 0) break;
                v = build_container(d, f);
                d->sp--;
                d->doc_depth--;
            }
            if (v == NULL && PyErr_Occurred() && decode_error_type != NULL && PyErr_ExceptionMatches(decode_error_type))
                return -1; /* refused with serreg's own error (hash flooding) */
            if ((r = push_val(d, v)) < 0) return r;
        }
    }
}
