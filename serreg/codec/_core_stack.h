/* Whether the calling thread's C stack has room for one more value written through Python code
 * (serreg/codec/_core.c). A value nested through serializers (a tuple in a tuple ... past the levels
 * written in place, a user type holding another) makes each level a call into Python and back into
 * the codec, a few KiB of C stack per level; CPython 3.11's recursion limit counts Python frames, not
 * C stack, so on a thread with a small stack (threading.stack_size(256 * 1024)) the process crashed
 * long before a RecursionError. The encoder asks here before each such call and raises RecursionError
 * (worded by the registry as any value nested too deeply) when less than STACK_RESERVE is left. The
 * stack's bounds are read once per thread (pthread_getattr_np, Linux with glibc); elsewhere the answer
 * is always yes, as before. */

#define STACK_RESERVE (64 * 1024)

#if defined(__linux__) && defined(__GLIBC__)
#include <pthread.h>

static __thread uintptr_t stack_low; /* the thread's lowest stack address; 0 not read yet, 1 unknown */

static int stack_has_room(void) {
    volatile char here = 0;
    if (stack_low == 0) {
        pthread_attr_t attr;
        void *addr;
        size_t size;
        stack_low = 1;
        if (pthread_getattr_np(pthread_self(), &attr) == 0) {
            if (pthread_attr_getstack(&attr, &addr, &size) == 0 && (uintptr_t)addr > 1) stack_low = (uintptr_t)addr;
            pthread_attr_destroy(&attr);
        }
    }
    return stack_low == 1 || (uintptr_t)&here < stack_low || (uintptr_t)&here - stack_low > STACK_RESERVE;
}
#else
static int stack_has_room(void) { return 1; }
#endif

/* 0 if there is room; else -1 with a RecursionError set (the encoder's Python error return). */
static int stack_check(void) {
    if (stack_has_room()) return 0;
    PyErr_SetString(PyExc_RecursionError, "the thread's C stack is nearly used up (value nested too deeply)");
    return -1;
}
