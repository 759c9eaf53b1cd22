/*
 * Canonical JSON in one pass of C: the bytes of
 *
 *     json.dumps(value, sort_keys=True, separators=(",", ":"),
 *                ensure_ascii=False, allow_nan=False).encode("utf-8")
 *
 * (schemas.canonical.canonical_json), for the values operations are made of:
 * None, bool, int, float, str (and their subclasses, written as json writes
 * them: str enums by their text, int enums through int.__repr__), exact lists,
 * tuples and dicts with str keys. Bytes are not JSON.
 *
 * Anything else raises TypeError (a non-finite float ValueError, a string
 * that is not valid Unicode UnicodeEncodeError); the Python caller then uses
 * the reference encoder, so a value is never written "almost" canonically.
 *
 * The rest of what the reducer does for every operation that is not a rule
 * lives here for the same reason: ``encode_model`` writes a node or edge
 * snapshot straight from the model's fields by a plan derived in Python from
 * its annotations (instead of a pydantic dump followed by ``encode``);
 * ``encode_fields_split`` writes an operation from its field values the same
 * way, copying the snapshots' cached texts in as encoded fragments and leaving
 * a gap for the checksum; ``construct_model`` builds the frozen instances;
 * ``derive_id`` computes the UUIDv5 ids of operations, nodes and edges;
 * ``seal_operation`` does all of sealing in one call (see its section).
 *
 * Why C: sealing an operation (its canonical text and SHA-256) is half of the
 * reducer's time in CPython, most of it in the Python around the encoder.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <datetime.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <string.h>

#define MAX_DEPTH 200

typedef struct {
    char *data;
    Py_ssize_t len;
    Py_ssize_t cap;
    int on_stack;  /* data is the caller's stack array, not ours to free */
} Buffer;

#define STACK_BUFFER 8192

static int
buffer_reserve(Buffer *b, Py_ssize_t extra)
{
    if (b->len + extra <= b->cap) {
        return 0;
    }
    Py_ssize_t cap = b->cap ? b->cap : 1024;
    while (cap < b->len + extra) {
        if (cap > PY_SSIZE_T_MAX / 2) {
            PyErr_NoMemory();
            return -1;
        }
        cap *= 2;
    }
    char *data = b->on_stack ? PyMem_Malloc((size_t)cap) : PyMem_Realloc(b->data, (size_t)cap);
    if (data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    if (b->on_stack) {
        memcpy(data, b->data, (size_t)b->len);
        b->on_stack = 0;
    }
    b->data = data;
    b->cap = cap;
    return 0;
}

static int
buffer_put(Buffer *b, const char *s, Py_ssize_t n)
{
    if (buffer_reserve(b, n) < 0) {
        return -1;
    }
    memcpy(b->data + b->len, s, (size_t)n);
    b->len += n;
    return 0;
}

static int
buffer_char(Buffer *b, char c)
{
    if (b->len >= b->cap && buffer_reserve(b, 1) < 0) {
        return -1;
    }
    b->data[b->len++] = c;
    return 0;
}

static const char HEX[] = "0123456789abcdef";

/* Bytes json's encode_basestring escapes: '"', '\\' and the control characters. */
static unsigned char NEEDS_ESCAPE[256];

static void
init_escape_table(void)
{
    for (int c = 0; c < 0x20; c++) {
        NEEDS_ESCAPE[c] = 1;
    }
    NEEDS_ESCAPE['"'] = 1;
    NEEDS_ESCAPE['\\'] = 1;
}

static int
write_utf8_string(Buffer *b, const char *s, Py_ssize_t n)
{
    Py_ssize_t first = 0;
    while (first < n && !NEEDS_ESCAPE[(unsigned char)s[first]]) {
        first++;
    }
    if (first == n) {  /* the usual case: nothing to escape */
        if (buffer_reserve(b, n + 2) < 0) {
            return -1;
        }
        char *out = b->data + b->len;
        *out++ = '"';
        memcpy(out, s, (size_t)n);
        out[n] = '"';
        b->len += n + 2;
        return 0;
    }
    /* worst case every remaining byte becomes \u00XX */
    if (buffer_reserve(b, n * 6 + 2) < 0) {
        return -1;
    }
    char *out = b->data + b->len;
    *out++ = '"';
    Py_ssize_t start = 0;
    for (Py_ssize_t i = first; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!NEEDS_ESCAPE[c]) {
            continue;
        }
        memcpy(out, s + start, (size_t)(i - start));
        out += i - start;
        start = i + 1;
        *out++ = '\\';
        switch (c) {
            case '"': *out++ = '"'; break;
            case '\\': *out++ = '\\'; break;
            case '\n': *out++ = 'n'; break;
            case '\r': *out++ = 'r'; break;
            case '\t': *out++ = 't'; break;
            case '\b': *out++ = 'b'; break;
            case '\f': *out++ = 'f'; break;
            default:
                *out++ = 'u';
                *out++ = '0';
                *out++ = '0';
                *out++ = HEX[c >> 4];
                *out++ = HEX[c & 0xf];
        }
    }
    memcpy(out, s + start, (size_t)(n - start));
    out += n - start;
    *out++ = '"';
    b->len = out - b->data;
    return 0;
}

static int
write_str(Buffer *b, PyObject *obj)
{
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(obj, &n);
    if (s == NULL) {
        return -1;
    }
    return write_utf8_string(b, s, n);
}

static int
write_repr(Buffer *b, PyObject *obj, reprfunc repr)
{
    PyObject *text = repr(obj);
    if (text == NULL) {
        return -1;
    }
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(text, &n);
    int rc = s == NULL ? -1 : buffer_put(b, s, n);
    Py_DECREF(text);
    return rc;
}

static int
write_int(Buffer *b, PyObject *obj)
{
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (overflow) {
        return write_repr(b, obj, PyLong_Type.tp_repr);
    }
    char tmp[24];
    int n = sizeof tmp;
    /* digits by hand, from the end; unsigned so that LLONG_MIN negates safely */
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        tmp[--n] = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    if (v < 0) {
        tmp[--n] = '-';
    }
    return buffer_put(b, tmp + n, (Py_ssize_t)sizeof tmp - n);
}

/*
 * The texts of recently written floats, by their bits. Finding the shortest repr is the costliest
 * part of writing an operation after hashing it, and the same values recur: a confidence is in the
 * payload twice and in the node snapshot, weights and ceilings are constants. The GIL-holding
 * encoder is the only user.
 */
#define FLOAT_SLOTS 1024

typedef struct {
    uint64_t bits;
    unsigned char len;  /* 0: empty */
    char text[31];
} FloatText;

static FloatText float_texts[FLOAT_SLOTS];

