/* Compiled twin of three functions of serreg/wire/frame.py (docs/FORMAT.md, section 4).
 *
 * join_frame(in_band_parts, buffers) -> bytes: an unsigned frame written into one bytes
 * object (header, table, in-band pieces, zero padding, buffers): one allocation, each byte
 * copied once; join_section(class_hash, in_band) the same for a frame without buffers, from
 * the two pieces a serialization result keeps (what to_bytes writes most often).  parse_frame(data, max_frame_size, max_buffers) -> (in-band offset, in-band
 * length, buffer offsets and lengths) when data is a valid unsigned frame within the limits,
 * None otherwise (the checks are _frame_layout.h's, which the codec's top-level entry shares): the
 * caller then reads it with FrameView, which reports what is wrong at which offset.  Same answers as the pure-Python functions (the tests run both).
 *
 * to_bytes_descriptor(cls, function) makes SerializationResult.to_bytes a C method of the class (a
 * method descriptor, which the interpreter calls directly): for a result without signing key and
 * without out-of-band buffers it is the frame the compiled codec wrote whole (the result's _frame:
 * bytes, immutable, handed out as it is) or join_section of the result's two slots, and with buffers
 * that are all memoryviews of contiguous bytes (or one bytes object, result.py's stand-in for the list of
 * its view) join_frame of them, with no Python frame; for anything
 * else it calls function, the Python method (twin in frame.py: the Python method unchanged). It is
 * written in _frame_result.h, included below. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <string.h>

#include "_frame_layout.h"

#define HEADER_SIZE 32
#define ENTRY_SIZE 16
#define ALIGNMENT 64
#define CLASS_ID_HASH_SIZE 8

static uint64_t align64(uint64_t n) { return (n + ALIGNMENT - 1) & ~(uint64_t)(ALIGNMENT - 1); }

static inline void put_le(unsigned char *p, uint64_t v, int n) {
#if !PY_BIG_ENDIAN
    if (n == 8) { /* one store */
        memcpy(p, &v, 8);
        return;
    }
#endif
    for (int i = 0; i < n; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* The first 16 bytes of an unsigned frame without out-of-band buffers. */
static const unsigned char SECTION_HEAD[16] = {'S', 'R', 'E', 'G', 1};

/* The unsigned frame of the in-band pieces parts[0:nparts] and the buffers bufs[0:nbuf] (views the caller
 * holds), written into one new bytes object. */
static PyObject *write_frame(const Py_buffer *parts, Py_ssize_t nparts, const Py_buffer *bufs, Py_ssize_t nbuf) {
    uint64_t in_band = 0, end;
    for (Py_ssize_t i = 0; i < nparts; i++) in_band += (uint64_t)parts[i].len;
    end = HEADER_SIZE + (uint64_t)ENTRY_SIZE * nbuf + in_band;
    for (Py_ssize_t i = 0; i < nbuf; i++) end = align64(end) + (uint64_t)bufs[i].len;
    if (end > (uint64_t)PY_SSIZE_T_MAX) return PyErr_NoMemory();
    PyObject *frame = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)end);
    if (frame == NULL) return NULL;
    unsigned char *out = (unsigned char *)PyBytes_AS_STRING(frame);
    memcpy(out, "SREG", 4);
    out[4] = 1;                       /* format version */
    memset(out + 5, 0, 3);            /* flags, reserved */
    put_le(out + 8, (uint64_t)nbuf, 4);
    memset(out + 12, 0, 4);           /* reserved */
    put_le(out + 16, in_band, 8);
    put_le(out + 24, end, 8);
    uint64_t at = HEADER_SIZE + (uint64_t)ENTRY_SIZE * nbuf + in_band;
    for (Py_ssize_t i = 0; i < nbuf; i++) {
        uint64_t offset = align64(at), length = (uint64_t)bufs[i].len;
        put_le(out + HEADER_SIZE + ENTRY_SIZE * i, offset, 8);
        put_le(out + HEADER_SIZE + ENTRY_SIZE * i + 8, length, 8);
        at = offset + length;
    }
    at = HEADER_SIZE + (uint64_t)ENTRY_SIZE * nbuf;
    for (Py_ssize_t i = 0; i < nparts; i++) {
        if (parts[i].len) memcpy(out + at, parts[i].buf, parts[i].len);
        at += (uint64_t)parts[i].len;
    }
    for (Py_ssize_t i = 0; i < nbuf; i++) {
        uint64_t offset = align64(at);
        memset(out + at, 0, offset - at); /* the padding only: every other byte is written once */
        if (bufs[i].len) memcpy(out + offset, bufs[i].buf, bufs[i].len);
        at = offset + (uint64_t)bufs[i].len;
    }
    return frame;
}

static PyObject *join_frame(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyList_CheckExact(args[0]) || !PyList_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "join_frame(in_band_parts: list, buffers: list)");
        return NULL;
    }
    PyObject *parts = args[0], *buffers = args[1], *frame = NULL;
    Py_ssize_t nparts = PyList_GET_SIZE(parts), nbuf = PyList_GET_SIZE(buffers), done_parts = 0, done_bufs = 0;
    Py_buffer *views = PyMem_Calloc((size_t)(nparts + nbuf) + 1, sizeof(Py_buffer));
    if (views == NULL) return PyErr_NoMemory();
    for (; done_parts < nparts; done_parts++) {
        if (PyObject_GetBuffer(PyList_GET_ITEM(parts, done_parts), &views[done_parts], PyBUF_SIMPLE) < 0) goto done;
    }
    for (; done_bufs < nbuf; done_bufs++) {
        if (PyObject_GetBuffer(PyList_GET_ITEM(buffers, done_bufs), &views[nparts + done_bufs], PyBUF_SIMPLE) < 0) goto done;
    }
    frame = write_frame(views, nparts, views + nparts, nbuf);
