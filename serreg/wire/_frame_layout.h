/* The layout rules of an unsigned frame (docs/FORMAT.md, section 4: the rules of 4 and the order of 4.1,
 * with the limits max_frame_size and max_buffers of 4.3), in C, for the readers that only need to know
 * whether a frame is valid: parse_frame (serreg/wire/_frame.c) and the codec's top-level entry of a value
 * with out-of-band buffers (serreg/codec/_core_top_value.h). They answer valid or not, nothing else: a
 * frame they do not take (invalid, signed, over a limit) goes to FrameView (serreg/wire/frame.py), which
 * checks it again in the order of 4.1 and says what is wrong at which offset, in serreg's own words.
 * All sizes are unsigned 64-bit values compared without overflow. */
#ifndef SERREG_FRAME_LAYOUT_H
#define SERREG_FRAME_LAYOUT_H

#include <stdint.h>
#include <string.h>

#define FRAME_HEADER_SIZE 32
#define FRAME_ENTRY_SIZE 16
#define FRAME_ALIGNMENT 64
#define FRAME_CLASS_ID_HASH_SIZE 8
#define FRAME_NO_LIMIT UINT64_MAX

/* The first 16 bytes of an unsigned frame of one out-of-band buffer: magic, format version 1, no flags,
 * reserved, K = 1, reserved. */
static const unsigned char FRAME_ONE_BUFFER_HEAD[16] = {'S', 'R', 'E', 'G', 1, 0, 0, 0, 1};

/* Where a valid frame's parts are; its buffer table starts at FRAME_HEADER_SIZE. */
typedef struct {
    uint64_t count;          /* K: out-of-band buffers */
    uint64_t in_band_offset; /* the in-band section (ClassIDHash first) */
    uint64_t in_band_len;
} FrameLayout;

static inline uint64_t frame_align64(uint64_t n) { return (n + FRAME_ALIGNMENT - 1) & ~(uint64_t)(FRAME_ALIGNMENT - 1); }

/* The n-byte little-endian integer at p (n is 4 or 8). */
static inline uint64_t frame_le(const unsigned char *p, int n) {
#if !PY_BIG_ENDIAN
    if (n == 8) { uint64_t v; memcpy(&v, p, 8); return v; }
    if (n == 4) { uint32_t v; memcpy(&v, p, 4); return v; }
#endif
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

/* Offset and length of buffer i of a frame (its table entry, as written). */
static inline void frame_entry(const unsigned char *p, uint64_t i, uint64_t *offset, uint64_t *length) {
    const unsigned char *entry = p + FRAME_HEADER_SIZE + FRAME_ENTRY_SIZE * i;
    *offset = frame_le(entry, 8);
    *length = frame_le(entry + 8, 8);
}

/* Whether p[from:to] is all zero bytes: a buffer's padding, fewer than 64 bytes that end at its offset to >= 64.
 * Read in 8-byte words ending at to; the first word's bytes before from (the frame's own, before the padding)
 * are shifted out, not compared. */
static inline int frame_zeros(const unsigned char *p, uint64_t from, uint64_t to) {
#if !PY_BIG_ENDIAN
    uint64_t word;
    for (; to - from >= 8; to -= 8) {
        memcpy(&word, p + to - 8, 8);
        if (word != 0) return 0;
    }
    if (to == from) return 1;
    memcpy(&word, p + to - 8, 8); /* to >= 8: within the frame */
    return (word >> (8 * (8 - (to - from)))) == 0; /* little-endian: p[from:to] are its top bytes */
#else
    for (; from < to; from++) {
        if (p[from]) return 0;
    }
    return 1;
#endif
}

/* 1 when p[0:size] is a valid unsigned frame within the limits (FRAME_NO_LIMIT: none), with *out filled;
 * 0 otherwise. Every rule of section 4 is checked: header, total length, no flags, the buffer count and
 * table, the in-band length, each buffer's offset (the 64-byte-aligned end of what precedes it: in order,
 * no overlap), its length, zero padding before it, and no byte after the last part. */
static int frame_layout(const unsigned char *p, uint64_t size, uint64_t max_size, uint64_t max_buffers,
                        FrameLayout *out) {
    if (size < FRAME_HEADER_SIZE || memcmp(p, "SREG", 4) != 0 || p[4] != 1 || p[5] != 0 || p[6] != 0 ||
        p[7] != 0 || frame_le(p + 12, 4) != 0)
        return 0;
    uint64_t count = frame_le(p + 8, 4), in_band = frame_le(p + 16, 8), total = frame_le(p + 24, 8);
    if (total > max_size || size > max_size || total != size || count > max_buffers) return 0;
    uint64_t table_end = FRAME_HEADER_SIZE + FRAME_ENTRY_SIZE * count; /* count < 2^32: no overflow */
    if (table_end > size || in_band < FRAME_CLASS_ID_HASH_SIZE || in_band > size - table_end) return 0;
    uint64_t expected = table_end + in_band;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t offset, length;
        frame_entry(p, i, &offset, &length);
        if (offset != frame_align64(expected) || offset > size || length > size - offset || !frame_zeros(p, expected, offset))
            return 0;
        expected = offset + length;
    }
    if (expected != size) return 0;
    out->count = count;
    out->in_band_offset = table_end;
    out->in_band_len = in_band;
    return 1;
}

#endif