static int
write_float(Buffer *b, PyObject *obj)
{
    double d = PyFloat_AS_DOUBLE(obj);
    if (!isfinite(d)) {
        PyErr_SetString(PyExc_ValueError, "Out of range float values are not JSON compliant");
        return -1;
    }
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    FloatText *slot = &float_texts[(bits * 0x9E3779B97F4A7C15ULL) >> 54];  /* 10 bits: FLOAT_SLOTS */
    if (slot->len != 0 && slot->bits == bits) {
        return buffer_put(b, slot->text, slot->len);
    }
    /* float.__repr__: shortest repr, ".0" added to integral values */
    char *s = PyOS_double_to_string(d, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
    if (s == NULL) {
        return -1;
    }
    size_t n = strlen(s);
    if (n < sizeof slot->text) {
        slot->bits = bits;
        slot->len = (unsigned char)n;
        memcpy(slot->text, s, n);
    }
    int rc = buffer_put(b, s, (Py_ssize_t)n);
    PyMem_Free(s);
    return rc;
}

typedef struct {
    PyObject *key_object;
    const char *key;
    Py_ssize_t key_len;
    PyObject *value;
} Member;

static int
compare_members(const void *a, const void *b)
{
    const Member *x = a, *y = b;
    Py_ssize_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
    int c = memcmp(x->key, y->key, (size_t)n);
    if (c != 0) {
        return c;
    }
    return (x->key_len > y->key_len) - (x->key_len < y->key_len);
}

/*
 * Sorted key order per dict shape. The reducer writes thousands of dicts with
 * the same keys (the same str objects, in the same insertion order): a node's
 * fifty fields, an operation's members, a payload. Sorting them each time was
 * a quarter of the encoder's time. A shape is the sequence of key objects; the
 * cache holds references to them, so a pointer match means the same strings and
 * therefore the same order. Only the GIL-holding encoder touches it.
 */
#define SHAPE_SLOTS 256
#define SHAPE_MAX_KEYS 128

typedef struct {
    Py_ssize_t size;
    PyObject **keys;          /* strong references, in the dict's iteration order */
    unsigned char *order;     /* iteration positions in sorted key order */
} Shape;

static Shape shapes[SHAPE_SLOTS];

static size_t
shape_hash(const Member *members, Py_ssize_t size)
{
    size_t h = 1469598103934665603ULL;
    for (Py_ssize_t i = 0; i < size; i++) {
        h ^= (size_t)members[i].key_object >> 4;
        h *= 1099511628211ULL;
    }
    return h;
}

/* Writes the sorted order of ``members`` (iteration positions) to ``out``, cached per shape; -1 on no memory. */
static int
sorted_order(Member *members, Py_ssize_t size, unsigned char *out)
{
    Shape *shape = &shapes[shape_hash(members, size) % SHAPE_SLOTS];
    if (shape->size == size) {
        Py_ssize_t i = 0;
        while (i < size && shape->keys[i] == members[i].key_object) {
            i++;
        }
        if (i == size) {
            memcpy(out, shape->order, (size_t)size);
            return 0;
        }
    }
    PyObject **keys = PyMem_Malloc(sizeof(PyObject *) * (size_t)size);
    unsigned char *order = PyMem_Malloc((size_t)size);
    Member *sorted = PyMem_Malloc(sizeof(Member) * (size_t)size);
    if (keys == NULL || order == NULL || sorted == NULL) {
        PyMem_Free(keys);
        PyMem_Free(order);
        PyMem_Free(sorted);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < size; i++) {
        sorted[i] = members[i];
        sorted[i].value = (PyObject *)(size_t)i;  /* carries the iteration position through the sort */
        keys[i] = members[i].key_object;
        Py_INCREF(keys[i]);
    }
    /* UTF-8 byte order is code point order: the order of sorted() over str keys */
    qsort(sorted, (size_t)size, sizeof(Member), compare_members);
    for (Py_ssize_t i = 0; i < size; i++) {
        order[i] = (unsigned char)(size_t)sorted[i].value;
    }
    memcpy(out, order, (size_t)size);
    PyMem_Free(sorted);
    /* The slot holds the new shape before the old keys are released: releasing one could run
     * code (a str subclass's __del__) that encodes again and must find the cache consistent. */
    Py_ssize_t old_size = shape->size;
    PyObject **old_keys = shape->keys;
    unsigned char *old_order = shape->order;
    shape->size = size;
    shape->keys = keys;
    shape->order = order;
    for (Py_ssize_t i = 0; i < old_size; i++) {
        Py_DECREF(old_keys[i]);
    }
    PyMem_Free(old_keys);
    PyMem_Free(old_order);
    return 0;
}

static int write_value(Buffer *b, PyObject *obj, int depth);

/* A dict's members in sorted key order. */
static int
write_dict(Buffer *b, PyObject *obj, int depth)
{
    Py_ssize_t size = PyDict_GET_SIZE(obj);
    if (size == 0) {
        return buffer_put(b, "{}", 2);
    }
    Member stack_members[64];
    Member *members = stack_members;
    if (size > 64) {
        members = PyMem_Malloc(sizeof(Member) * (size_t)size);
        if (members == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    }
    /* Keys and values stay alive through the dict: no Python code runs while we write. */
    Py_ssize_t pos = 0, i = 0;
    PyObject *key, *value;
    int rc = -1;
    while (PyDict_Next(obj, &pos, &key, &value)) {
        if (!PyUnicode_Check(key)) {
            PyErr_SetString(PyExc_TypeError, "canonical JSON keys must be str");
            goto done;
        }
        members[i].key_object = key;
        members[i].key = PyUnicode_AsUTF8AndSize(key, &members[i].key_len);
        if (members[i].key == NULL) {
            goto done;
        }
        members[i].value = value;
        i++;
    }
    if (i != size) {
        PyErr_SetString(PyExc_RuntimeError, "dict changed size during encoding");
        goto done;
    }
    /* a copy of the cached order: writing a nested dict may evict this shape from the cache */
    unsigned char order_copy[SHAPE_MAX_KEYS];
    const unsigned char *order = NULL;
    if (size <= SHAPE_MAX_KEYS) {
        if (sorted_order(members, size, order_copy) < 0) {
            goto done;
        }
        order = order_copy;
    }
    else {  /* too wide to cache: sort in place */
        qsort(members, (size_t)size, sizeof(Member), compare_members);
    }
    if (buffer_char(b, '{') < 0) {
        goto done;
    }
    for (i = 0; i < size; i++) {
        const Member *m = order == NULL ? &members[i] : &members[order[i]];
        if (i > 0 && buffer_char(b, ',') < 0) {
            goto done;
        }
        if (write_utf8_string(b, m->key, m->key_len) < 0 || buffer_char(b, ':') < 0) {
            goto done;
        }
        if (write_value(b, m->value, depth + 1) < 0) {
            goto done;
        }
    }
    rc = buffer_char(b, '}');
done:
    if (members != stack_members) {
        PyMem_Free(members);
    }
    return rc;
}

static int
write_sequence(Buffer *b, PyObject *obj, int depth)
{
    PyObject **items = PySequence_Fast_ITEMS(obj);
    Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
    if (buffer_char(b, '[') < 0) {
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (i > 0 && buffer_char(b, ',') < 0) {
            return -1;
        }
        /* a list item may be replaced by code the encoder calls (a repr); hold it */
        PyObject *item = items[i];
        Py_INCREF(item);
        int rc = write_value(b, item, depth + 1);
        Py_DECREF(item);
        if (rc < 0) {
            return -1;
        }
        if (PyList_CheckExact(obj)) {
            items = PySequence_Fast_ITEMS(obj);
            if (PyList_GET_SIZE(obj) != n) {
                PyErr_SetString(PyExc_RuntimeError, "list changed size during encoding");
                return -1;
            }
        }
    }
    return buffer_char(b, ']');
}

static int
write_value(Buffer *b, PyObject *obj, int depth)
{
    if (depth > MAX_DEPTH) {
        PyErr_SetString(PyExc_TypeError, "value nested too deeply for the canonical encoder");
        return -1;
    }
    if (obj == Py_None) {
        return buffer_put(b, "null", 4);
    }
    if (obj == Py_True) {
        return buffer_put(b, "true", 4);
    }
    if (obj == Py_False) {
        return buffer_put(b, "false", 5);
    }
    if (PyUnicode_Check(obj)) {
        return write_str(b, obj);
    }
    if (PyLong_CheckExact(obj)) {
        return write_int(b, obj);
    }
    if (PyLong_Check(obj)) {
        return write_repr(b, obj, PyLong_Type.tp_repr);  /* int enums: json uses int.__repr__ */
    }
    if (PyFloat_Check(obj)) {
        return write_float(b, obj);
    }
    if (PyDict_CheckExact(obj)) {
        return write_dict(b, obj, depth);
    }
    if (PyList_CheckExact(obj) || PyTuple_CheckExact(obj)) {
        return write_sequence(b, obj, depth);
    }
    PyErr_Format(PyExc_TypeError, "%.100s is not a canonical JSON value", Py_TYPE(obj)->tp_name);
    return -1;
}

static PyObject *
encode(PyObject *module, PyObject *value)
{
    char stack[STACK_BUFFER];
    Buffer b = {stack, 0, STACK_BUFFER, 1};
    PyObject *result = NULL;
    if (write_value(&b, value, 0) == 0) {
        result = PyBytes_FromStringAndSize(b.data, b.len);
    }
    if (!b.on_stack) {
        PyMem_Free(b.data);
    }
    return result;
}

/* ------------------------------------------------------------------ models
 *
 * A plan says how pydantic's JSON mode writes each field of one model class
 * (engine.fastjson.model_plan derives it from the annotations and refuses any
 * class it cannot describe exactly). Fields are listed in sorted name order
 * with their encoded key, so the model is written in one pass over its
 * __dict__. Every value must have exactly the declared type; anything else
 * raises TypeError and the caller dumps the model with pydantic instead.
 */
enum {
    K_STR = 1, K_INT, K_FLOAT, K_BOOL, K_DATETIME, K_ENUM, K_LITERAL,
    K_STR_TUPLE, K_MAP_INT, K_MAP_FLOAT, K_JSON, K_MODEL, K_MODEL_TUPLE,
};
#define K_OPTIONAL 0x100

typedef struct {
    PyObject *name;      /* borrowed from the plan tuple, which the capsule keeps alive */
    const char *key;     /* "name": */
    Py_ssize_t key_len;
    int kind;
    PyObject *arg;       /* enum class, literal values or nested model class */
} PlanField;

typedef struct {
    PyObject *source;    /* the plan tuple given to register_model */
    PyObject *declared;  /* the field names in declaration order (the __dict__ order), or NULL */
    Py_ssize_t *plan_index;  /* declaration position -> index in fields, with ``declared`` */
    Py_ssize_t size;
    PlanField fields[];
} Plan;

/* Field names are usually the very same (interned) objects; two different interned strings differ. */
static int
same_name(PyObject *a, PyObject *b)
{
    if (a == b) {
        return 1;
    }
    if (!PyUnicode_CheckExact(a) || !PyUnicode_CheckExact(b)
        || (PyUnicode_CHECK_INTERNED(a) && PyUnicode_CHECK_INTERNED(b))) {
        return 0;
    }
    return PyUnicode_Compare(a, b) == 0;
}

static PyObject *plans;        /* exact model type -> capsule holding a Plan */
static PyObject *retired_plans; /* replaced plans, kept alive (see register_model) */
static PyObject *value_name;   /* "_value_" */

static void
plan_capsule_free(PyObject *capsule)
{
    Plan *plan = PyCapsule_GetPointer(capsule, "engine._canonical.plan");
    if (plan != NULL) {
        Py_XDECREF(plan->source);
        Py_XDECREF(plan->declared);
        PyMem_Free(plan->plan_index);
        PyMem_Free(plan);
    }
}

static PyObject *
register_model(PyObject *module, PyObject *args)
{
    PyObject *cls, *source, *declared = NULL;
    if (!PyArg_ParseTuple(args, "O!O!|O!:register_model", &PyType_Type, &cls, &PyTuple_Type, &source,
                          &PyTuple_Type, &declared)) {
        return NULL;
    }
    Py_ssize_t size = PyTuple_GET_SIZE(source);
    Plan *plan = PyMem_Malloc(sizeof(Plan) + sizeof(PlanField) * (size_t)size);
    if (plan == NULL) {
        return PyErr_NoMemory();
    }
    plan->source = NULL;
    plan->declared = NULL;
    plan->plan_index = NULL;
    plan->size = size;
    for (Py_ssize_t i = 0; i < size; i++) {
        PyObject *item = PyTuple_GET_ITEM(source, i);
        PyObject *key, *name, *kind, *arg;
        if (!PyTuple_CheckExact(item) || PyTuple_GET_SIZE(item) != 4) {
            goto bad;
        }
        key = PyTuple_GET_ITEM(item, 0);
        name = PyTuple_GET_ITEM(item, 1);
        kind = PyTuple_GET_ITEM(item, 2);
        arg = PyTuple_GET_ITEM(item, 3);
        if (!PyBytes_CheckExact(key) || !PyUnicode_CheckExact(name) || !PyLong_CheckExact(kind)) {
            goto bad;
        }
        plan->fields[i].name = name;
        plan->fields[i].key = PyBytes_AS_STRING(key);
        plan->fields[i].key_len = PyBytes_GET_SIZE(key);
        plan->fields[i].kind = (int)PyLong_AsLong(kind);
        plan->fields[i].arg = arg;
        int base = plan->fields[i].kind & ~K_OPTIONAL;
        if (base < K_STR || base > K_MODEL_TUPLE
            || ((base == K_ENUM || base == K_MODEL || base == K_MODEL_TUPLE) && !PyType_Check(arg))
            || (base == K_LITERAL && !PyTuple_CheckExact(arg))) {
            goto bad;
        }
    }
    if (declared != NULL) {
        /* each declared name is exactly one field of the plan */
        if (PyTuple_GET_SIZE(declared) != size) {
            goto bad;
        }
        plan->plan_index = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(size ? size : 1));
        if (plan->plan_index == NULL) {
            PyMem_Free(plan);
            return PyErr_NoMemory();
        }
        for (Py_ssize_t d = 0; d < size; d++) {
            Py_ssize_t found = -1;
            for (Py_ssize_t i = 0; i < size; i++) {
                if (same_name(plan->fields[i].name, PyTuple_GET_ITEM(declared, d))) {
                    found = found < 0 ? i : -2;
                }
            }
            for (Py_ssize_t e = 0; e < d && found >= 0; e++) {
                if (plan->plan_index[e] == found) {
                    found = -2;  /* named twice: not an order of the fields */
                }
            }
            if (found < 0) {
                PyMem_Free(plan->plan_index);
                goto bad;
            }
            plan->plan_index[d] = found;
        }
        Py_INCREF(declared);
        plan->declared = declared;
    }
    Py_INCREF(source);
    plan->source = source;
    PyObject *capsule = PyCapsule_New(plan, "engine._canonical.plan", plan_capsule_free);
    if (capsule == NULL) {
        Py_DECREF(source);
        Py_XDECREF(plan->declared);
        PyMem_Free(plan->plan_index);
        PyMem_Free(plan);
        return NULL;
    }
    /* A plan being replaced stays alive: an encoder call may be walking it (plans are borrowed
     * while a model is written). Replacing one is rare (tests), so this costs nothing in use. */
    PyObject *previous = PyDict_GetItemWithError(plans, cls);
    if ((previous == NULL && PyErr_Occurred()) || (previous != NULL && PyList_Append(retired_plans, previous) < 0)) {
        Py_DECREF(capsule);
        return NULL;
    }
    int rc = PyDict_SetItem(plans, cls, capsule);
    Py_DECREF(capsule);
    if (rc < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
bad:
    PyMem_Free(plan);
    PyErr_SetString(PyExc_ValueError,
                    "a plan is a tuple of (key bytes, field name, kind, argument), the declared names its fields");
    return NULL;
}

static Plan *
plan_for(PyTypeObject *type)
{
    PyObject *capsule = PyDict_GetItemWithError(plans, (PyObject *)type);
    if (capsule == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_Format(PyExc_TypeError, "no plan for %.100s", type->tp_name);
        }
        return NULL;
    }
    return PyCapsule_GetPointer(capsule, "engine._canonical.plan");
}

/* The text pydantic writes for a datetime in JSON mode, for naive and UTC values (others: TypeError). */
static int
format_datetime_into(PyObject *obj, char *out, int *len)
{
    if (!PyDateTime_CheckExact(obj)) {
        PyErr_SetString(PyExc_TypeError, "not a datetime");
        return -1;
    }
    PyObject *tz = PyDateTime_DATE_GET_TZINFO(obj);
    const char *suffix;
    if (tz == Py_None) {
        suffix = "";
    }
    else if (tz == PyDateTime_TimeZone_UTC) {
        suffix = "Z";
    }
    else {
        PyErr_SetString(PyExc_TypeError, "only naive and UTC datetimes are formatted here");
        return -1;
    }
    /* digits by hand: snprintf was a third of a node's encoding time */
    int fields[6] = {PyDateTime_GET_YEAR(obj), PyDateTime_GET_MONTH(obj), PyDateTime_GET_DAY(obj),
                     PyDateTime_DATE_GET_HOUR(obj), PyDateTime_DATE_GET_MINUTE(obj),
                     PyDateTime_DATE_GET_SECOND(obj)};
    static const char separators[6] = {'-', '-', 'T', ':', ':', 0};
    int n = 0;
    for (int i = 0; i < 6; i++) {
        int v = fields[i];
        if (i == 0) {  /* datetime years are 1..9999 */
            out[n++] = (char)('0' + v / 1000);
            out[n++] = (char)('0' + v / 100 % 10);
        }
        out[n++] = (char)('0' + v / 10 % 10);
        out[n++] = (char)('0' + v % 10);
        if (separators[i]) {
            out[n++] = separators[i];
        }
    }
    int micro = PyDateTime_DATE_GET_MICROSECOND(obj);
    if (micro != 0) {
        out[n++] = '.';
        for (int div = 100000; div > 0; div /= 10) {
            out[n++] = (char)('0' + micro / div % 10);
        }
    }
    while (*suffix) {
        out[n++] = *suffix++;
    }
    *len = n;
    return 0;
}

static PyObject *
format_datetime(PyObject *module, PyObject *value)
{
    char text[40];
    int n;
    if (format_datetime_into(value, text, &n) < 0) {
        return NULL;
    }
    return PyUnicode_FromStringAndSize(text, n);
}

/* A JSON value as pydantic's JsonValue holds it after validation: exact types only. */
static int
check_json(PyObject *obj, int depth)
{
    if (depth > MAX_DEPTH) {
        PyErr_SetString(PyExc_TypeError, "value nested too deeply for the canonical encoder");
        return -1;
    }
    if (obj == Py_None || obj == Py_True || obj == Py_False || PyUnicode_CheckExact(obj)
        || PyLong_CheckExact(obj) || PyFloat_CheckExact(obj)) {
        return 0;
    }
    if (PyList_CheckExact(obj)) {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(obj); i++) {
            if (check_json(PyList_GET_ITEM(obj, i), depth + 1) < 0) {
                return -1;
            }
        }
        return 0;
    }
    if (PyDict_CheckExact(obj)) {
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        while (PyDict_Next(obj, &pos, &key, &value)) {
            if (!PyUnicode_CheckExact(key) || check_json(value, depth + 1) < 0) {
                if (!PyErr_Occurred()) {
                    PyErr_SetString(PyExc_TypeError, "JSON object keys must be str");
                }
                return -1;
            }
        }
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "%.100s is not a JSON value", Py_TYPE(obj)->tp_name);
    return -1;
}

