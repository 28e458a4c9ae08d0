/* Lists of struct instances (ext 2) read by MsgpackCodec.unpack (docs/FORMAT.md, 10.3-10.4).
 *
 * An ext 2 of a definition that is its registered class's own (the DecodeScope's plan) is checked
 * whole before anything is built: the array of 2 + n items, the index, count against the bytes, each
 * column as its field's type says (integer varints minimal, in the field's range, kind byte right;
 * float and bool bins of exactly count values; arrays of exactly count values). A class of scalar
 * fields is then read straight from the bytes and built here; any other is decoded as an array in a
 * frame (nested values and instances read in place) and each instance built by the definition's
 * Python reader from its row. Anything else (another definition: evolution, carriers; a column that
 * fails a check) is read by the pure codec, which words the refusal. */

/* A msgpack array header at p[*at..end): 1 and its count, or 0. */
static int read_array_header(const unsigned char *p, Py_ssize_t *at, Py_ssize_t end, Py_ssize_t *count) {
    Py_ssize_t i = *at;
    if (i >= end) return 0;
    unsigned char b = p[i++];
    if (b >= 0x90 && b <= 0x9f) *count = b & 0x0f;
    else if (b == 0xdc && end - i >= 2) { *count = (p[i] << 8) | p[i + 1]; i += 2; }
    else if (b == 0xdd && end - i >= 4) {
        *count = ((Py_ssize_t)p[i] << 24) | (p[i + 1] << 16) | (p[i + 2] << 8) | p[i + 3];
        i += 4;
    } else return 0;
    *at = i;
    return 1;
}

/* A msgpack bin header at p[*at..end) whose content fits: 1 and its length, or 0. */
static int read_bin_header(const unsigned char *p, Py_ssize_t *at, Py_ssize_t end, Py_ssize_t *len) {
    Py_ssize_t i = *at;
    if (i >= end) return 0;
    unsigned char b = p[i++];
    int head = b == 0xc4 ? 1 : b == 0xc5 ? 2 : b == 0xc6 ? 4 : 0;
    if (head == 0 || end - i < head) return 0;
    Py_ssize_t n = 0;
    for (int k = 0; k < head; k++) n = (n << 8) | p[i + k];
    i += head;
    if (n > end - i) return 0;
    *len = n;
    *at = i;
    return 1;
}

static inline int bin_column(int code) { return (code >= FT_BOOL && code <= FT_FLOAT64); }

/* One integer of a varint column: the value, checked against t's range; 0 if it does not fit. */
static inline int read_varint(const unsigned char *p, Py_ssize_t *at, Py_ssize_t end, uint64_t *out) {
    Py_ssize_t i = *at;
    if (i < end && p[i] < 0x80) { /* one byte: most values */
        *out = p[i];
        *at = i + 1;
        return 1;
    }
    uint64_t u = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (i >= end) return 0;
        unsigned char b = p[i++];
        if (shift == 63 && b > 1) return 0; /* beyond 64 bits */
        u |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            if (b == 0 && shift > 0) return 0; /* not minimal */
            *out = u;
            *at = i;
            return 1;
        }
    }
    return 0;
}

/* The content of a bin column (after its header), len bytes, checked for count values of type t;
 * with dst, the values too (new references). 1, or 0 if it does not hold them (nothing kept). */
static int dec_bin_column(TNode *t, const unsigned char *p, Py_ssize_t len, Py_ssize_t count, PyObject **dst) {
    int code = t->code;
    Py_ssize_t j = 0;
    if (code == FT_FLOAT64 || code == FT_FLOAT32 || code == FT_BOOL) {
        int width = code == FT_FLOAT64 ? 8 : code == FT_FLOAT32 ? 4 : 1;
        if (len / width != count || len % width != 0) return 0;
        for (; j < count; j++) {
            const unsigned char *q = p + j * width;
            PyObject *v;
            if (code == FT_BOOL) {
                if (q[0] > 1) goto fail;
                if (dst == NULL) continue;
                v = Py_NewRef(q[0] ? Py_True : Py_False);
            } else {
                if (dst == NULL) continue;
                uint64_t bits = 0;
                for (int k = width - 1; k >= 0; k--) bits = (bits << 8) | q[k];
                double x;
                if (width == 8) memcpy(&x, &bits, 8);
                else { uint32_t b32 = (uint32_t)bits; float f; memcpy(&f, &b32, 4); x = f; }
                v = PyFloat_FromDouble(x);
                if (v == NULL) { PyErr_Clear(); goto fail; }
            }
            dst[j] = v;
        }
        return 1;
    }
    if (len < 1 || p[0] > 1 || (p[0] == 1 && code >= FT_UINT8)) return 0;
    int zigzag = p[0] == 1, negative = 0;
    Py_ssize_t at = 1;
    for (; j < count; j++) {
        uint64_t u;
        if (!read_varint(p, &at, len, &u)) goto fail;
        PyObject *v = NULL;
        if (zigzag) {
            int64_t x = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
            if (x < 0) negative = 1;
            if (x < t->low || (x >= 0 && (uint64_t)x > t->high)) goto fail;
            if (dst != NULL) v = PyLong_FromLongLong(x);
        } else {
            if (u > t->high) goto fail;
            if (dst != NULL) v = u <= (uint64_t)LONG_MAX ? PyLong_FromLong((long)u) : PyLong_FromUnsignedLongLong(u);
        }
        if (dst != NULL) {
            if (v == NULL) { PyErr_Clear(); goto fail; }
            dst[j] = v;
        }
    }
    if (at == len && (!zigzag || negative)) return 1;
fail:
    for (Py_ssize_t i = 0; dst != NULL && i < j; i++) Py_CLEAR(dst[i]);
    return 0;
}

