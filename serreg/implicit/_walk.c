/* Compiled twin of serreg/implicit/walk.py (walk_python): the same answers, in C.
 *
 * walk(obj, kinds) visits every object the codec would write (items of lists, tuples, sets and
 * frozensets, keys and values of dicts, __dict__ values of plain objects) with an explicit stack,
 * remembers every object but an immutable atom by address in an open-addressing set, and answers
 * (0, {class: field names}) when no object is met twice and every type is known, (1, None) to give
 * up, or (2, obj) for an object of a type `kinds` does not list. No Python code runs during the
 * walk (exact types only, type keys hash by address), so the borrowed references stay valid.
 *
 * An object is met once per reference to it from the objects walked, so one whose only reference
 * is held by an object met once cannot be met again, and is not remembered (the answer is the same:
 * remembering it could never give up). An object is met once when it is remembered (meeting it
 * again gives up there), when it is the root, or when it is such an object itself; each reference on
 * the stack carries that about the object holding it (its low bit: ONCE). A list of 1,000 records
 * then remembers the list alone, not each record, its __dict__ and the lists inside it. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

enum { LEAF = 0, PLAIN = 1, REFUSE = 2 };
enum { OK = 0, GIVE_UP = 1, UNKNOWN = 2 };

typedef struct {
    uintptr_t *slots;
    size_t mask, used;
} Seen;

static int seen_grow(Seen *s) {
    /* Small first (a value holding a few objects pays for no large calloc), then large at once. */
    size_t cap = s->slots == NULL ? 32 : s->mask + 1 < 256 ? 256 : 2 * (s->mask + 1);
    uintptr_t *slots = PyMem_Calloc(cap, sizeof(uintptr_t));
    if (slots == NULL) { PyErr_NoMemory(); return -1; }
    for (size_t i = 0; s->slots != NULL && i <= s->mask; i++) {
        uintptr_t p = s->slots[i];
        if (p == 0) continue;
        size_t j = (size_t)((p >> 4) * 0x9E3779B97F4A7C15ULL) & (cap - 1);
        while (slots[j] != 0) j = (j + 1) & (cap - 1);
        slots[j] = p;
    }
    PyMem_Free(s->slots);
    s->slots = slots;
    s->mask = cap - 1;
    return 0;
}

/* 1 if p was new (now remembered), 0 if met before, -1 on error. */
static int seen_add(Seen *s, const void *ptr) {
    if ((s->used + 1) * 2 > s->mask + 1 || s->slots == NULL) {
        if (seen_grow(s) < 0) return -1;
    }
    uintptr_t p = (uintptr_t)ptr;
    size_t j = (size_t)((p >> 4) * 0x9E3779B97F4A7C15ULL) & s->mask;
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
} Stack;

#define ONCE ((uintptr_t)1) /* a reference on the stack held by an object met once */

static int push(Stack *st, PyObject *o) {
    if (st->len == st->cap) {
        Py_ssize_t cap = st->cap == 0 ? 32 : st->cap < 256 ? 256 : 2 * st->cap;
        PyObject **items = PyMem_Realloc(st->items, cap * sizeof(PyObject *));
        if (items == NULL) { PyErr_NoMemory(); return -1; }
        st->items = items;
        st->cap = cap;
    }
    st->items[st->len++] = o;
    return 0;
}

/* A reference held by an object met once (held_once) or not, as the stack keeps it. */
static inline PyObject *held(PyObject *o, int held_once) { return (PyObject *)((uintptr_t)o | (held_once ? ONCE : 0)); }

static int push_all(Stack *st, PyObject *const *items, Py_ssize_t n, int held_once) {
    for (Py_ssize_t i = 0; i < n; i++) {
        if (push(st, held(items[i], held_once)) < 0) return -1;
    }
    return 0;
}

static inline int is_atom(PyTypeObject *t) {
    return t == &PyUnicode_Type || t == &PyLong_Type || t == &PyFloat_Type || t == &PyBool_Type ||
           t == Py_TYPE(Py_None) || t == &PyBytes_Type || t == &PyComplex_Type;
}

/* The field names of the plain class met last (borrowed from found, which holds them). */
typedef struct {
    PyTypeObject *type;
    PyObject *names;
} LastNames;