static int
check_map(PyObject *obj, int float_values)
{
    if (!PyDict_CheckExact(obj)) {
        PyErr_SetString(PyExc_TypeError, "not a dict");
        return -1;
    }
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(obj, &pos, &key, &value)) {
        if (!PyUnicode_CheckExact(key) || !(float_values ? PyFloat_CheckExact(value) : PyLong_CheckExact(value))) {
            PyErr_SetString(PyExc_TypeError, "map member of another type");
            return -1;
        }
    }
    return 0;
}


static int write_model(Buffer *b, PyObject *obj, Plan *plan, int depth);
#define FAST_FIELDS 128  /* models up to this many fields are read in one pass over their __dict__ */

/* A model's (or an operation's) values in the plan's (name) order, as new references, read in one pass
 * over ``dict`` when it holds exactly the declared names in declaration order (the usual case: the
 * very same key objects). Returns 1 when ``values`` was filled, 0 when the caller must look values
 * up by name. */
static int
gather_values(const Plan *plan, PyObject *dict, PyObject **values)
{
    if (plan->declared == NULL || plan->size > FAST_FIELDS || PyDict_GET_SIZE(dict) != plan->size) {
        return 0;
    }
    Py_ssize_t pos = 0, held = 0;
    PyObject *key, *value;
    while (PyDict_Next(dict, &pos, &key, &value)) {
        if (key != PyTuple_GET_ITEM(plan->declared, held)) {
            break;
        }
        values[plan->plan_index[held++]] = Py_NewRef(value);
    }
    if (held == plan->size) {
        return 1;
    }
    for (Py_ssize_t d = 0; d < held; d++) {
        Py_DECREF(values[plan->plan_index[d]]);
    }
    return 0;
}

