/* Fast core of agents/solvers/golf_expectimax.py: the same expectimax, in C.
 *
 * values(fits: bytes[14*14], columns: list[list[int ranks]], counts: list[14 ints], waste: int rank,
 *        max_positions: int) -> list[8 floats or None] | None
 *
 * The expected final score of each action (columns 0-6, then the deal; None where it is not legal) for a
 * player who knows the stock's ranks but not their order, playing on optimally; None when more than
 * max_positions chance positions would be needed. A chance position (about to deal) is keyed by the column
 * heights (3 bits each) and the stock's count of each rank (3 bits each): the dealt card replaces the waste
 * card, so the waste does not matter there. The plays between two deals are searched without a memo.
 */
#include <stdlib.h>
#include <string.h>

#include "_golf_columns.h"

#define MAXCOUNT 7 /* a rank's count must fit in 3 bits */

typedef struct {
    uint64_t key; /* the position's key + 1 */
    double value;
} Entry;

typedef struct {
    unsigned char fits[14][14];
    unsigned char col[NCOL][MAXH];
    int height[NCOL];
    int counts[14];
    Entry *table; /* open addressing; key 0 = empty */
    size_t cap, used;
    int bits;
    long long budget;
    int failed; /* 1: over budget, 2: out of memory */
} Expect;

static int grow(Expect *e) {
    size_t ncap = e->cap * 2;
    Entry *nt = calloc(ncap, sizeof(Entry));
    if (!nt) return -1;
    for (size_t i = 0; i < e->cap; i++) {
        if (!e->table[i].key) continue;
        size_t j = golf_slot(e->table[i].key, e->bits + 1);
        while (nt[j].key) j = (j + 1) & (ncap - 1);
        nt[j] = e->table[i];
    }
    free(e->table);
    e->table = nt;
    e->cap = ncap;
    e->bits++;
    return 0;
}

static double chance(Expect *e, uint64_t hkey, int in_stock, int left);

/* The best over the plays from here and dealing (the player to move, the waste's top card ``waste``). */
static double turn(Expect *e, uint64_t hkey, int waste, int in_stock, int left) {
    if (left == 0) return -in_stock;
    double best = in_stock ? chance(e, hkey, in_stock, left) : 1e9;
    int moved = 0;
    for (int i = 0; i < NCOL && best > -in_stock && !e->failed; i++) {
        int h = e->height[i];
        if (!h || !e->fits[waste][e->col[i][h - 1]]) continue;
        moved = 1;
        e->height[i] = h - 1;
        double x = turn(e, hkey - ((uint64_t)1 << (3 * i)), e->col[i][h - 1], in_stock, left - 1);
        e->height[i] = h;
        if (x < best) best = x;
    }
    if (!in_stock && !moved) best = left;
    return best;
}

/* The mean over the next stock card of the best play after it. */
static double chance(Expect *e, uint64_t hkey, int in_stock, int left) {
    uint64_t key = hkey;
    for (int r = 1; r < 14; r++) key |= (uint64_t)e->counts[r] << (21 + 3 * (r - 1));
    key += 1;
    size_t j = golf_slot(key, e->bits);
    while (e->table[j].key) {
        if (e->table[j].key == key) return e->table[j].value;
        j = (j + 1) & (e->cap - 1);
    }
    if ((long long)e->used >= e->budget) {
        e->failed = 1;
        return 0;
    }
    double mean = 0;
    for (int r = 1; r < 14 && !e->failed; r++) {
        int c = e->counts[r];
        if (!c) continue;
        e->counts[r]--;
        mean += (double)c / in_stock * turn(e, hkey, r, in_stock - 1, left);
        e->counts[r]++;
    }
    if (e->failed) return 0;
    if ((e->used + 1) * 2 > e->cap && grow(e)) {
        e->failed = 2;
        return 0;
    }
    j = golf_slot(key, e->bits);
    while (e->table[j].key) j = (j + 1) & (e->cap - 1);
    e->table[j].key = key;
    e->table[j].value = mean;
    e->used++;
    return mean;
}

