/* Large bytes values copied out of a frame: a new bytes object filled with streaming stores.
 *
 * deserialize of a frame that holds large bytes copies the buffer into a new bytes object. That new object is
 * written once and not read by the copy; with ordinary stores every cache line of it is first read from memory
 * and then evicts the frame and the caller's other data from the cache. From STREAM_COPY_THRESHOLD on, streaming
 * stores (written around the cache, no read first) make the round trip around the copy faster natively
 * (docs/BENCHMARKS.md, "bytes_10MB through bytes: the copy out of the frame written around the cache"). Below
 * it, and where the CPU lacks AVX2 or the compiler its intrinsics, PyBytes_FromStringAndSize copies as before.
 * The bytes made are the same either way. Included by _core.c before the readers of frames. */

#include "_stream_copy.h"

/* 8 MiB: at 4 MB both ways take the same time, at 8 MB streaming stores are ahead, at 10 and 16 MB by a sixth or
 * more (a round trip's two copies timed natively, docs/BENCHMARKS.md); a quarter of a 32 MiB last-level cache. */
#define STREAM_COPY_THRESHOLD (8 << 20)

/* Bytes from which stream_bytes copies with streaming stores: -1 not yet decided, 0 never. */
static Py_ssize_t stream_threshold = -1;

/* The threshold this machine gets: STREAM_COPY_THRESHOLD with AVX2, else 0. (Not derived from the cache size the
 * C library reports: on the machine measured that is 384 MiB, where one core shares an L3 of 32 MiB.) */
static Py_ssize_t stream_threshold_found(void) {
#if STREAM_COPY_AVAILABLE
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? (Py_ssize_t)STREAM_COPY_THRESHOLD : 0;
#else
    return 0;
#endif
}

/* bytes(src[0:n]), as PyBytes_FromStringAndSize(src, n) makes it. */
static PyObject *stream_bytes(const char *src, Py_ssize_t n) {
    if (stream_threshold < 0) stream_threshold = stream_threshold_found();
#if STREAM_COPY_AVAILABLE
    if (stream_threshold > 0 && n >= stream_threshold) {
        PyObject *made = PyBytes_FromStringAndSize(NULL, n);
        if (made != NULL) stream_copy(PyBytes_AS_STRING(made), src, (size_t)n);
        return made;
    }
#endif
    return PyBytes_FromStringAndSize(src, n);
}

/* stream_copy_threshold(threshold=None) -> int: the length from which stream_bytes copies with streaming stores
 * (0: never); a threshold given replaces it (for tests; -1 goes back to the one this machine gets). */
static PyObject *stream_copy_threshold(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs > 1) {
        PyErr_SetString(PyExc_TypeError, "stream_copy_threshold(threshold: int | None = None)");
        return NULL;
    }
    if (nargs == 1 && args[0] != Py_None) {
        Py_ssize_t given = PyLong_AsSsize_t(args[0]);
        if (given == -1 && PyErr_Occurred()) return NULL;
        if (given < -1) {
            PyErr_Format(PyExc_ValueError, "stream_copy_threshold: threshold must be -1 or more, got %zd", given);
            return NULL;
        }
        Py_ssize_t found = stream_threshold_found(); /* 0 without AVX2: a threshold given cannot turn it on */
        stream_threshold = given == -1 || found == 0 ? found : given;
    }
    if (stream_threshold < 0) stream_threshold = stream_threshold_found();
    return PyLong_FromSsize_t(stream_threshold);
}

#define STREAM_COPY_METHODS                                                                                        \
    {"stream_copy_threshold", (PyCFunction)(void (*)(void))stream_copy_threshold, METH_FASTCALL,                    \
     "stream_copy_threshold(threshold=None) -> int: the length from which large bytes are copied out of a frame "    \
     "with streaming stores (0: never, without AVX2); a threshold given replaces it, -1 restores this machine's (for " \
     "tests)."},