static void
release_values(PyObject **values, Py_ssize_t size)
{
    for (Py_ssize_t i = 0; values != NULL && i < size; i++) {
        Py_DECREF(values[i]);
    }
}
/* An enum member's value (a new reference), which must be a str or an int. */
static PyObject *
enum_value(PyObject *member)
{
    PyObject *raw = PyObject_GetAttr(member, value_name);
    if (raw != NULL && !PyUnicode_CheckExact(raw) && !PyLong_CheckExact(raw)) {
        Py_DECREF(raw);
        PyErr_SetString(PyExc_TypeError, "enum value is neither str nor int");
        return NULL;
    }
    return raw;
}

/* 0 if ``value`` is an exact tuple of exact str, else -1 with TypeError. */
static int
check_str_tuple(PyObject *value)
{
    if (!PyTuple_CheckExact(value)) {
        PyErr_SetString(PyExc_TypeError, "not a tuple");
        return -1;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(value); i++) {
        if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(value, i))) {
            PyErr_SetString(PyExc_TypeError, "tuple member is not a str");
            return -1;
        }
    }
    return 0;
}

/* 1 if ``value`` is one of a literal field's values, 0 if not, -1 on error. */
static int
literal_member(const PlanField *field, PyObject *value)
{
    if (!PyUnicode_CheckExact(value) && !PyLong_CheckExact(value)) {
        return 0;
    }
    return PySequence_Contains(field->arg, value);
}


static int
write_field(Buffer *b, PyObject *value, const PlanField *field, int depth)
{
    int kind = field->kind;
    if (value == Py_None && (kind & K_OPTIONAL)) {
        return buffer_put(b, "null", 4);
    }
    switch (kind & ~K_OPTIONAL) {
        case K_STR:
            if (PyUnicode_CheckExact(value)) {
                return write_str(b, value);
            }
            break;
        case K_INT:
            if (PyLong_CheckExact(value)) {
                return write_int(b, value);
            }
            break;
        case K_FLOAT:
            if (PyFloat_CheckExact(value)) {
                return write_float(b, value);
            }
            break;
        case K_BOOL:
            if (value == Py_True || value == Py_False) {
                return write_value(b, value, depth);
            }
            break;
        case K_DATETIME: {
            char text[40];
            int n;
            if (format_datetime_into(value, text, &n) < 0) {
                return -1;
            }
            return write_utf8_string(b, text, n);
        }
        case K_ENUM:
            if (Py_TYPE(value) == (PyTypeObject *)field->arg) {
                PyObject *raw = enum_value(value);
                if (raw == NULL) {
                    return -1;
                }
                int rc = PyUnicode_CheckExact(raw) ? write_str(b, raw) : write_int(b, raw);
                Py_DECREF(raw);
                return rc;
            }
            break;
        case K_LITERAL: {
            int found = literal_member(field, value);
            if (found != 0) {
                return found < 0 ? -1 : write_value(b, value, depth);
            }
            break;
        }
        case K_STR_TUPLE:
            return check_str_tuple(value) < 0 ? -1 : write_sequence(b, value, depth);
        case K_MAP_INT:
        case K_MAP_FLOAT:
            if (check_map(value, (kind & ~K_OPTIONAL) == K_MAP_FLOAT) < 0) {
                return -1;
            }
            return write_dict(b, value, depth);
        case K_JSON:
            if (PyDict_CheckExact(value)) {
                if (check_json(value, depth) < 0) {
                    return -1;
                }
                return write_dict(b, value, depth);
            }
            break;
        case K_MODEL:
            if (Py_TYPE(value) == (PyTypeObject *)field->arg) {
                Plan *nested = plan_for(Py_TYPE(value));
                return nested == NULL ? -1 : write_model(b, value, nested, depth + 1);
            }
            break;
        case K_MODEL_TUPLE:
            if (PyTuple_CheckExact(value)) {
                Plan *nested = plan_for((PyTypeObject *)field->arg);
                if (nested == NULL || buffer_char(b, '[') < 0) {
                    return -1;
                }
                for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(value); i++) {
                    PyObject *item = PyTuple_GET_ITEM(value, i);
                    if (Py_TYPE(item) != (PyTypeObject *)field->arg) {
                        PyErr_SetString(PyExc_TypeError, "tuple member is not exactly the declared model");
                        return -1;
                    }
                    if ((i > 0 && buffer_char(b, ',') < 0) || write_model(b, item, nested, depth + 1) < 0) {
                        return -1;
                    }
                }
                return buffer_char(b, ']');
            }
            break;
    }
    PyErr_Format(PyExc_TypeError, "field %U holds a %.100s", field->name, Py_TYPE(value)->tp_name);
    return -1;
}

/* ------------------------------------------------------------- JSON data
 *
 * What ``model.model_dump(mode="json")`` returns, by the same plans: enums as
 * their values, datetimes as pydantic's text, tuples as lists, nested models
 * as dicts, maps and JSON data as fresh copies; keys in declaration order.
 * The reducer journals an extraction result's JSON as the payload of its
 * EXTRACTION_VALIDATED operation; values of other types than declared raise
 * TypeError (a non-finite float ValueError) and the caller asks pydantic.
 */
static PyObject *model_json_data(PyObject *obj, Plan *plan, int depth);

static PyObject *
copy_json(PyObject *obj, int depth)
{
    if (depth > MAX_DEPTH) {
        PyErr_SetString(PyExc_TypeError, "value nested too deeply for the canonical encoder");
        return NULL;
    }
    if (PyList_CheckExact(obj)) {
        Py_ssize_t n = PyList_GET_SIZE(obj);
        PyObject *out = PyList_New(n);
        for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
            PyObject *item = copy_json(PyList_GET_ITEM(obj, i), depth + 1);
            if (item == NULL) {
                Py_CLEAR(out);
                break;
            }
            PyList_SET_ITEM(out, i, item);
        }
        return out;
    }
    if (PyDict_CheckExact(obj)) {
        PyObject *out = PyDict_New();
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        while (out != NULL && PyDict_Next(obj, &pos, &key, &value)) {
            PyObject *item = copy_json(value, depth + 1);
            if (item == NULL || PyDict_SetItem(out, key, item) < 0) {
                Py_XDECREF(item);
                Py_CLEAR(out);
                break;
            }
            Py_DECREF(item);
        }
        return out;
    }
    return Py_NewRef(obj);  /* checked by check_json: None, bool, int, float or str */
}

