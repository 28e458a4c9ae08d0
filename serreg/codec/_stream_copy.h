/* dst[0:n] = src[0:n] with streaming stores (AVX2), for serreg/codec/_core_copy.h and the native timing loop
 * benchmarks/native_copy_out.c: plain C, no Python. STREAM_COPY_AVAILABLE says whether stream_copy exists (x86-64
 * with GCC or Clang); the caller checks at run time that the CPU has AVX2 before calling it. */

#include <stdint.h>
#include <string.h>

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define STREAM_COPY_AVAILABLE 1
#else
#define STREAM_COPY_AVAILABLE 0
#endif

#if STREAM_COPY_AVAILABLE
/* dst[0:n] = src[0:n]: the head up to dst's next 32-byte boundary and the tail by memcpy, the rest 128 bytes a
 * step, loaded unaligned and stored aligned around the cache; the fence orders those stores before whatever the
 * caller writes next (the object's publication to other threads). */
__attribute__((target("avx2"))) static void stream_copy(char *dst, const char *src, size_t n) {
    size_t head = (size_t)(-(uintptr_t)dst & 31), i = 0;
    if (head > n) head = n;
    memcpy(dst, src, head);
    dst += head;
    src += head;
    n -= head;
    for (; n - i >= 128; i += 128) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(src + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(src + i + 32));
        __m256i c = _mm256_loadu_si256((const __m256i *)(src + i + 64));
        __m256i d = _mm256_loadu_si256((const __m256i *)(src + i + 96));
        _mm256_stream_si256((__m256i *)(dst + i), a);
        _mm256_stream_si256((__m256i *)(dst + i + 32), b);
        _mm256_stream_si256((__m256i *)(dst + i + 64), c);
        _mm256_stream_si256((__m256i *)(dst + i + 96), d);
    }
    _mm_sfence();
    memcpy(dst + i, src + i, n - i);
}
#endif

