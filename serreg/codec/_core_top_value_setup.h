/* What the top-level entry of a value read by its serializer (_core_top_value.h) is told: the classes it
 * builds a call's state from (set_top_value: DecodeState, OutOfBandBuffers and NO_BUFFERS, their slots found
 * once), what it needs of the registry's decoder (MsgpackCodec.bind_decoder: the owner of the states, the
 * helpers that word a serializer's error and an unused buffer), and the registry's limits (Settings.top,
 * parsed when it changes). */

static PyTypeObject *state_type, *oob_type; /* limits.DecodeState, result.OutOfBandBuffers */
static PyObject *no_buffers;                 /* result.NO_BUFFERS */
enum { ST_OWNER, ST_ALLOWED, ST_MAX_DEPTH, ST_DEPTH, ST_BUDGET, ST_BUDGET_SIZE, ST_FRAME_SIZE, ST_UNPICKLING, N_ST };
static const char *STATE_SLOTS[N_ST] = {
    "owner", "allowed", "max_depth", "depth", "budget", "budget_size", "frame_size", "unpickling",
};
static Py_ssize_t state_slot[N_ST];
enum { OOB_BUFFERS, OOB_NEXT, N_OOB };
static const char *OOB_SLOTS[N_OOB] = {"_buffers", "_next"};
static Py_ssize_t oob_slot[N_OOB];
static PyObject *str_serializer, *str_deserialize, *str_top, *str_what_frame, *str_what_result;

#define AT(obj, offset) (*(PyObject **)((char *)(obj) + (offset)))

/* The registry's limits as top_value is told them (Settings.top): the last tuple parsed, kept. */
static PyObject *top_seen, *top_depth; /* top_depth: the DecodeState's max_depth (an int) */
static int top_depth_zero, top_has_budget;
static uint64_t top_max_size, top_max_buffers, top_per_byte, top_allowance;
static PyTypeObject *settings_type; /* the Settings class whose "top" slot is at top_slot */
static Py_ssize_t top_slot;

/* A limit: None (none: FRAME_NO_LIMIT) or a non-negative int (one beyond 64 bits: none either). */
static int top_limit(PyObject *o, uint64_t *out) {
    *out = FRAME_NO_LIMIT;
    if (o == Py_None) return 0;
    if (!PyLong_Check(o)) return -1;
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
        PyErr_Clear();
        return 0;
    }
    *out = v;
    return 0;
}

static int parse_new_top(PyObject *top);

/* Parse Settings.top, None (untrusted: nothing here) or (max_depth, max_frame_size, max_buffers,
 * memory_per_byte, memory_allowance). 1: parsed, 0: None or not usable here, -1: error. The tuple parsed
 * last is known without a call. */
static inline int parse_top(PyObject *top) {
    if (top == Py_None) return 0;
    return top == top_seen ? 1 : parse_new_top(top);
}

static int parse_new_top(PyObject *top) {
    if (!PyTuple_CheckExact(top) || PyTuple_GET_SIZE(top) != 5) {
        PyErr_SetString(PyExc_TypeError, "Settings.top must be None or a tuple of 5 limits");
        return -1;
    }
    PyObject *depth = PyTuple_GET_ITEM(top, 0), *made;
    uint64_t size, buffers, per_byte, allowance;
    if (top_limit(PyTuple_GET_ITEM(top, 1), &size) < 0 || top_limit(PyTuple_GET_ITEM(top, 2), &buffers) < 0 ||
        top_limit(PyTuple_GET_ITEM(top, 3), &per_byte) < 0 || top_limit(PyTuple_GET_ITEM(top, 4), &allowance) < 0)
        return PyErr_Occurred() ? -1 : 0;
    if (PyTuple_GET_ITEM(top, 4) == Py_None || (PyTuple_GET_ITEM(top, 3) != Py_None && per_byte == FRAME_NO_LIMIT) ||
        allowance == FRAME_NO_LIMIT)
        return 0; /* a budget too large for 64 bits: the full path computes it */
    made = depth == Py_None ? PyLong_FromLongLong(1LL << 62) : Py_NewRef(depth); /* DecodeState's "no limit" */
    if (made == NULL) return -1;
    Py_XSETREF(top_depth, made);
    top_depth_zero = depth != Py_None && PyObject_Not(depth) == 1;
    top_max_size = size;
    top_max_buffers = buffers;
    top_has_budget = PyTuple_GET_ITEM(top, 3) != Py_None;
    top_per_byte = per_byte;
    top_allowance = allowance;
    Py_XSETREF(top_seen, Py_NewRef(top));
    return 1;
}

