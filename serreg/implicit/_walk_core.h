/* The walk of serreg/implicit/walk.py in C, shared by the compiled walk (_walk.c) and the codec's entry
 * of one implicit struct instance (serreg/codec/_core_implicit_top.h).
 *
 * walk_run visits every object the codec would write (items of lists, tuples, sets and frozensets,
 * keys and values of dicts, __dict__ values of plain objects) with an explicit stack, remembers every
 * object but an immutable atom by address in an open-addressing set, and answers WALK_OK when no
 * object is met twice and every type is known, WALK_GIVE_UP, or WALK_UNKNOWN (*unknown: the object of
 * a type `kinds` does not list); -1 on error. The field names of each plain class go into `found`
 * (class -> tuple of names); with found NULL, every plain object must be of last->type with the field
 * names last->names (else WALK_GIVE_UP: the caller's one-class case). No Python code runs during the
 * walk (exact types only, type keys hash by address), so the borrowed references stay valid.
 *
 * An object is met once per reference to it from the objects walked, so one whose only reference is
 * held by an object met once cannot be met again, and is not remembered (the answer is the same:
 * remembering it could never give up). An object is met once when it is remembered (meeting it again
 * gives up there), when it is the root, or when it is such an object itself; each reference on the
 * stack carries that about the object holding it (its low bit: WALK_ONCE). A list of 1,000 records then
 * remembers the list alone, not each record, its __dict__ and the lists inside it. */
#ifndef SERREG_WALK_CORE_H
#define SERREG_WALK_CORE_H
#include <stdint.h>

/* PyDict_Next, or an includer's twin of it (the codec's reads CPython's tables, _core_dict_layout.h). */
#ifndef WALK_DICT_NEXT
#define WALK_DICT_NEXT PyDict_Next
#endif

enum { WALK_LEAF = 0, WALK_PLAIN = 1, WALK_REFUSE = 2 };
enum { WALK_OK = 0, WALK_GIVE_UP = 1, WALK_UNKNOWN = 2 };

#define WALK_INLINE 32 /* entries of the set and the stack held in the walk's own memory */

typedef struct {
    uintptr_t *slots; /* NULL until a second object is remembered: the first is kept in `first` */
    size_t mask, used;
    uintptr_t first;
    uintptr_t small[WALK_INLINE];
} WalkSeen;

static inline size_t walk_seen_slot(uintptr_t p, size_t mask) {
    return (size_t)((p >> 4) * 0x9E3779B97F4A7C15ULL) & mask;
}

static int walk_seen_grow(WalkSeen *s) {
    /* Small first, in place (a value holding a few objects allocates nothing), then large at once. */
    if (s->slots == NULL) {
        memset(s->small, 0, sizeof s->small);
        if (s->used == 1) s->small[walk_seen_slot(s->first, WALK_INLINE - 1)] = s->first;
        s->slots = s->small;
        s->mask = WALK_INLINE - 1;
        return 0;
    }
    size_t cap = s->mask + 1 < 256 ? 256 : 2 * (s->mask + 1);
    uintptr_t *slots = PyMem_Calloc(cap, sizeof(uintptr_t));
    if (slots == NULL) { PyErr_NoMemory(); return -1; }
    for (size_t i = 0; i <= s->mask; i++) {
        uintptr_t p = s->slots[i];
        if (p == 0) continue;
        size_t j = walk_seen_slot(p, cap - 1);
        while (slots[j] != 0) j = (j + 1) & (cap - 1);
        slots[j] = p;
    }
    if (s->slots != s->small) PyMem_Free(s->slots);
    s->slots = slots;
    s->mask = cap - 1;
    return 0;
}

/* 1 if p was new (now remembered), 0 if met before, -1 on error. */
static int walk_seen_add(WalkSeen *s, const void *ptr) {
    uintptr_t p = (uintptr_t)ptr;
    if (s->slots == NULL) {
        if (s->used == 0) { /* the first: no table yet (most values remember one object, the root) */
            s->first = p;
            s->used = 1;
            return 1;
        }
        if (p == s->first) return 0;
    }
    if (s->slots == NULL || (s->used + 1) * 2 > s->mask + 1) {
        if (walk_seen_grow(s) < 0) return -1;
    }
    size_t j = walk_seen_slot(p, s->mask);
    while (s->slots[j] != 0) {
        if (s->slots[j] == p) return 0;
        j = (j + 1) & s->mask;
    }
    s->slots[j] = p;
    s->used++;
    return 1;
}

typedef struct {
    PyObject **items;
    Py_ssize_t len, cap;
    PyObject *small[WALK_INLINE];
} WalkStack;

