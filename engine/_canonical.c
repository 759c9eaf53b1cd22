/*
 * Canonical JSON in one pass of C: the bytes of
 *
 *     json.dumps(value, sort_keys=True, separators=(",", ":"),
 *                ensure_ascii=False, allow_nan=False).encode("utf-8")
 *
 * (schemas.canonical.canonical_json), for the values operations are made of:
 * None, bool, int, float, str (and their subclasses, written as json writes
 * them: str enums by their text, int enums through int.__repr__), exact lists,
 * tuples and dicts with str keys. ``encode_members`` adds one thing: a member
 * of the top-level dict whose value is bytes is an already encoded canonical
 * fragment and is copied verbatim, so a node snapshot encoded once can be
 * placed into every operation that carries it. Bytes anywhere else are not JSON.
 *
 * Anything else raises TypeError (a non-finite float ValueError, a string
 * that is not valid Unicode UnicodeEncodeError); the Python caller then uses
 * the reference encoder, so a value is never written "almost" canonically.
 *
 * Why C: sealing an operation (its canonical text and SHA-256) is half of the
 * reducer's time in CPython, most of it in the Python around the encoder.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
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
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%lld", v);
    return buffer_put(b, tmp, n);
}

static int
write_float(Buffer *b, PyObject *obj)
{
    double d = PyFloat_AS_DOUBLE(obj);
    if (!isfinite(d)) {
        PyErr_SetString(PyExc_ValueError, "Out of range float values are not JSON compliant");
        return -1;
    }
    /* float.__repr__: shortest repr, ".0" added to integral values */
    char *s = PyOS_double_to_string(d, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
    if (s == NULL) {
        return -1;
    }
    int rc = buffer_put(b, s, (Py_ssize_t)strlen(s));
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

/* ``fragments``: a bytes value of this dict's members is copied as encoded JSON. */
static int
write_dict(Buffer *b, PyObject *obj, int depth, int fragments)
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
        if (fragments && PyBytes_CheckExact(m->value)) {
            if (buffer_put(b, PyBytes_AS_STRING(m->value), PyBytes_GET_SIZE(m->value)) < 0) {
                goto done;
            }
        }
        else if (write_value(b, m->value, depth + 1) < 0) {
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
        return write_dict(b, obj, depth, 0);
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

static PyObject *
encode_members(PyObject *module, PyObject *value)
{
    if (!PyDict_CheckExact(value)) {
        PyErr_SetString(PyExc_TypeError, "encode_members takes a dict");
        return NULL;
    }
    char stack[STACK_BUFFER];
    Buffer b = {stack, 0, STACK_BUFFER, 1};
    PyObject *result = NULL;
    if (write_dict(&b, value, 0, 1) == 0) {
        result = PyBytes_FromStringAndSize(b.data, b.len);
    }
    if (!b.on_stack) {
        PyMem_Free(b.data);
    }
    return result;
}

static PyMethodDef methods[] = {
    {"encode", encode, METH_O, "Canonical JSON (UTF-8) of a value."},
    {"encode_members", encode_members, METH_O,
     "Canonical JSON (UTF-8) of a dict whose bytes-valued members are encoded fragments."},
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
    return PyModule_Create(&module_def);
}
