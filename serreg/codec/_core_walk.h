/* A msgpack value walked without building it (serreg/codec/_core.c): where it ends, or that it is
 * cut short. The decoder walks an untrusted document first, as the pure codec does
 * (serreg/codec/checks.py, check_structure), and the struct list reader walks array columns
 * before it builds anything. */

/* 0xc0..0xdf: the bytes after the type byte of a value of fixed size; -1: not one (see skip_any_value). */
static const signed char skip_fixed[32] = {
    0, -1, 0, 0, -1, -1, -1, -1, -1, -1, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8, 2, 3, 5, 9, 17, -1, -1, -1, -1, -1, -1, -1};

/* skip_value for any value (below). */
static int skip_any_value(const unsigned char *p, Py_ssize_t *at, Py_ssize_t end) {
    const signed char *fixed = skip_fixed;
    Py_ssize_t i = *at, pending = 1;
    while (pending > 0) {
        if (i >= end || pending > end - i) return 0;
        unsigned char b = p[i++];
        pending--;
        Py_ssize_t skip = 0, items = 0;
        if (b <= 0x7f || b >= 0xe0) continue;
        if (b <= 0x8f) items = 2 * (b & 0x0f);
        else if (b <= 0x9f) items = b & 0x0f;
        else if (b <= 0xbf) skip = b & 0x1f;
        else if (fixed[b - 0xc0] >= 0) skip = fixed[b - 0xc0];
        else {
            int head = 0, extra = 0; /* length bytes; ext: one more for its type */
            switch (b) {
            case 0xc1: return 0;
            case 0xc4: case 0xd9: head = 1; break;
            case 0xc5: case 0xda: head = 2; break;
            case 0xc6: case 0xdb: head = 4; break;
            case 0xc7: head = 1; extra = 1; break;
            case 0xc8: head = 2; extra = 1; break;
            case 0xc9: head = 4; extra = 1; break;
            case 0xdc: case 0xde: head = 2; break;
            case 0xdd: case 0xdf: head = 4; break;
            }
            if (end - i < head) return 0;
            Py_ssize_t n = 0;
            for (int k = 0; k < head; k++) n = (n << 8) | p[i + k];
            i += head;
            if (b >= 0xdc) items = b >= 0xde ? 2 * n : n;
            else skip = n + extra;
        }
        if (skip > end - i) return 0;
        i += skip;
        pending += items;
    }
    *at = i;
    return 1;
}

/* Past one msgpack value of any kind at p[*at..end), without building it: 1, or 0 if it is not one
 * (truncated, or declaring more items than the bytes hold). Nesting is not limited: no stack. The
 * scalars a struct column mostly holds (fixints, fixstrs, and nil, bools, ints, floats and fixexts of
 * fixed size) are passed here, with the same checks as skip_any_value's. */
static inline int skip_value(const unsigned char *p, Py_ssize_t *at, Py_ssize_t end) {
    Py_ssize_t i = *at;
    if (i < end) {
        unsigned char b = p[i];
        Py_ssize_t left = end - i - 1, skip = -1;
        if (b <= 0x7f || b >= 0xe0) skip = 0;
        else if (b >= 0xa0 && b <= 0xbf) skip = b & 0x1f;
        else if (b >= 0xc0) skip = skip_fixed[b - 0xc0];
        if (skip >= 0) {
            if (skip > left) return 0;
            *at = i + 1 + skip;
            return 1;
        }
    }
    return skip_any_value(p, at, end);
}

/* What walk_structure finds: the document is sound, or the fault msgpack's Unpacker.skip() meets first. */
enum { WALK_SOUND = 0, WALK_OUT_OF_DATA = 1, WALK_FORMAT = 2, WALK_TOO_DEEP = 3, WALK_NO_MEMORY = -1 };

/* One msgpack document p[0..end) walked without building it, as the pure codec walks an untrusted one
 * (serreg/codec/checks.py, check_structure: msgpack's Unpacker.skip()), item by item with no look-ahead,
 * so the fault found is the one msgpack meets first: a container header (empty or not) while
 * MSGPACK_MAX_NESTING containers are open (WALK_TOO_DEEP, msgpack's StackError), the byte 0xc1
 * (WALK_FORMAT), or the bytes running out (WALK_OUT_OF_DATA: cut short, or more items declared than
 * follow). Bytes after the value are not looked at (the decoder refuses them). WALK_NO_MEMORY sets
 * MemoryError. */
static int walk_structure(const unsigned char *p, Py_ssize_t end) {
    const signed char *fixed = skip_fixed;
    Py_ssize_t small[64], *owed = small; /* items still owed by each open container, outermost first */
    Py_ssize_t open = 0, i = 0;
    int fault = WALK_SOUND;
    for (;;) {
        if (i >= end) { fault = WALK_OUT_OF_DATA; break; }
        unsigned char b = p[i++];
        Py_ssize_t skip = 0, items = -1; /* items >= 0: a container header */
        if (b <= 0x7f || b >= 0xe0) skip = 0;
        else if (b <= 0x8f) items = 2 * (b & 0x0f);
        else if (b <= 0x9f) items = b & 0x0f;
        else if (b <= 0xbf) skip = b & 0x1f;
        else if (b == 0xc1) { fault = WALK_FORMAT; break; }
        else if (fixed[b - 0xc0] >= 0) skip = fixed[b - 0xc0];
        else {
            int head = (b == 0xc4 || b == 0xd9 || b == 0xc7) ? 1 : (b == 0xc5 || b == 0xda || b == 0xc8 || b == 0xdc || b == 0xde) ? 2 : 4;
            if (end - i < head) { fault = WALK_OUT_OF_DATA; break; }
            Py_ssize_t n = 0;
            for (int k = 0; k < head; k++) n = (n << 8) | p[i + k];
            i += head;
            if (b >= 0xdc) items = b >= 0xde ? 2 * n : n;
            else skip = n + (b >= 0xc7 && b <= 0xc9); /* an ext's type byte */
        }
        if (items >= 0) {
            if (open >= MSGPACK_MAX_NESTING) { fault = WALK_TOO_DEEP; break; }
            if (items > 0) {
                if (open == 64 && owed == small) {
                    owed = PyMem_Malloc(MSGPACK_MAX_NESTING * sizeof(Py_ssize_t));
                    if (owed == NULL) { PyErr_NoMemory(); return WALK_NO_MEMORY; }
                    memcpy(owed, small, sizeof small);
                }
                owed[open++] = items;
                continue;
            }
        } else if (skip > end - i) {
            fault = WALK_OUT_OF_DATA;
            break;
        } else {
            i += skip;
        }
        /* An item is complete: it fills its container, which may complete in turn. */
        while (open > 0 && --owed[open - 1] == 0) open--;
        if (open == 0) break;
    }
    if (owed != small) PyMem_Free(owed);
    return fault;
}