static int walk_stack_grow(WalkStack *st) {
    if (st->items == NULL) {
        st->items = st->small;
        st->cap = WALK_INLINE;
        return 0;
    }
    Py_ssize_t cap = st->cap < 256 ? 256 : 2 * st->cap;
    PyObject **items;
    if (st->items == st->small) {
        items = PyMem_Malloc(cap * sizeof(PyObject *));
        if (items != NULL) memcpy(items, st->items, st->len * sizeof(PyObject *));
    } else {
        items = PyMem_Realloc(st->items, cap * sizeof(PyObject *));
    }
    if (items == NULL) { PyErr_NoMemory(); return -1; }
    st->items = items;
    st->cap = cap;
    return 0;
}

#define WALK_ONCE ((uintptr_t)1) /* a reference on the stack held by an object met once */

/* A reference held by an object met once (held_once) or not, as the stack keeps it. */
static inline PyObject *walk_held(PyObject *o, int held_once) {
    return (PyObject *)((uintptr_t)o | (held_once ? WALK_ONCE : 0));
}

static inline int walk_push(WalkStack *st, PyObject *o) {
    if (st->len == st->cap && walk_stack_grow(st) < 0) return -1;
    st->items[st->len++] = o;
    return 0;
}

static inline int walk_is_atom(PyTypeObject *t) {
    return t == &PyUnicode_Type || t == &PyLong_Type || t == &PyFloat_Type || t == &PyBool_Type ||
           t == Py_TYPE(Py_None) || t == &PyBytes_Type || t == &PyComplex_Type;
}

/* A reference pushed, unless to an immutable atom (nothing to walk in it, never remembered). */
static inline int walk_push_held(WalkStack *st, PyObject *o, int held_once) {
    return walk_is_atom(Py_TYPE(o)) ? 0 : walk_push(st, walk_held(o, held_once));
}

static int walk_push_all(WalkStack *st, PyObject *const *items, Py_ssize_t n, int held_once) {
    for (Py_ssize_t i = 0; i < n; i++) {
        if (walk_push_held(st, items[i], held_once) < 0) return -1;
    }
    return 0;
}

/* The field names of the plain class met last (borrowed from found, or the caller's). */
typedef struct {
    PyTypeObject *type;
    PyObject *names;
} WalkNames;

/* The state of a plain object checked against (and, first met, recorded in) found: 1 fine, 0 give up, -1 error. */
static int walk_plain_fields(PyObject *obj, PyObject *found, WalkSeen *seen, WalkStack *st, WalkNames *last) {
    PyObject *state = PyObject_GenericGetDict(obj, NULL);
    if (state == NULL) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) { PyErr_Clear(); return 0; }
        return -1;
    }
    int r = 0;
    if (!PyDict_CheckExact(state)) goto done;
    /* The instance's dict is an object pickle memoizes too; held by the instance (met once) and here
       only, it is met once. */
    if (Py_REFCNT(state) != 2) {
        int added = walk_seen_add(seen, state);
        if (added <= 0) { r = added; goto done; }
    }
    PyObject *names;
    if (last->type == Py_TYPE(obj)) names = last->names;
    else if (found == NULL) goto done; /* the one-class case: another class */
    else names = PyDict_GetItemWithError(found, (PyObject *)Py_TYPE(obj));
    if (names == NULL && PyErr_Occurred()) { r = -1; goto done; }
    if (names != NULL) {
        last->type = Py_TYPE(obj);
        last->names = names;
    }
    Py_ssize_t pos = 0, i = 0, n = PyDict_GET_SIZE(state);
    PyObject *key, *value;
    if (names == NULL) {
        PyObject *made = PyTuple_New(n);
        if (made == NULL) { r = -1; goto done; }
        while (WALK_DICT_NEXT(state, &pos, &key, &value)) {
            if (!PyUnicode_CheckExact(key) || i >= n) { Py_DECREF(made); goto done; }
            PyTuple_SET_ITEM(made, i++, Py_NewRef(key));
            if (walk_push_held(st, value, 1) < 0) { Py_DECREF(made); r = -1; goto done; }
        }
        if (i != n) { Py_DECREF(made); goto done; }
        int set = PyDict_SetItem(found, (PyObject *)Py_TYPE(obj), made);
        Py_DECREF(made);
        r = set < 0 ? -1 : 1;
        goto done;
    }
    if (PyTuple_GET_SIZE(names) != n) goto done;
    while (WALK_DICT_NEXT(state, &pos, &key, &value)) {
        PyObject *name = PyTuple_GET_ITEM(names, i++);
        if (key != name) {
            if (!PyUnicode_CheckExact(key)) goto done;
            int same = PyUnicode_Compare(key, name);
            if (same == -1 && PyErr_Occurred()) { r = -1; goto done; }
            if (same != 0) goto done;
        }
        if (walk_push_held(st, value, 1) < 0) { r = -1; goto done; }
    }
    r = 1;