/* The state of a plain object checked against (and, first met, recorded in) found: 1 fine, 0 give up, -1 error. */
static int plain_fields(PyObject *obj, PyObject *found, Seen *seen, Stack *st, LastNames *last) {
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
        int added = seen_add(seen, state);
        if (added <= 0) { r = added; goto done; }
    }
    PyObject *names = last->type == Py_TYPE(obj) ? last->names : PyDict_GetItemWithError(found, (PyObject *)Py_TYPE(obj));
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
        while (PyDict_Next(state, &pos, &key, &value)) {
            if (!PyUnicode_CheckExact(key) || i >= n) { Py_DECREF(made); goto done; }
            PyTuple_SET_ITEM(made, i++, Py_NewRef(key));
            if (push(st, held(value, 1)) < 0) { Py_DECREF(made); r = -1; goto done; }
        }
        if (i != n) { Py_DECREF(made); goto done; }
        int set = PyDict_SetItem(found, (PyObject *)Py_TYPE(obj), made);
        Py_DECREF(made);
        r = set < 0 ? -1 : 1;
        goto done;
    }
    if (PyTuple_GET_SIZE(names) != n) goto done;
    while (PyDict_Next(state, &pos, &key, &value)) {
        PyObject *name = PyTuple_GET_ITEM(names, i++);
        if (key != name) {
            if (!PyUnicode_CheckExact(key)) goto done;
            int same = PyUnicode_Compare(key, name);
            if (same == -1 && PyErr_Occurred()) { r = -1; goto done; }
            if (same != 0) goto done;
        }
        if (push(st, held(value, 1)) < 0) { r = -1; goto done; }
    }
    r = 1;
done:
    Py_DECREF(state);
    return r;
}

static PyObject *walk(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyDict_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "walk(obj, kinds: dict)");
        return NULL;
    }
    PyObject *kinds = args[1], *found = PyDict_New(), *unknown = NULL;
    if (found == NULL) return NULL;
    Seen seen = {0};
    Stack st = {0};
    int status = OK, failed = 0;
    PyTypeObject *last_type = NULL;
    long last_code = REFUSE;
    LastNames last_names = {NULL, NULL};
    if (push(&st, held(args[0], 1)) < 0) failed = 1; /* the root is met once */
    while (!failed && status == OK && st.len > 0) {
        uintptr_t top = (uintptr_t)st.items[--st.len];
        PyObject *v = (PyObject *)(top & ~ONCE);
        PyTypeObject *t = Py_TYPE(v);
        if (is_atom(t)) continue;
        int once = (top & ONCE) && Py_REFCNT(v) == 1; /* its only reference is held by an object met once */
        if (t == &PyTuple_Type) {
            if (push_all(&st, ((PyTupleObject *)v)->ob_item, PyTuple_GET_SIZE(v), once) < 0) failed = 1;
            continue;
        }
        if (t == &PyFrozenSet_Type || t == &PySet_Type) {
            if (t == &PySet_Type && !once) {
                int added = seen_add(&seen, v);
                if (added < 0) { failed = 1; break; }
                if (added == 0) { status = GIVE_UP; break; }
            }
            Py_ssize_t pos = 0;
            PyObject *key;
            Py_hash_t hash;
            while (_PySet_NextEntry(v, &pos, &key, &hash)) {
                if (push(&st, held(key, once || t == &PySet_Type)) < 0) { failed = 1; break; }
            }
            continue;
        }
        if (!once) {
            int added = seen_add(&seen, v);
            if (added < 0) { failed = 1; break; }
            if (added == 0) { status = GIVE_UP; break; }
        }
        /* From here on v is met once: remembered, or held once by an object met once. */
        if (t == &PyList_Type) {
            if (push_all(&st, ((PyListObject *)v)->ob_item, PyList_GET_SIZE(v), 1) < 0) failed = 1;
        } else if (t == &PyDict_Type) {
            Py_ssize_t pos = 0;
            PyObject *key, *value;
            while (PyDict_Next(v, &pos, &key, &value)) {
                if (push(&st, held(key, 1)) < 0 || push(&st, held(value, 1)) < 0) { failed = 1; break; }
            }
        } else {
            long code = last_code;
            if (t != last_type) { /* most objects are of the type met last: looked up once per run */
                PyObject *kind = PyDict_GetItemWithError(kinds, (PyObject *)t);
                if (kind == NULL) {
                    if (PyErr_Occurred()) { failed = 1; break; }
                    status = UNKNOWN;
                    unknown = v;
                    break;
                }
                code = PyLong_AsLong(kind);
                if (code == -1 && PyErr_Occurred()) { failed = 1; break; }
                last_type = t;
                last_code = code;
            }
            if (code == REFUSE) { status = GIVE_UP; break; }
            if (code == PLAIN) {
                int r = plain_fields(v, found, &seen, &st, &last_names);
                if (r < 0) failed = 1;
                else if (r == 0) status = GIVE_UP;
            }
        }
    }
    PyMem_Free(seen.slots);
    PyMem_Free(st.items);
    if (failed) {
        Py_DECREF(found);
        return NULL;
    }
    PyObject *answer;
    if (status == OK) {
        answer = Py_BuildValue("(iN)", OK, found);
    } else {
        Py_DECREF(found);
        answer = Py_BuildValue("(iO)", status, status == UNKNOWN ? unknown : Py_None);
    }
    return answer;
}

static PyMethodDef methods[] = {
    {"walk", (PyCFunction)(void (*)(void))walk, METH_FASTCALL,
     "walk(obj, kinds) -> (status, answer): see serreg/implicit/walk.py."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "serreg.implicit._walk", NULL, -1, methods};

PyMODINIT_FUNC PyInit__walk(void) { return PyModule_Create(&module); }