static PyObject *
field_json_data(PyObject *value, const PlanField *field, int depth)
{
    int kind = field->kind;
    if (value == Py_None && (kind & K_OPTIONAL)) {
        return Py_NewRef(Py_None);
    }
    switch (kind & ~K_OPTIONAL) {
        case K_STR:
            if (PyUnicode_CheckExact(value)) {
                return Py_NewRef(value);
            }
            break;
        case K_INT:
            if (PyLong_CheckExact(value)) {
                return Py_NewRef(value);
            }
            break;
        case K_FLOAT:
            if (PyFloat_CheckExact(value)) {
                if (!isfinite(PyFloat_AS_DOUBLE(value))) {
                    PyErr_SetString(PyExc_ValueError, "Out of range float values are not JSON compliant");
                    return NULL;
                }
                return Py_NewRef(value);
            }
            break;
        case K_BOOL:
            if (value == Py_True || value == Py_False) {
                return Py_NewRef(value);
            }
            break;
        case K_DATETIME: {
            char text[40];
            int n;
            if (format_datetime_into(value, text, &n) < 0) {
                return NULL;
            }
            return PyUnicode_FromStringAndSize(text, n);
        }
        case K_ENUM:
            if (Py_TYPE(value) == (PyTypeObject *)field->arg) {
                return enum_value(value);
            }
            break;
        case K_LITERAL: {
            int found = literal_member(field, value);
            if (found != 0) {
                return found < 0 ? NULL : Py_NewRef(value);
            }
            break;
        }
        case K_STR_TUPLE:
            return check_str_tuple(value) < 0 ? NULL : PySequence_List(value);
        case K_MAP_INT:
        case K_MAP_FLOAT:
            if (check_map(value, (kind & ~K_OPTIONAL) == K_MAP_FLOAT) < 0) {
                return NULL;
            }
            return PyDict_Copy(value);
        case K_JSON:
            if (PyDict_CheckExact(value)) {
                return check_json(value, depth) < 0 ? NULL : copy_json(value, depth);
            }
            break;
        case K_MODEL:
            if (Py_TYPE(value) == (PyTypeObject *)field->arg) {
                Plan *nested = plan_for(Py_TYPE(value));
                return nested == NULL ? NULL : model_json_data(value, nested, depth + 1);
            }
            break;
        case K_MODEL_TUPLE:
            if (PyTuple_CheckExact(value)) {
                Plan *nested = plan_for((PyTypeObject *)field->arg);
                Py_ssize_t n = PyTuple_GET_SIZE(value);
                PyObject *out = nested == NULL ? NULL : PyList_New(n);
                for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
                    PyObject *item = PyTuple_GET_ITEM(value, i);
                    PyObject *data = Py_TYPE(item) == (PyTypeObject *)field->arg
                                         ? model_json_data(item, nested, depth + 1)
                                         : NULL;
                    if (data == NULL) {
                        if (!PyErr_Occurred()) {
                            PyErr_SetString(PyExc_TypeError, "tuple member is not exactly the declared model");
                        }
                        Py_CLEAR(out);
                        break;
                    }
                    PyList_SET_ITEM(out, i, data);
                }
                return out;
            }
            break;
    }
    PyErr_Format(PyExc_TypeError, "field %U holds a %.100s", field->name, Py_TYPE(value)->tp_name);
    return NULL;
}

static PyObject *
model_json_data(PyObject *obj, Plan *plan, int depth)
{
    if (depth > MAX_DEPTH) {
        PyErr_SetString(PyExc_TypeError, "value nested too deeply for the canonical encoder");
        return NULL;
    }
    PyObject *dict = PyObject_GenericGetDict(obj, NULL);
    if (dict == NULL) {
        return NULL;
    }
    PyObject *out = NULL;
    if (!PyDict_CheckExact(dict) || PyDict_GET_SIZE(dict) != plan->size) {
        PyErr_SetString(PyExc_TypeError, "the model's __dict__ does not hold exactly its fields");
        goto done;
    }
    out = PyDict_New();
    Py_ssize_t pos = 0, d = 0;
    PyObject *key, *value;
    /* declaration order (the __dict__'s), as pydantic returns it; the plan is in name order */
    while (out != NULL && PyDict_Next(dict, &pos, &key, &value)) {
        const PlanField *field = NULL;
        if (plan->declared != NULL && key == PyTuple_GET_ITEM(plan->declared, d)) {
            field = &plan->fields[plan->plan_index[d]];
        }
        d++;
        for (Py_ssize_t i = 0; i < plan->size && field == NULL; i++) {
            if (plan->fields[i].name == key) {  /* usually the very same object */
                field = &plan->fields[i];
            }
        }
        for (Py_ssize_t i = 0; i < plan->size && field == NULL; i++) {
            if (same_name(plan->fields[i].name, key)) {
                field = &plan->fields[i];
            }
        }
        if (field == NULL) {
            PyErr_Format(PyExc_TypeError, "%R is not a field", key);
            Py_CLEAR(out);
            break;
        }
        Py_INCREF(value);
        PyObject *data = field_json_data(value, field, depth);
        Py_DECREF(value);
        if (data == NULL || PyDict_SetItem(out, field->name, data) < 0) {
            Py_XDECREF(data);
            Py_CLEAR(out);
            break;
        }
        Py_DECREF(data);
    }
done:
    Py_DECREF(dict);
    return out;
}

static PyObject *
json_data(PyObject *module, PyObject *value)
{
    Plan *plan = plan_for(Py_TYPE(value));
    return plan == NULL ? NULL : model_json_data(value, plan, 0);
}

static int
write_model(Buffer *b, PyObject *obj, Plan *plan, int depth)
{
    if (depth > MAX_DEPTH) {
        PyErr_SetString(PyExc_TypeError, "value nested too deeply for the canonical encoder");
        return -1;
    }
    PyObject *dict = PyObject_GenericGetDict(obj, NULL);
    if (dict == NULL) {
        return -1;
    }
    int rc = -1;
    PyObject *stack_values[FAST_FIELDS];
    PyObject **values = NULL;
    if (!PyDict_CheckExact(dict) || PyDict_GET_SIZE(dict) != plan->size) {
        PyErr_SetString(PyExc_TypeError, "the model's __dict__ does not hold exactly its fields");
        goto done;
    }
    if (gather_values(plan, dict, stack_values)) {
        values = stack_values;
    }
    if (buffer_char(b, '{') < 0) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < plan->size; i++) {
        const PlanField *field = &plan->fields[i];
        PyObject *value = values != NULL ? values[i] : PyDict_GetItemWithError(dict, field->name);
        if (value == NULL) {
            if (!PyErr_Occurred()) {
                PyErr_Format(PyExc_TypeError, "field %U is missing", field->name);
            }
            goto done;
        }
        if ((i > 0 && buffer_char(b, ',') < 0) || buffer_put(b, field->key, field->key_len) < 0) {
            goto done;
        }
        Py_INCREF(value);
        int failed = write_field(b, value, field, depth) < 0;
        Py_DECREF(value);
        if (failed) {
            goto done;
        }
    }
    rc = buffer_char(b, '}');
done:
    release_values(values, plan->size);
    Py_DECREF(dict);
    return rc;
}

/* The bytes of a model by its plan. */
static PyObject *
model_bytes_by_plan(PyObject *value, Plan *plan)
{
    char stack[STACK_BUFFER];
    Buffer b = {stack, 0, STACK_BUFFER, 1};
    PyObject *result = NULL;
    if (write_model(&b, value, plan, 0) == 0) {
        result = PyBytes_FromStringAndSize(b.data, b.len);
    }
    if (!b.on_stack) {
        PyMem_Free(b.data);
    }
    return result;
}

static PyObject *
encode_model(PyObject *module, PyObject *value)
{
    Plan *plan = plan_for(Py_TYPE(value));
    return plan == NULL ? NULL : model_bytes_by_plan(value, plan);
}

/* An instance's members from its field values (its __dict__ to be) by the class's plan, in one
 * object. ``overrides`` (may be NULL; else one entry per plan field, NULL for none) replaces fields:
 * a bytes value is an encoded fragment (a snapshot's cached text), anything else is written as a
 * plain canonical value (a payload). The field named ``split`` is left out; the offset where it
 * belongs goes to ``split_at``. */
