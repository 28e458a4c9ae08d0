/* The decoder's fast path: the scalar items of an open array or map read in one tight loop,
 * before the general loop (_core_decode.h) takes the next item. */

static inline uint64_t load_be64(const unsigned char *p) {
#if !PY_BIG_ENDIAN && (defined(__GNUC__) || defined(__clang__))
    uint64_t v;
    memcpy(&v, p, 8);
    return __builtin_bswap64(v);
#else
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
    return v;
#endif
}

/* The scalar items of the open array or map, read in a tight loop: fixints, ints of up to 32 bits,
 * floats, nil, bools and fixstrs. Stops at anything else and at the end of the bytes. The container's
 * last item, when it is one of these, is not pushed: it is *last (return 1), which the general loop
 * (_core_decode.h) takes as the value just read, completing the container. The position, the items
 * left and the values made are kept in locals and stored back once, on every way out. A str that is
 * not UTF-8 returns -3 with the state stored and the UnicodeDecodeError set; the general loop refuses
 * it (refuse_bad_utf8). */
static int dec_scalars(Dec *d, PyObject **last) {
    DFrame *f = &d->stack[d->sp - 1];
    const unsigned char *p = d->p;
    Py_ssize_t pos = d->pos, end = d->doc_end, remaining = f->remaining, first = d->nvals;
    int map = f->kind == D_MAP, is_key = map && !((d->nvals - f->vstart) & 1), r = 0;
    /* Room for every item left, made once (they all reach the value stack anyway, and a frame never
       declares more items than bytes are left): no check per item. */
    while (d->capvals - d->nvals < remaining) {
        if (grow_vals(d) < 0) return -1;
    }
    PyObject **out = d->vals + d->nvals;
    while (remaining > 0 && pos < end) {
        unsigned char b = p[pos];
        Py_ssize_t left = end - pos - 1;
        PyObject *v;
        switch (b >> 5) { /* one jump by the type byte's top three bits */
        case 0: case 1: case 2: case 3: /* positive fixint */
            v = PyLong_FromLong(b);
            break;
        case 7: /* negative fixint */
            v = PyLong_FromLong((signed char)b);
            break;
        case 5: { /* fixstr */
            Py_ssize_t n = b & 0x1f;
            if (left < n) goto stop;
            v = decode_str(p + pos + 1, n, left, is_key);
            if (v == NULL) { r = -3; goto stop; } /* not UTF-8: refused below, with the state stored */
            pos += n;
            break;
        }
        case 6:
            switch (b) {
            case 0xc0: v = Py_NewRef(Py_None); break;
            case 0xc2: v = Py_NewRef(Py_False); break;
            case 0xc3: v = Py_NewRef(Py_True); break;
            case 0xcb: {
                if (left < 8) goto stop;
                uint64_t bits = load_be64(p + pos + 1);
                double x;
                memcpy(&x, &bits, 8);
                v = PyFloat_FromDouble(x);
                pos += 8;
                break;
            }
            case 0xcc:
                if (left < 1) goto stop;
                v = PyLong_FromLong(p[pos + 1]);
                pos += 1;
                break;
            case 0xcd:
                if (left < 2) goto stop;
                v = PyLong_FromLong((p[pos + 1] << 8) | p[pos + 2]);
                pos += 2;
                break;
            case 0xd1:
                if (left < 2) goto stop;
                v = PyLong_FromLong((int16_t)((p[pos + 1] << 8) | p[pos + 2]));
                pos += 2;
                break;
            case 0xd2:
                if (left < 4) goto stop;
                v = PyLong_FromLong((int32_t)(((uint32_t)p[pos + 1] << 24) | ((uint32_t)p[pos + 2] << 16) |
                                              ((uint32_t)p[pos + 3] << 8) | p[pos + 4]));
                pos += 4;
                break;
            default:
                goto stop;
            }
            break;
        default: /* fixmap, fixarray: the general loop */
            goto stop;
        }
        pos++;
        if (v == NULL) { r = -2; break; }
        if (remaining == 1) { /* the last item: the general loop completes the container with it */
            *last = v;
            r = 1;
            break;
        }
        *out++ = v;
        remaining--;
        is_key ^= map;
    }
stop:
    d->nvals = out - d->vals;
    d->pending -= d->nvals - first + (r == 1);
    d->pos = pos;
    f->remaining = remaining;
    return r;
}
