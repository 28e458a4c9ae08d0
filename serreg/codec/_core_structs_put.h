/* The bytes of a struct instance or list that need no field check (_core_structs_encode.h,
 * _core_structs_list_encode.h): the ext 1/2 header put in place once the payload is written, a
 * value written as the codec writes any value, and a msgpack int in its shortest form. */

/* The header of an ext of that type (1: an instance, 2: a list of instances) whose payload was written
 * since start, where EXT1_ROOM bytes were left for it: the ext 8 header (most instances) in place, the
 * others moved into place. */
#define EXT1_ROOM 3
static int struct_ext_end(Out *o, Py_ssize_t start, int type) {
    Py_ssize_t payload = o->len - start - EXT1_ROOM;
    char *at = o->buf + start;
    if (payload == 1 || payload == 2 || payload == 4 || payload == 8 || payload == 16) {
        static const unsigned char fix[17] = {[1] = 0xd4, [2] = 0xd5, [4] = 0xd6, [8] = 0xd7, [16] = 0xd8};
        memmove(at + 2, at + EXT1_ROOM, payload);
        at[0] = (char)fix[payload];
        at[1] = (char)type;
        o->len -= 1;
    } else if (payload < 256) {
        at[0] = (char)0xc7;
        at[1] = (char)payload;
        at[2] = (char)type;
    } else {
        int h = payload < 65536 ? 4 : 6;
        if ((unsigned long long)payload > 0xffffffffULL) return -2;
        RESERVE(o, h - EXT1_ROOM);
        at = o->buf + start;
        memmove(at + h, at + EXT1_ROOM, payload);
        if (h == 4) {
            at[0] = (char)0xc8;
            at[1] = (char)(payload >> 8);
            at[2] = (char)payload;
        } else {
            at[0] = (char)0xc9;
            for (int i = 0; i < 4; i++) at[1 + i] = (char)(payload >> (24 - 8 * i));
        }
        at[h - 1] = (char)type;
        o->len += h - EXT1_ROOM;
    }
    return 0;
}

/* A value written as the codec writes any value (its containers drained before returning). */
static int enc_generic(Enc *e, PyObject *v, int depth) {
    Py_ssize_t base = e->sp;
    int r = enc_value(e, v, depth, 0, 0);
    if (r < 0) return r;
    return enc_drain(e, base);
}

/* A short list of plain leaves written as the codec writes any value (an array header, then each
 * item as enc_plain_leaf writes it, as enc_drain does; its first item native, it is no list of
 * instances): 0, or 1 when v is not one (nothing written), -1 on error. No code runs meanwhile. */
#define PLAIN_LIST_MAX 15 /* a fixarray */
static int enc_plain_list(Enc *e, PyObject *v) {
    if (Py_TYPE(v) != &PyList_Type || (e->t.native_overrides & N_LIST)) return 1;
    Py_ssize_t n = PyList_GET_SIZE(v), start = e->out.len;
    if (n == 0 || n > PLAIN_LIST_MAX) return 1;
    RESERVE(&e->out, 1);
    put1(&e->out, (unsigned char)(0x90 | n));
    for (Py_ssize_t i = 0; i < n; i++) {
        int r = enc_plain_leaf(&e->out, PyList_GET_ITEM(v, i), e->t.native_overrides);
        if (r < 0) return r;
        if (r) {
            e->out.len = start; /* not plain: written the general way */
            return 1;
        }
    }
    return 0;
}

/* A msgpack int in its shortest form (pack_sint's bytes), with room for it reserved here. */
static inline int put_int(Out *o, long long x) {
    RESERVE(o, 9);
    if (x >= 0) {
        uint64_t u = (uint64_t)x;
        if (u < 128) put1(o, (unsigned char)u);
        else if (u < 256) { put1(o, 0xcc); put_be(o, u, 1); }
        else if (u < 65536) { put1(o, 0xcd); put_be(o, u, 2); }
        else if (u < 4294967296ULL) { put1(o, 0xce); put_be(o, u, 4); }
        else { put1(o, 0xcf); put_be(o, u, 8); }
    } else if (x >= -32) put1(o, (unsigned char)(x & 0xff));
    else if (x >= -128) { put1(o, 0xd0); put_be(o, (uint64_t)x, 1); }
    else if (x >= -32768) { put1(o, 0xd1); put_be(o, (uint64_t)x, 2); }
    else if (x >= -2147483648LL) { put1(o, 0xd2); put_be(o, (uint64_t)x, 4); }
    else { put1(o, 0xd3); put_be(o, (uint64_t)x, 8); }
    return 0;
}