static int
write_members(Buffer *b, const Plan *plan, PyObject *fields, PyObject *const *overrides, PyObject *split_name,
              Py_ssize_t *split_at)
{
    if (PyDict_GET_SIZE(fields) != plan->size) {
        PyErr_SetString(PyExc_TypeError, "the values do not name exactly the class's fields");
        return -1;
    }
    PyObject *stack_values[FAST_FIELDS];
    PyObject **values = gather_values(plan, fields, stack_values) ? stack_values : NULL;
    int rc = -1, written = 0;
    *split_at = -1;
    if (buffer_char(b, '{') < 0) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < plan->size; i++) {
        const PlanField *field = &plan->fields[i];
        if (same_name(field->name, split_name)) {
            *split_at = b->len;
            continue;
        }
        PyObject *value = overrides == NULL ? NULL : overrides[i];
        int overridden = value != NULL;
        if (value == NULL) {
            value = values != NULL ? values[i] : PyDict_GetItemWithError(fields, field->name);
            if (value == NULL) {
                if (!PyErr_Occurred()) {
                    PyErr_Format(PyExc_TypeError, "field %U is missing", field->name);
                }
                goto done;
            }
        }
        if ((written++ > 0 && buffer_char(b, ',') < 0) || buffer_put(b, field->key, field->key_len) < 0) {
            goto done;
        }
        Py_INCREF(value);
        int failed;
        if (overridden && PyBytes_CheckExact(value)) {
            failed = buffer_put(b, PyBytes_AS_STRING(value), PyBytes_GET_SIZE(value)) < 0;
        }
        else if (overridden) {
            failed = write_value(b, value, 1) < 0;  /* as json.dumps writes it (tuples as lists) */
        }
        else {
            failed = write_field(b, value, field, 1) < 0;
        }
        Py_DECREF(value);
        if (failed) {
            goto done;
        }
    }
    if (*split_at <= 1) {
        PyErr_SetString(PyExc_ValueError, "the split field must be a field and not the first");
        goto done;
    }
    rc = buffer_char(b, '}');
done:
    release_values(values, plan->size);
    return rc;
}

/* An operation's canonical text without its checksum, and the offset where the checksum member
 * belongs (see write_members). */
static PyObject *
encode_fields_split(PyObject *module, PyObject *args)
{
    PyObject *cls, *fields, *overrides, *split_name;
    if (!PyArg_ParseTuple(args, "O!O!O!U:encode_fields_split", &PyType_Type, &cls, &PyDict_Type, &fields,
                          &PyDict_Type, &overrides, &split_name)) {
        return NULL;
    }
    Plan *plan = plan_for((PyTypeObject *)cls);
    if (plan == NULL) {
        return NULL;
    }
    if (plan->size > FAST_FIELDS) {
        PyErr_SetString(PyExc_TypeError, "too many fields for the encoder");
        return NULL;
    }
    PyObject *by_field[FAST_FIELDS];  /* borrowed from ``overrides`` */
    for (Py_ssize_t i = 0; i < plan->size; i++) {
        by_field[i] = PyDict_GetItemWithError(overrides, plan->fields[i].name);
        if (by_field[i] == NULL && PyErr_Occurred()) {
            return NULL;
        }
    }
    char stack[STACK_BUFFER];
    Buffer b = {stack, 0, STACK_BUFFER, 1};
    PyObject *result = NULL;
    Py_ssize_t split_at;
    Py_INCREF(overrides);  /* keeps the borrowed values alive while written */
    if (write_members(&b, plan, fields, by_field, split_name, &split_at) == 0) {
        result = Py_BuildValue("(y#n)", b.data, b.len, split_at);
    }
    Py_DECREF(overrides);
    if (!b.on_stack) {
        PyMem_Free(b.data);
    }
    return result;
}

/* ``engine.snapshots.construct`` without the Python frames: an unvalidated instance whose __dict__
 * is ``values``. Pydantic keeps the other three attributes in slots; they are set as object.__setattr__
 * sets them. With ``names`` (the fields in declaration order), ``values`` must name exactly those, in
 * that order, else TypeError (the caller then puts them in order). */
static PyObject *fields_set_name, *extra_name, *private_name;

static PyObject *
construct_model(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if ((nargs != 3 && nargs != 4) || !PyType_Check(args[0]) || !PyDict_CheckExact(args[1])
        || !PySet_CheckExact(args[2]) || (nargs == 4 && !PyTuple_CheckExact(args[3]))) {
        PyErr_SetString(PyExc_TypeError, "construct_model(cls, values: dict, fields_set: set[, names: tuple])");
        return NULL;
    }
    if (nargs == 4) {
        PyObject *names = args[3];
        if (PyDict_GET_SIZE(args[1]) != PyTuple_GET_SIZE(names)) {
            PyErr_SetString(PyExc_TypeError, "the values do not name exactly the fields");
            return NULL;
        }
        Py_ssize_t pos = 0, i = 0;
        PyObject *key, *value;
        while (PyDict_Next(args[1], &pos, &key, &value)) {
            if (!same_name(key, PyTuple_GET_ITEM(names, i++))) {
                PyErr_SetString(PyExc_TypeError, "the values are not in declaration order");
                return NULL;
            }
        }
    }
    PyTypeObject *type = (PyTypeObject *)args[0];
    PyObject *obj = type->tp_alloc(type, 0);
    if (obj == NULL) {
        return NULL;
    }
    if (PyObject_GenericSetDict(obj, args[1], NULL) < 0
        || PyObject_GenericSetAttr(obj, fields_set_name, args[2]) < 0
        || PyObject_GenericSetAttr(obj, extra_name, Py_None) < 0
        || PyObject_GenericSetAttr(obj, private_name, Py_None) < 0) {
        Py_DECREF(obj);
        return NULL;
    }
    return obj;
}

/* ----------------------------------------------------------------- sealing
 *
 * Everything ``Emitter.emit`` does for an operation once it has gathered the
 * field values, in one call: the snapshots' texts through the shared snapshot
 * cache, the operation's text by its plan, SHA-256 of it, the instance (whose
 * __dict__ is the values dict), and its entry in the sealed-text cache. The
 * caches, their entry formats and their eviction are those of
 * engine.canonical_fast (which also reads them); it hands them over once, at
 * import, with ``configure_sealing`` (reconfiguring while an operation is being
 * sealed is not supported). A value the plans do not take raises TypeError or
 * ValueError before the values dict is changed, and the caller seals the
 * reference way.
 */
typedef struct {
    PyObject *cls;             /* the operation class */
    PyObject *names;           /* its field names in declaration order */
    PyObject *fields_set;      /* the set of them, shared by the (frozen) instances: see engine.snapshots */
    PyObject *snapshot_cache;  /* id -> [weakref, bytes | None], oldest first */
    Py_ssize_t snapshot_limit;
    PyObject *op_cache;        /* id -> (weakref, (text, checksum offset)), oldest first */
    Py_ssize_t op_limit;
    PyObject *fallback;        /* model -> bytes, for a snapshot no plan takes */
} Sealing;

static Sealing sealing;
static PyObject *checksum_name, *payload_name;
static EVP_MD *sha256_md;       /* fetched once: an implicit fetch per digest costs more than the hashing */
static EVP_MD_CTX *sha256_ctx;  /* reused; only the GIL-holding sealer touches it */
static PyObject *snapshot_names[3];  /* before, after, edge */

static PyObject *
configure_sealing(PyObject *module, PyObject *args)
{
    Sealing next;
    if (!PyArg_ParseTuple(args, "O!O!O!O!nO!nO:configure_sealing", &PyType_Type, &next.cls, &PyTuple_Type,
                          &next.names, &PySet_Type, &next.fields_set, &PyDict_Type, &next.snapshot_cache,
                          &next.snapshot_limit, &PyDict_Type, &next.op_cache, &next.op_limit, &next.fallback)) {
        return NULL;
    }
    if (next.snapshot_limit < 8 || next.op_limit < 8 || !PyCallable_Check(next.fallback)) {
        PyErr_SetString(PyExc_ValueError, "cache limits must be at least 8 and the fallback callable");
        return NULL;
    }
    PyObject **slots[] = {&next.cls, &next.names, &next.fields_set, &next.snapshot_cache, &next.op_cache,
                          &next.fallback};
    PyObject **old[] = {&sealing.cls, &sealing.names, &sealing.fields_set, &sealing.snapshot_cache,
                        &sealing.op_cache, &sealing.fallback};
    PyObject *released[6];
    for (int i = 0; i < 6; i++) {
        Py_INCREF(*slots[i]);
        released[i] = *old[i];
    }
    sealing = next;
    for (int i = 0; i < 6; i++) {
        Py_XDECREF(released[i]);
    }
    Py_RETURN_NONE;
}

/* Drops the ``n`` oldest entries (the first in iteration order). */
static int
evict_oldest(PyObject *cache, Py_ssize_t n)
{
    PyObject *stale = PyList_New(0);
    if (stale == NULL) {
        return -1;
    }
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyList_GET_SIZE(stale) < n && PyDict_Next(cache, &pos, &key, &value)) {
        if (PyList_Append(stale, key) < 0) {
            Py_DECREF(stale);
            return -1;
        }
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(stale); i++) {
        if (PyDict_DelItem(cache, PyList_GET_ITEM(stale, i)) < 0) {
            if (!PyErr_ExceptionMatches(PyExc_KeyError)) {
                Py_DECREF(stale);
                return -1;
            }
            PyErr_Clear();  /* another thread evicted it first */
        }
    }
    Py_DECREF(stale);
    return 0;
}