/* Column k of an ext 2 at p[*at..end), checked; with dst (scalar fields only), its values too. */
static int dec_column(TNode *t, const unsigned char *p, Py_ssize_t *at, Py_ssize_t end, Py_ssize_t count,
                      PyObject **dst) {
    if (bin_column(t->code)) {
        Py_ssize_t len;
        if (!read_bin_header(p, at, end, &len) || !dec_bin_column(t, p + *at, len, count, dst)) return 0;
        *at += len;
        return 1;
    }
    Py_ssize_t items, j = 0;
    if (!read_array_header(p, at, end, &items) || items != count) return 0;
    for (; j < count; j++) {
        if (dst == NULL ? !skip_value(p, at, end) : (dst[j] = dec_scalar(p, at, end, t)) == NULL) break;
    }
    if (j == count) return 1;
    for (Py_ssize_t i = 0; dst != NULL && i < j; i++) Py_CLEAR(dst[i]);
    return 0;
}

/* The instances of a checked ext 2 of a scalar-only class, from its columns (references stolen);
 * NULL and no error set when one cannot be built (its reader words why). */
static PyObject *build_rows(StructPlan *plan, PyObject **cols, Py_ssize_t count) {
    Py_ssize_t n = plan->n, j = 0;
    PyObject *list = PyList_New(count), *small[16];
    PyObject **row = n <= 16 ? small : PyMem_Malloc(n * sizeof(PyObject *));
    if (list == NULL || row == NULL) goto fail;
    for (; j < count; j++) {
        for (Py_ssize_t k = 0; k < n; k++) row[k] = cols[k * count + j];
        PyObject *obj = plan_build(plan, row); /* steals the row */
        if (obj == NULL) { j++; goto fail; }
        PyList_SET_ITEM(list, j, obj);
    }
    if (row != small) PyMem_Free(row);
    return list;
fail:
    PyErr_Clear();
    for (; j < count; j++) {
        for (Py_ssize_t k = 0; k < n; k++) Py_DECREF(cols[k * count + j]);
    }
    if (row != small && row != NULL) PyMem_Free(row);
    Py_XDECREF(list); /* the items set so far, and NULL slots */
    return NULL;
}

/* An ext 2 at d->pos (its payload, n bytes): 0 built (*out), 1 decode its array in a frame, 2 the
 * pure codec reads it, -1 a Python error. */