static int parse(Expect *e, PyObject *columns, PyObject *counts, int *left, int *in_stock, uint64_t *hkey) {
    if (!PyList_Check(counts) || PyList_GET_SIZE(counts) != 14) {
        PyErr_SetString(PyExc_ValueError, "counts must be 14 numbers");
        return -1;
    }
    *in_stock = 0;
    if (golf_columns(columns, e->col, e->height, left, hkey)) return -1;
    for (int r = 0; r < 14; r++) {
        long c = PyLong_AsLong(PyList_GET_ITEM(counts, r));
        if (c < 0 || c > MAXCOUNT || (r == 0 && c != 0)) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "counts: 0 for index 0, 0..7 per rank");
            return -1;
        }
        e->counts[r] = (int)c;
        *in_stock += (int)c;
    }
    return 0;
}

static PyObject *py_values(PyObject *self, PyObject *args) {
    Py_buffer fits;
    PyObject *columns, *counts;
    int waste;
    long long max_positions;
    if (!PyArg_ParseTuple(args, "y*OOiL", &fits, &columns, &counts, &waste, &max_positions)) return NULL;
    Expect *e = calloc(1, sizeof(Expect));
    PyObject *result = NULL;
    if (!e) {
        PyBuffer_Release(&fits);
        return PyErr_NoMemory();
    }
    int left, in_stock;
    uint64_t hkey;
    if (fits.len != 14 * 14 || waste < 1 || waste > 13) {
        PyErr_SetString(PyExc_ValueError, "fits must be 196 bytes and waste a rank 1..13");
        goto done;
    }
    memcpy(e->fits, fits.buf, 14 * 14);
    if (parse(e, columns, counts, &left, &in_stock, &hkey)) goto done;
    e->bits = 12;
    e->cap = (size_t)1 << e->bits;
    e->table = calloc(e->cap, sizeof(Entry));
    if (!e->table) {
        PyErr_NoMemory();
        goto done;
    }
    e->budget = max_positions < 0 ? 0 : max_positions;
    double value[NCOL + 1];
    int legal[NCOL + 1] = {0};
    Py_BEGIN_ALLOW_THREADS
    for (int i = 0; i < NCOL && !e->failed; i++) {
        int h = e->height[i];
        if (!h || !e->fits[waste][e->col[i][h - 1]]) continue;
        legal[i] = 1;
        e->height[i] = h - 1;
        value[i] = turn(e, hkey - ((uint64_t)1 << (3 * i)), e->col[i][h - 1], in_stock, left - 1);
        e->height[i] = h;
    }
    if (in_stock && left && !e->failed) {
        legal[DEAL] = 1;
        value[DEAL] = chance(e, hkey, in_stock, left);
    }
    Py_END_ALLOW_THREADS
    if (e->failed == 2) {
        PyErr_NoMemory();
        goto done;
    }
    if (e->failed) {
        result = Py_BuildValue("(OL)", Py_None, (long long)e->used);
        goto done;
    }
    PyObject *list = PyList_New(NCOL + 1);
    if (!list) goto done;
    for (int i = 0; i <= NCOL; i++) {
        PyObject *item = legal[i] ? PyFloat_FromDouble(value[i]) : Py_NewRef(Py_None);
        if (!item) {
            Py_DECREF(list);
            goto done;
        }
        PyList_SET_ITEM(list, i, item);
    }
    result = Py_BuildValue("(NL)", list, (long long)e->used);
done:
    PyBuffer_Release(&fits);
    free(e->table);
    free(e);
    return result;
}

static PyMethodDef methods[] = {
    {"values", py_values, METH_VARARGS, "Golf expectimax over the stock's ranks; see agents/solvers/golf_expectimax.py."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_golf_expectimax", NULL, -1, methods};

PyMODINIT_FUNC PyInit__golf_expectimax(void) { return PyModule_Create(&module); }