/* A snapshot's canonical bytes: by its class's plan, else (no plan yet, or a value of another
 * type than declared) by the Python fallback, which plans the class or dumps it with pydantic. */
static PyObject *
snapshot_compute(PyObject *model)
{
    PyObject *capsule = PyDict_GetItemWithError(plans, (PyObject *)Py_TYPE(model));
    if (capsule != NULL) {
        Plan *plan = PyCapsule_GetPointer(capsule, "engine._canonical.plan");
        if (plan == NULL) {
            return NULL;
        }
        PyObject *result = model_bytes_by_plan(model, plan);
        if (result != NULL) {
            return result;
        }
        if (!PyErr_ExceptionMatches(PyExc_TypeError) && !PyErr_ExceptionMatches(PyExc_ValueError)) {
            return NULL;
        }
        PyErr_Clear();
    }
    else if (PyErr_Occurred()) {
        return NULL;
    }
    PyObject *result = PyObject_CallOneArg(sealing.fallback, model);
    if (result != NULL && !PyBytes_CheckExact(result)) {
        Py_DECREF(result);
        PyErr_SetString(PyExc_RuntimeError, "the snapshot fallback must return bytes");
        return NULL;
    }
    return result;
}

/* canonical_fast._model_bytes: the cached text of a snapshot, moved to the back of the cache. */
static PyObject *
snapshot_text(PyObject *model)
{
    PyObject *cache = sealing.snapshot_cache;
    PyObject *key = PyLong_FromVoidPtr(model);
    if (key == NULL) {
        return NULL;
    }
    PyObject *result = NULL;
    PyObject *entry = PyDict_GetItemWithError(cache, key);
    if (entry == NULL && PyErr_Occurred()) {
        goto done;
    }
    if (entry != NULL) {
        Py_INCREF(entry);
        if (PyDict_DelItem(cache, key) < 0) {
            goto done;
        }
        /* an entry left by a released object at the same address is not this one's */
        if (!PyList_CheckExact(entry) || PyList_GET_SIZE(entry) != 2
            || PyWeakref_GetObject(PyList_GET_ITEM(entry, 0)) != model) {
            Py_CLEAR(entry);
        }
    }
    if (entry == NULL) {
        PyObject *ref = PyWeakref_NewRef(model, NULL);
        if (ref == NULL) {
            if (PyErr_ExceptionMatches(PyExc_TypeError)) {  /* takes no weak reference: not cached */
                PyErr_Clear();
                result = snapshot_compute(model);
            }
            goto done;
        }
        entry = PyList_New(2);
        if (entry == NULL) {
            Py_DECREF(ref);
            goto done;
        }
        PyList_SET_ITEM(entry, 0, ref);
        PyList_SET_ITEM(entry, 1, Py_NewRef(Py_None));
        if (PyDict_GET_SIZE(cache) >= sealing.snapshot_limit
            && evict_oldest(cache, sealing.snapshot_limit / 8) < 0) {
            goto done;
        }
    }
    if (PyDict_SetItem(cache, key, entry) < 0) {
        goto done;
    }
    PyObject *known = PyList_GET_ITEM(entry, 1);
    if (known != Py_None) {
        result = Py_NewRef(known);
        goto done;
    }
    result = snapshot_compute(model);
    if (result != NULL) {
        PyList_SetItem(entry, 1, Py_NewRef(result));
    }
done:
    Py_XDECREF(entry);
    Py_DECREF(key);
    return result;
}

static PyObject *
snapshot_bytes(PyObject *module, PyObject *model)
{
    if (sealing.cls == NULL) {
        PyErr_SetString(PyExc_TypeError, "sealing is not configured");
        return NULL;
    }
    return snapshot_text(model);
}

/* SHA-256 (OpenSSL, as hashlib's) of ``text`` as lowercase hex, like hashlib's hexdigest(). The GIL
 * stays held: releasing it per operation made the sealer wait for the store thread (see
 * schemas.canonical.sha256_hex). */
static PyObject *
sha256_hex_of(PyObject *text)
{
    static const char digits[] = "0123456789abcdef";
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    if (EVP_DigestInit_ex2(sha256_ctx, sha256_md, NULL) != 1
        || EVP_DigestUpdate(sha256_ctx, PyBytes_AS_STRING(text), (size_t)PyBytes_GET_SIZE(text)) != 1
        || EVP_DigestFinal_ex(sha256_ctx, digest, &size) != 1 || size != 32) {
        PyErr_SetString(PyExc_RuntimeError, "SHA-256 failed in OpenSSL");
        return NULL;
    }
    char hex[64];
    for (int i = 0; i < 32; i++) {
        hex[2 * i] = digits[digest[i] >> 4];
        hex[2 * i + 1] = digits[digest[i] & 15];
    }
    return PyUnicode_FromStringAndSize(hex, 64);
}

/* The sealed-text cache entry of ``op``: (weak reference, (text, checksum offset)), newest last; a
 * released operation's entry at the same address is replaced, and the oldest eighth goes when full. */
static int
remember_sealed(PyObject *op, PyObject *text, Py_ssize_t split_at)
{
    PyObject *cache = sealing.op_cache;
    PyObject *op_key = PyLong_FromVoidPtr(op);
    PyObject *ref = op_key == NULL ? NULL : PyWeakref_NewRef(op, NULL);
    PyObject *entry = ref == NULL ? NULL : Py_BuildValue("(N(On))", ref, text, split_at);
    int stored = entry != NULL;
    if (stored && PyDict_GET_SIZE(cache) >= sealing.op_limit) {
        stored = evict_oldest(cache, sealing.op_limit / 8) == 0;
    }
    if (stored && PyDict_DelItem(cache, op_key) < 0) {  /* a released operation's entry: the new one goes last */
        stored = PyErr_ExceptionMatches(PyExc_KeyError);
        if (stored) {
            PyErr_Clear();
        }
    }
    stored = stored && PyDict_SetItem(cache, op_key, entry) == 0;
    Py_XDECREF(op_key);
    Py_XDECREF(entry);
    return stored ? 0 : -1;
}

static PyObject *
remember_operation(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyBytes_CheckExact(args[1]) || !PyLong_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "remember_operation(op, text: bytes, offset: int)");
        return NULL;
    }
    if (sealing.cls == NULL) {
        PyErr_SetString(PyExc_TypeError, "sealing is not configured");
        return NULL;
    }
    Py_ssize_t split_at = PyLong_AsSsize_t(args[2]);
    if ((split_at == -1 && PyErr_Occurred()) || remember_sealed(args[0], args[1], split_at) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *
seal_operation(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyDict_CheckExact(args[0]) || (args[1] != Py_None && !PyBytes_CheckExact(args[1]))) {
        PyErr_SetString(PyExc_TypeError, "seal_operation(fields: dict, payload_text: bytes | None)");
        return NULL;
    }
    if (sealing.cls == NULL) {
        PyErr_SetString(PyExc_TypeError, "sealing is not configured");
        return NULL;
    }
    PyObject *fields = args[0], *payload_text = args[1];
    Plan *plan = plan_for((PyTypeObject *)sealing.cls);
    if (plan == NULL) {
        return NULL;
    }
    Py_ssize_t size = PyTuple_GET_SIZE(sealing.names);
    if (PyDict_GET_SIZE(fields) != size || plan->size != size) {
        PyErr_SetString(PyExc_TypeError, "the values do not name exactly the operation's fields");
        return NULL;
    }
    /* the dict becomes the instance's __dict__: it must hold the fields in declaration order */
    Py_ssize_t pos = 0, i = 0;
    PyObject *key, *value;
    while (PyDict_Next(fields, &pos, &key, &value)) {
        if (!same_name(key, PyTuple_GET_ITEM(sealing.names, i++))) {
            PyErr_SetString(PyExc_TypeError, "the values are not in declaration order");
            return NULL;
        }
    }
    if (plan->size > FAST_FIELDS) {
        PyErr_SetString(PyExc_TypeError, "too many fields for the encoder");
        return NULL;
    }
    PyObject *overrides[FAST_FIELDS] = {NULL};  /* new references, by plan index */
    PyObject *text = NULL, *checksum = NULL, *fields_set = NULL, *op = NULL, *result = NULL;
    char stack[STACK_BUFFER];
    Buffer b = {stack, 0, STACK_BUFFER, 1};
    for (i = 0; i < plan->size; i++) {
        PyObject *name = plan->fields[i].name;
        int snapshot = same_name(name, snapshot_names[0]) || same_name(name, snapshot_names[1])
                       || same_name(name, snapshot_names[2]);
        if (!snapshot && !same_name(name, payload_name)) {
            continue;
        }
        value = PyDict_GetItemWithError(fields, name);
        if (value == NULL) {
            if (!PyErr_Occurred()) {
                PyErr_Format(PyExc_TypeError, "field %U is missing", name);
            }
            goto done;
        }
        if (snapshot && value != Py_None) {
            /* the snapshot's cached text (it may come from Python code: a class without a plan yet) */
            Py_INCREF(value);
            overrides[i] = snapshot_text(value);
            Py_DECREF(value);
            if (overrides[i] == NULL) {
                goto done;
            }
        }
        else if (!snapshot && payload_text != Py_None) {
            overrides[i] = Py_NewRef(payload_text);  /* the payload's canonical bytes, as the caller has them */
        }
        else if (!snapshot && PyDict_CheckExact(value)) {
            overrides[i] = Py_NewRef(value);  /* a plain dict, written as json writes it */
        }
    }
    Py_ssize_t split_at;
    if (write_members(&b, plan, fields, overrides, checksum_name, &split_at) < 0
        || (text = PyBytes_FromStringAndSize(b.data, b.len)) == NULL) {
        goto done;
    }
    /* From here on nothing refuses the values: errors are real ones and propagate. */
    checksum = sha256_hex_of(text);
    fields_set = checksum == NULL ? NULL : Py_NewRef(sealing.fields_set);
    if (fields_set == NULL || PyDict_SetItem(fields, checksum_name, checksum) < 0) {
        goto done;
    }
    PyTypeObject *type = (PyTypeObject *)sealing.cls;
    op = type->tp_alloc(type, 0);
    if (op == NULL || PyObject_GenericSetDict(op, fields, NULL) < 0
        || PyObject_GenericSetAttr(op, fields_set_name, fields_set) < 0
        || PyObject_GenericSetAttr(op, extra_name, Py_None) < 0
        || PyObject_GenericSetAttr(op, private_name, Py_None) < 0) {
        goto done;
    }
    if (remember_sealed(op, text, split_at) == 0) {
        result = Py_NewRef(op);
    }
done:
    if (!b.on_stack) {
        PyMem_Free(b.data);
    }
    for (i = 0; i < plan->size; i++) {
        Py_XDECREF(overrides[i]);
    }
    Py_XDECREF(text);
    Py_XDECREF(checksum);
    Py_XDECREF(fields_set);
    Py_XDECREF(op);
    return result;
}