/* The registry's Settings.top (borrowed), or NULL with an error set. */
static inline PyObject *read_top(Codec *self) {
    if (Py_TYPE(self->settings) != settings_type) {
        settings_type = Py_TYPE(self->settings); /* borrowed: compared only */
        top_slot = object_slot(settings_type, "top");
    }
    if (top_slot > 0 && AT(self->settings, top_slot) != NULL) return AT(self->settings, top_slot);
    PyObject *top = PyObject_GetAttr(self->settings, str_top);
    Py_XDECREF(top); /* the settings keep it */
    return top;
}

/* MsgpackCodec.bind_decoder(owner, located, all_used): what top_value needs of the registry's decoder. */
static PyObject *Codec_bind_decoder(Codec *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyCallable_Check(args[1]) || !PyCallable_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "bind_decoder(owner, located, all_used)");
        return NULL;
    }
    PyObject *reading = PyTuple_Pack(3, args[0], args[1], args[2]);
    if (reading == NULL) return NULL;
    Py_XSETREF(self->top_reading, reading);
    Py_RETURN_NONE;
}

/* The offsets of type's object slots names[0..n), or -1 with an error set. */
static int top_slots(PyTypeObject *type, const char **names, Py_ssize_t *offsets, int n) {
    for (int i = 0; i < n; i++) {
        if ((offsets[i] = object_slot(type, names[i])) <= 0) {
            PyErr_Format(PyExc_TypeError, "%s has no object slot %s", type->tp_name, names[i]);
            return -1;
        }
    }
    return 0;
}

/* set_top_value(DecodeState, OutOfBandBuffers, NO_BUFFERS) */
static PyObject *set_top_value(PyObject *module, PyObject *args) {
    PyObject *state, *oob, *empty;
    if (!PyArg_ParseTuple(args, "O!O!O", &PyType_Type, &state, &PyType_Type, &oob, &empty)) return NULL;
    if (top_slots((PyTypeObject *)state, STATE_SLOTS, state_slot, N_ST) < 0 ||
        top_slots((PyTypeObject *)oob, OOB_SLOTS, oob_slot, N_OOB) < 0)
        return NULL;
    PyObject **strs[5] = {&str_serializer, &str_deserialize, &str_top, &str_what_frame, &str_what_result};
    const char *texts[5] = {"serializer", "deserialize", "top", "frame", "serialization result"};
    for (int i = 0; i < 5; i++) {
        if (*strs[i] == NULL && (*strs[i] = PyUnicode_InternFromString(texts[i])) == NULL) return NULL;
    }
    Py_XSETREF(state_type, (PyTypeObject *)Py_NewRef(state));
    Py_XSETREF(oob_type, (PyTypeObject *)Py_NewRef(oob));
    Py_XSETREF(no_buffers, Py_NewRef(empty));
    Py_RETURN_NONE;
}

/* The methods of MsgpackCodec defined here (its method table lists them). */
#define TOP_VALUE_METHODS                                                                                          \
    {"bind_decoder", (PyCFunction)(void (*)(void))Codec_bind_decoder, METH_FASTCALL,                            \
     "bind_decoder(owner, located, all_used): what top_value needs of the registry's decoder."},                 \
    {"top_value", (PyCFunction)Codec_top_value, METH_O,                                                          \
     "top_value(data) -> value: the value of a trusted frame or result read by a registered serializer, else "   \
     "NotImplemented."},
