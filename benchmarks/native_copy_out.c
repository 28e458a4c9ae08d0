/* Native timing loop for the copy out of a frame (serreg/codec/_core_copy.h): memcpy against stream_copy, in the
 * memory pattern of two benchmark operations on a value of N bytes, without Python.
 *
 *   round_trip:  F = malloc(N + 129); memcpy(F + 96, value, N)      (to_bytes: the payload at frame offset 64)
 *                O = malloc(N + 65);  copy(O + 32, F + 96, N)        (deserialize: the new bytes object)
 *                free(F); free(O)
 *   deserialize: O = malloc(N + 65);  copy(O + 32, F + 96, N); free(O)   (the same frame read again and again)
 *
 * copy is memcpy or stream_copy: batches of 10 operations, alternating between the two, each batch timed (steady
 * state, as the benchmark suite's samples of back-to-back calls). The C library's allocator is set to keep
 * blocks of this size on its heap and not hand them back (as it ends up in a process that moved larger blocks
 * before, e.g. the benchmark suite's), so the loops time copies, not page faults. Prints the minimum and the
 * median over the batches of each, in microseconds of wall and of thread CPU time per operation.
 *
 *   cc -O2 -o native_copy_out benchmarks/native_copy_out.c
 *   nice -n 10 ./native_copy_out round_trip 10000000 40
 *   nice -n 10 ./native_copy_out deserialize 10000000 40
 */

#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../serreg/codec/_stream_copy.h"

#define BATCH 10

static void *(*volatile copy_memcpy)(void *, const void *, size_t) = memcpy; /* not elided by the compiler */

static void copy_with(int stream, char *dst, const char *src, size_t n) {
#if STREAM_COPY_AVAILABLE
    if (stream) {
        stream_copy(dst, src, n);
        return;
    }
#endif
    (void)stream;
    copy_memcpy(dst, src, n);
}

static double clock_us(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s round_trip|deserialize N REPEATS\n", argv[0]);
        return 2;
    }
    int round_trip = argv[1][0] == 'r';
    size_t n = (size_t)atol(argv[2]);
    int repeats = atoi(argv[3]);
#if STREAM_COPY_AVAILABLE
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2")) {
        fprintf(stderr, "no AVX2: serreg copies with memcpy here\n");
        return 1;
    }
#else
    fprintf(stderr, "no streaming copy on this platform: serreg copies with memcpy here\n");
    return 1;
#endif
    if (n == 0 || repeats < 1) return 2;
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    char *value = malloc(n), *frame = malloc(n + 129);
    double *wall = malloc(sizeof(double) * 2 * (size_t)repeats), *cpu = malloc(sizeof(double) * 2 * (size_t)repeats);
    if (value == NULL || frame == NULL || wall == NULL || cpu == NULL) return 1;
    for (size_t i = 0; i < n; i++) value[i] = (char)(i * 7 + i / 251);
    memcpy(frame + 96, value, n);
    for (int r = 0; r < repeats; r++) {
        for (int k = 0; k < 2; k++) {
            int stream = (k + r) & 1;
            double w0 = clock_us(CLOCK_MONOTONIC), c0 = clock_us(CLOCK_THREAD_CPUTIME_ID);
            for (int b = 0; b < BATCH; b++) {
                char *f = frame;
                if (round_trip) {
                    f = malloc(n + 129);
                    if (f == NULL) return 1;
                    copy_memcpy(f + 96, value, n);
                }
                char *out = malloc(n + 65);
                if (out == NULL) return 1;
                copy_with(stream, out + 32, f + 96, n);
                if (out[32 + n - 1] != value[n - 1]) return 1;
                if (round_trip) free(f);
                free(out);
            }
            wall[stream * repeats + r] = (clock_us(CLOCK_MONOTONIC) - w0) / BATCH;
            cpu[stream * repeats + r] = (clock_us(CLOCK_THREAD_CPUTIME_ID) - c0) / BATCH;
        }
    }
    for (int stream = 0; stream < 2; stream++) {
        double *w = wall + stream * repeats, *c = cpu + stream * repeats;
        qsort(w, (size_t)repeats, sizeof(double), by_value);
        qsort(c, (size_t)repeats, sizeof(double), by_value);
        printf("%s %zu bytes, copy out by %-11s wall min %8.1f median %8.1f | cpu min %8.1f median %8.1f us\n",
               argv[1], n, stream ? "stream_copy" : "memcpy", w[0], w[repeats / 2], c[0], c[repeats / 2]);
    }
    return 0;
}