static int dec_struct_list_here(Dec *d, const unsigned char *payload, Py_ssize_t n, PyObject **out) {
    if (d->plain_top && !d->struct_top) return -1;
    if (dec_load_state(d) < 0) { PyErr_Clear(); return 2; }
    int r = dec_struct_scope(d);
    if (r) return r;
    Py_ssize_t at = 0, items;
    long long index, count;
    if (!read_array_header(payload, &at, n, &items) || !read_int(payload, &at, n, &index) || index < 0 ||
        index >= PyList_GET_SIZE(d->struct_plans))
        return 2;
    PyObject *found = PyList_GET_ITEM(d->struct_plans, index);
    if (!IS_PLAN(found)) return 2; /* another definition of the class, a carrier: the pure codec */
    StructPlan *plan = (StructPlan *)found;
    if (plan->n == 0 || plan->fields == NULL || items != plan->n + 2) return 2;
    if (!read_int(payload, &at, n, &count) || count < 1 || count > n - at) return 2;
    int has_state = (d->state != NULL && d->state != Py_None) || d->plain_top; /* unpack_top: its max_depth */
    if (has_state && (!d->inline_ok || d->depth + 1 > d->max_depth)) return 2;
    PyObject **cols = NULL;
    if (plan->c_leaf) {
        if ((size_t)count > PY_SSIZE_T_MAX / sizeof(PyObject *) / plan->n) return 2;
        cols = PyMem_Malloc(plan->n * count * sizeof(PyObject *));
        if (cols == NULL) { PyErr_NoMemory(); return -1; }
    }
    Py_ssize_t k = 0;
    for (; k < plan->n; k++) {
        if (!dec_column(&plan->fields[k], payload, &at, n, count, cols == NULL ? NULL : cols + k * count)) break;
    }
    if (k < plan->n || at != n) {
        for (Py_ssize_t i = 0; cols != NULL && i < k * count; i++) Py_DECREF(cols[i]);
        PyMem_Free(cols);
        return 2;
    }
    if (cols == NULL) return 1;
    *out = build_rows(plan, cols, count);
    PyMem_Free(cols);
    return *out != NULL ? 0 : 2;
}

/* The decoded array [index, count, columns...] of an ext 2 checked by dec_struct_list_here: each
 * instance built by the definition's Python reader from [index, its field values...]. */
static PyObject *finish_struct_list(Dec *d, PyObject *inner) {
    Py_ssize_t size = PyList_GET_SIZE(inner);
    if (size < 3 || d->struct_readers == NULL) return NULL;
    PyObject *first = PyList_GET_ITEM(inner, 0);
    Py_ssize_t index = PyLong_AsSsize_t(first), count = PyLong_AsSsize_t(PyList_GET_ITEM(inner, 1));
    if (index < 0 || index >= PyList_GET_SIZE(d->struct_plans) || count < 1 ||
        !IS_PLAN(PyList_GET_ITEM(d->struct_plans, index))) {
        PyErr_Clear();
        return NULL;
    }
    StructPlan *plan = (StructPlan *)PyList_GET_ITEM(d->struct_plans, index);
    PyObject *reader = PyList_GET_ITEM(d->struct_readers, index), *result = NULL;
    Py_ssize_t n = plan->n;
    if (size != n + 2) return NULL;
    /* Not zeroed (40,000 bytes for 1,000 instances of five fields): the columns read whole are held. */
    int fits = (size_t)count <= PY_SSIZE_T_MAX / sizeof(PyObject *) / n;
    PyObject **cols = fits ? PyMem_Malloc(n * count * sizeof(PyObject *)) : NULL;
    if (cols == NULL) return PyErr_NoMemory();
    Py_ssize_t k = 0, held = 0;
    for (; k < n; k++, held += count) { /* bins decoded again (checked before), arrays as they were decoded */
        PyObject *column = PyList_GET_ITEM(inner, k + 2);
        if (bin_column(plan->fields[k].code)) {
            if (!PyBytes_CheckExact(column) ||
                !dec_bin_column(&plan->fields[k], (const unsigned char *)PyBytes_AS_STRING(column),
                                PyBytes_GET_SIZE(column), count, cols + k * count))
                goto done;
        } else {
            if (!PyList_CheckExact(column) || PyList_GET_SIZE(column) != count) goto done;
            for (Py_ssize_t j = 0; j < count; j++) cols[k * count + j] = Py_NewRef(PyList_GET_ITEM(column, j));
        }
    }
    result = PyList_New(count);
    for (Py_ssize_t j = 0; result != NULL && j < count; j++) {
        PyObject *obj = d->python_rows ? NULL : build_checked(plan, cols + j, count);
        if (obj != NULL) {
            PyList_SET_ITEM(result, j, obj);
            continue;
        }
        PyObject *row = PyList_New(n + 1);
        if (row == NULL) { Py_CLEAR(result); break; }
        PyList_SET_ITEM(row, 0, Py_NewRef(first));
        for (Py_ssize_t i = 0; i < n; i++) PyList_SET_ITEM(row, i + 1, Py_NewRef(cols[i * count + j]));
        obj = PyObject_CallOneArg(reader, row);
        Py_DECREF(row);
        if (obj == NULL) { Py_CLEAR(result); break; }
        PyList_SET_ITEM(result, j, obj);
    }
done:
    for (Py_ssize_t i = 0; i < held; i++) Py_DECREF(cols[i]); /* a column that failed keeps nothing */
    PyMem_Free(cols);
    return result;
}

static const DecStructOps STRUCT_DEC_OPS = {dec_struct_here, finish_struct, dec_struct_list_here, finish_struct_list};