/* --------------------------------------------------------------------- ids
 *
 * UUIDv5 (RFC 4122 §4.3): SHA-1 of namespace bytes + name, version 5, variant
 * 10xx. The name is the parts joined by U+001F, ints in decimal; other part
 * types raise TypeError (the Python caller then joins them with str()).
 * SHA-1 is OpenSSL's (the library hashlib uses).
 */
static EVP_MD *sha1_md;       /* fetched once, like sha256_md */
static EVP_MD_CTX *sha1_ctx;

static int
sha1(const unsigned char *data, size_t len, unsigned char out[20])
{
    unsigned int size = 0;
    if (EVP_DigestInit_ex2(sha1_ctx, sha1_md, NULL) != 1 || EVP_DigestUpdate(sha1_ctx, data, len) != 1
        || EVP_DigestFinal_ex(sha1_ctx, out, &size) != 1 || size != 20) {
        PyErr_SetString(PyExc_RuntimeError, "SHA-1 failed in OpenSSL");
        return -1;
    }
    return 0;
}

static PyObject *
derive_id(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 1 || !PyBytes_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "derive_id(namespace: bytes, *parts)");
        return NULL;
    }
    char stack[512];
    Buffer b = {stack, 0, sizeof stack, 1};
    PyObject *result = NULL;
    if (buffer_put(&b, PyBytes_AS_STRING(args[0]), PyBytes_GET_SIZE(args[0])) < 0) {
        goto done;
    }
    for (Py_ssize_t i = 1; i < nargs; i++) {
        PyObject *part = args[i];
        if (i > 1 && buffer_char(&b, '\x1f') < 0) {
            goto done;
        }
        if (PyUnicode_CheckExact(part)) {
            Py_ssize_t n;
            const char *s = PyUnicode_AsUTF8AndSize(part, &n);
            if (s == NULL || buffer_put(&b, s, n) < 0) {
                goto done;
            }
        }
        else if (PyLong_CheckExact(part)) {
            if (write_int(&b, part) < 0) {
                goto done;
            }
        }
        else {
            PyErr_Format(PyExc_TypeError, "an id part is a %.100s", Py_TYPE(part)->tp_name);
            goto done;
        }
    }
    unsigned char digest[20];
    if (sha1((const unsigned char *)b.data, (size_t)b.len, digest) < 0) {
        goto done;
    }
    digest[6] = (unsigned char)((digest[6] & 0x0f) | 0x50);
    digest[8] = (unsigned char)((digest[8] & 0x3f) | 0x80);
    char text[36];
    int o = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) {
            text[o++] = '-';
        }
        text[o++] = HEX[digest[i] >> 4];
        text[o++] = HEX[digest[i] & 0xf];
    }
    result = PyUnicode_FromStringAndSize(text, 36);
done:
    if (!b.on_stack) {
        PyMem_Free(b.data);
    }
    return result;
}

static PyMethodDef methods[] = {
    {"encode", encode, METH_O, "Canonical JSON (UTF-8) of a value."},
    {"encode_fields_split", encode_fields_split, METH_VARARGS,
     "An instance's members from its field values by the class's plan, with overrides and a split."},
    {"construct_model", (PyCFunction)(void (*)(void))construct_model, METH_FASTCALL,
     "An unvalidated model instance with the given __dict__ and fields set."},
    {"encode_model", encode_model, METH_O, "Canonical JSON (UTF-8) of a model whose class has a plan."},
    {"json_data", json_data, METH_O, "model_dump(mode='json') of a model whose class has a plan."},
    {"register_model", register_model, METH_VARARGS, "Set the plan by which instances of a class are encoded."},
    {"format_datetime", format_datetime, METH_O, "The text pydantic writes for a naive or UTC datetime."},
    {"derive_id", (PyCFunction)(void (*)(void))derive_id, METH_FASTCALL, "UUIDv5 of a namespace and id parts."},
    {"configure_sealing", configure_sealing, METH_VARARGS, "Hand the sealing path its class, caches and hooks."},
    {"seal_operation", (PyCFunction)(void (*)(void))seal_operation, METH_FASTCALL,
     "An operation sealed from its field values, its text kept in the sealed-text cache."},
    {"snapshot_bytes", snapshot_bytes, METH_O, "A snapshot's canonical bytes through the snapshot cache."},
    {"remember_operation", (PyCFunction)(void (*)(void))remember_operation, METH_FASTCALL,
     "Keep an operation's sealed text (without checksum) and the checksum's offset for the sinks."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "engine._canonical",
    "Canonical JSON encoder (see engine.canonical_fast).", -1, methods,
};

PyMODINIT_FUNC
PyInit__canonical(void)
{
    init_escape_table();
    PyDateTime_IMPORT;
    if (PyDateTimeAPI == NULL) {
        return NULL;
    }
    value_name = PyUnicode_InternFromString("_value_");
    fields_set_name = PyUnicode_InternFromString("__pydantic_fields_set__");
    extra_name = PyUnicode_InternFromString("__pydantic_extra__");
    private_name = PyUnicode_InternFromString("__pydantic_private__");
    checksum_name = PyUnicode_InternFromString("checksum");
    payload_name = PyUnicode_InternFromString("payload");
    snapshot_names[0] = PyUnicode_InternFromString("before");
    snapshot_names[1] = PyUnicode_InternFromString("after");
    snapshot_names[2] = PyUnicode_InternFromString("edge");
    sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
    sha256_ctx = EVP_MD_CTX_new();
    sha1_md = EVP_MD_fetch(NULL, "SHA1", NULL);
    sha1_ctx = EVP_MD_CTX_new();
    if (sha256_md == NULL || sha256_ctx == NULL || sha1_md == NULL || sha1_ctx == NULL) {
        PyErr_SetString(PyExc_ImportError, "OpenSSL has no SHA-256 or SHA-1");
        return NULL;
    }
    if (checksum_name == NULL || payload_name == NULL
        || snapshot_names[0] == NULL || snapshot_names[1] == NULL || snapshot_names[2] == NULL) {
        return NULL;
    }
    plans = PyDict_New();
    retired_plans = PyList_New(0);
    if (value_name == NULL || plans == NULL || retired_plans == NULL || fields_set_name == NULL || extra_name == NULL || private_name == NULL) {
        return NULL;
    }
    return PyModule_Create(&module_def);
}