done:
    Py_DECREF(state);
    return r;
}

/* The walk of obj (see the top of this file): WALK_OK, WALK_GIVE_UP, WALK_UNKNOWN (*unknown borrowed), -1.
 * plain: a type the caller found WALK_PLAIN in kinds just before (no Python code run since), or NULL. */
static int walk_run(PyObject *obj, PyObject *kinds, PyObject *found, WalkNames *last_names, PyObject **unknown,
                    PyTypeObject *plain) {
    WalkSeen seen;
    WalkStack st;
    seen.slots = NULL;
    seen.mask = seen.used = 0;
    st.items = NULL;
    st.len = st.cap = 0;
    int status = WALK_OK, failed = 0;
    PyTypeObject *last_type = plain;
    long last_code = plain != NULL ? WALK_PLAIN : WALK_REFUSE;
    if (walk_push(&st, walk_held(obj, 1)) < 0) failed = 1; /* the root is met once */
    while (!failed && status == WALK_OK && st.len > 0) {
        uintptr_t top = (uintptr_t)st.items[--st.len];
        PyObject *v = (PyObject *)(top & ~WALK_ONCE);
        PyTypeObject *t = Py_TYPE(v);
        if (walk_is_atom(t)) continue;
        int once = (top & WALK_ONCE) && Py_REFCNT(v) == 1; /* its only reference: held by an object met once */
        if (t == &PyTuple_Type) {
            if (walk_push_all(&st, ((PyTupleObject *)v)->ob_item, PyTuple_GET_SIZE(v), once) < 0) failed = 1;
            continue;
        }
        if (t == &PyFrozenSet_Type || t == &PySet_Type) {
            if (t == &PySet_Type && !once) {
                int added = walk_seen_add(&seen, v);
                if (added < 0) { failed = 1; break; }
                if (added == 0) { status = WALK_GIVE_UP; break; }
            }
            Py_ssize_t pos = 0;
            PyObject *key;
            Py_hash_t hash;
            while (_PySet_NextEntry(v, &pos, &key, &hash)) {
                if (walk_push_held(&st, key, once || t == &PySet_Type) < 0) { failed = 1; break; }
            }
            continue;
        }
        if (!once) {
            int added = walk_seen_add(&seen, v);
            if (added < 0) { failed = 1; break; }
            if (added == 0) { status = WALK_GIVE_UP; break; }
        }
        /* From here on v is met once: remembered, or held once by an object met once. */
        if (t == &PyList_Type) {
            if (walk_push_all(&st, ((PyListObject *)v)->ob_item, PyList_GET_SIZE(v), 1) < 0) failed = 1;
        } else if (t == &PyDict_Type) {
            Py_ssize_t pos = 0;
            PyObject *key, *value;
            while (WALK_DICT_NEXT(v, &pos, &key, &value)) {
                if (walk_push_held(&st, key, 1) < 0 || walk_push_held(&st, value, 1) < 0) {
                    failed = 1;
                    break;
                }
            }
        } else {
            long code = last_code;
            if (t != last_type) { /* most objects are of the type met last: looked up once per run */
                PyObject *kind = PyDict_GetItemWithError(kinds, (PyObject *)t);
                if (kind == NULL) {
                    if (PyErr_Occurred()) { failed = 1; break; }
                    status = WALK_UNKNOWN;
                    *unknown = v;
                    break;
                }
                code = PyLong_AsLong(kind);
                if (code == -1 && PyErr_Occurred()) { failed = 1; break; }
                last_type = t;
                last_code = code;
            }
            if (code == WALK_REFUSE) { status = WALK_GIVE_UP; break; }
            if (code == WALK_PLAIN) {
                int r = walk_plain_fields(v, found, &seen, &st, last_names);
                if (r < 0) failed = 1;
                else if (r == 0) status = WALK_GIVE_UP;
            }
        }
    }
    if (seen.slots != NULL && seen.slots != seen.small) PyMem_Free(seen.slots);
    if (st.items != NULL && st.items != st.small) PyMem_Free(st.items);
    return failed ? -1 : status;
}

#endif /* SERREG_WALK_CORE_H */