done:
    for (Py_ssize_t i = 0; i < done_parts; i++) PyBuffer_Release(&views[i]);
    for (Py_ssize_t i = 0; i < done_bufs; i++) PyBuffer_Release(&views[nparts + i]);
    PyMem_Free(views);
    return frame;
}

/* join_section(class_hash, in_band) -> bytes: the unsigned frame of an in-band section without
 * out-of-band buffers, its two pieces (each None or a buffer) copied once into one bytes object. */
static PyObject *join_section(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "join_section(class_hash, in_band)");
        return NULL;
    }
    Py_buffer views[2];
    int held = 0;
    PyObject *frame = NULL;
    uint64_t in_band = 0;
    for (; held < 2; held++) {
        if (args[held] == Py_None || PyBytes_CheckExact(args[held])) { /* bytes: read in place, no request */
            views[held].obj = NULL;
            views[held].buf = args[held] == Py_None ? NULL : PyBytes_AS_STRING(args[held]);
            views[held].len = args[held] == Py_None ? 0 : PyBytes_GET_SIZE(args[held]);
            in_band += (uint64_t)views[held].len;
            continue;
        }
        if (PyObject_GetBuffer(args[held], &views[held], PyBUF_SIMPLE) < 0) goto done;
        in_band += (uint64_t)views[held].len;
    }
    frame = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(HEADER_SIZE + in_band));
    if (frame == NULL) goto done;
    unsigned char *out = (unsigned char *)PyBytes_AS_STRING(frame);
    memcpy(out, SECTION_HEAD, 16);    /* magic, format version 1, flags, reserved, no buffers, reserved */
    put_le(out + 16, in_band, 8);
    put_le(out + 24, HEADER_SIZE + in_band, 8);
    out += HEADER_SIZE;
    for (int i = 0; i < 2; i++) {
        if (views[i].len == CLASS_ID_HASH_SIZE) memcpy(out, views[i].buf, CLASS_ID_HASH_SIZE); /* one store */
        else if (views[i].len) memcpy(out, views[i].buf, views[i].len);
        out += views[i].len;
    }
done:
    for (int i = 0; i < held; i++) {
        if (views[i].obj != NULL) PyBuffer_Release(&views[i]);
    }
    return frame;
}

/* Limits are None (no limit) or non-negative ints. */
static int read_limit(PyObject *o, uint64_t *out) {
    if (o == Py_None) { *out = FRAME_NO_LIMIT; return 0; }
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    *out = v;
    return 0;
}

static PyObject *parse_frame(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "parse_frame(data, max_frame_size, max_buffers)");
        return NULL;
    }
    uint64_t max_size, max_buffers;
    if (read_limit(args[1], &max_size) < 0 || read_limit(args[2], &max_buffers) < 0) return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) {
        PyErr_Clear();
        Py_RETURN_NONE; /* strided and the like: FrameView explains */
    }
    PyObject *result = NULL, *entries;
    const unsigned char *p = view.buf;
    FrameLayout layout;
    if (!frame_layout(p, (uint64_t)view.len, max_size, max_buffers, &layout)) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    if ((entries = PyTuple_New((Py_ssize_t)layout.count)) == NULL) goto done;
    for (uint64_t i = 0; i < layout.count; i++) {
        uint64_t offset, length;
        frame_entry(p, i, &offset, &length);
        PyObject *entry = Py_BuildValue("(KK)", (unsigned long long)offset, (unsigned long long)length);
        if (entry == NULL) { Py_DECREF(entries); goto done; }
        PyTuple_SET_ITEM(entries, (Py_ssize_t)i, entry);
    }
    result = Py_BuildValue("(KKN)", (unsigned long long)layout.in_band_offset, (unsigned long long)layout.in_band_len,
                           entries);
done:
    PyBuffer_Release(&view);
    return result;
}

#include "_frame_result.h"

/* track(obj): let the garbage collector see obj if it is a container it does not track yet. */
static PyObject *track(PyObject *module, PyObject *obj) {
    if (PyObject_IS_GC(obj) && !PyObject_GC_IsTracked(obj)) PyObject_GC_Track(obj);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"track", track, METH_O,
     "track(obj): the garbage collector tracks obj from now on, if it is a container it does not track yet "
     "(a result the compiled codec made without references to other containers, when it is given one)."},
    {"to_bytes_descriptor", (PyCFunction)(void (*)(void))to_bytes_descriptor, METH_FASTCALL,
     "to_bytes_descriptor(cls, function) -> method descriptor: SerializationResult.to_bytes written in C for a "
     "result whose frame the codec wrote, or without key whose buffers (if any) are memoryviews of contiguous "
     "bytes; function (the Python method) for anything else."},
    {"join_frame", (PyCFunction)(void (*)(void))join_frame, METH_FASTCALL,
     "join_frame(in_band_parts: list, buffers: list) -> bytes: the unsigned frame of these parts."},
    {"join_section", (PyCFunction)(void (*)(void))join_section, METH_FASTCALL,
     "join_section(class_hash, in_band) -> bytes: the unsigned frame of an in-band section (its two pieces, "
     "each None or bytes-like) without out-of-band buffers."},
    {"parse_frame", (PyCFunction)(void (*)(void))parse_frame, METH_FASTCALL,
     "parse_frame(data, max_frame_size, max_buffers) -> (in-band offset, in-band length, ((offset, length), ...)) "
     "of a valid unsigned frame within the limits, or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "serreg.wire._frame", NULL, -1, methods};

PyMODINIT_FUNC PyInit__frame(void) {
    return PyModule_Create(&module);
}
