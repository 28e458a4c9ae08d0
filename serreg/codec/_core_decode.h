/* The decode loop of MsgpackCodec.unpack (serreg/codec/_core.c): one msgpack document read item
 * by item on the decoder's stacks (_core_decode_state.h), values built by _core_decode_values.h,
 * handed to Python by _core_decode_calls.h, runs of scalars by _core_decode_scalars.h, faults
 * refused in the pure codec's words by _core_decode_refuse.h.
 * Return codes: -1 a Python error, -2 not handled here, -5 a nested value met in plain_only. */

#define NEED(k) do { if (d->doc_end - d->pos < (Py_ssize_t)(k)) return refuse_cut_short(d); } while (0)

static uint64_t rd_be(Dec *d, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = (v << 8) | d->p[d->pos + i];
    d->pos += n;
    return v;
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
                    f->doc_start = d->pos;
                    f->saved_doc_end = d->doc_end;
                    f->saved_doc_depth = d->doc_depth;
                    d->doc_end = d->pos + n;
                    d->doc_depth = 0;
                    d->depth++;
                    continue;
                }
                if (how == 2 && (v = dec_struct(d, start, d->pos + n)) == NULL) {
                    if (type == 1) reword_struct_in_list(d);
                    note_open_exts(d);
                    return -1;
                }
                d->pos += n;
                goto complete;
            }
            if (type == -1) {
                PyObject *stand_in = NULL; /* in a struct's payload, a msgpack.Timestamp (read_timestamp) */
                int held = read_timestamp(d, payload, n, &stand_in);
                if (held < 0) return held;
                v = stand_in != NULL ? stand_in : Py_NewRef(Py_None); /* the document holding it is refused when it ends */
                d->pos += n;
                goto complete;
            }
            if (type != 0 || n < HASH_SIZE) return refuse_ext(d, type, n); /* reserved types, short payloads */
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
            if (d->sp == 0) return d->pos != d->end ? refuse_extra_data(d, 0, d->end) : d->top_timestamp ? refuse_timestamp(d) : 0;
            DFrame *f = &d->stack[d->sp - 1];
            if (f->kind == D_EXT) {
                if (d->pos != d->doc_end) return f->ext_kind < N_KINDS ? refuse_extra_data(d, f->doc_start, d->doc_end) : -2;
                if (f->holds_timestamp == 1) return refuse_timestamp(d);
                PyObject *inner = d->vals[--d->nvals];
                if (f->ext_kind < N_KINDS && !PyList_CheckExact(inner)) {
                    r = refuse_not_array(d, f->ext_kind, inner);
                    Py_DECREF(inner);
                    return r;
                }
                d->python_rows = f->holds_timestamp == 2; /* its Python readers refuse the timestamp */
                v = finish_ext(d, f->ext_kind, inner);
                d->python_rows = 0;
                if (v != NULL && f->holds_timestamp == 2) { /* never kept, should a reader take it */
                    Py_DECREF(v);
                    Py_DECREF(inner);
                    return refuse_timestamp(d);
                }
                Py_ssize_t members = PyList_GET_SIZE(inner);
                Py_DECREF(inner);
                if (v == NULL && (f->ext_kind == K_SET || f->ext_kind == K_FROZENSET) && PyErr_Occurred() &&
                    (r = refuse_unhashable(d, 1, members)) == -1)
                    return -1; /* named by the set, still open */
                d->doc_end = f->saved_doc_end;
                d->doc_depth = f->saved_doc_depth;
                d->depth--;
                d->sp--;
            } else {
                if (--f->remaining > 0) break;
                Py_ssize_t keys = (d->nvals - f->vstart) / 2;
                v = build_container(d, f);
                d->sp--;
                d->doc_depth--;
                if (v == NULL && f->kind == D_MAP && PyErr_Occurred() && !PyErr_ExceptionMatches(decode_error_type) &&
                    (r = refuse_unhashable(d, 0, keys)) == -1)
                    return -1;
            }
            if (v == NULL && PyErr_Occurred() && decode_error_type != NULL && PyErr_ExceptionMatches(decode_error_type))
                return -1; /* refused with serreg's own error (hash flooding) */
            if ((r = push_val(d, v)) < 0) return r;
        }
    }
}
