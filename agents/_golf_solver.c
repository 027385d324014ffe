/* Fast core of agents/golf_solver.py: the same depth-first search, in C.
 *
 * solve(fits: bytes[14*14], columns: list[list[int ranks]], stock: list[int ranks],
 *       waste: int rank, max_nodes: int) -> (score, moves: list[int], nodes, exact)
 *
 * Positions are keyed by column heights (3 bits each), stock position (5 bits)
 * and waste rank (4 bits); a visited set (open addressing) makes each position
 * searched once. Built as an optional extension: without it the pure-Python
 * search in golf_solver.py gives the same answers, more slowly.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NCOL 7
#define MAXH 5
#define MAXSTOCK 31
#define DEAL 7

typedef struct {
    unsigned char fits[14][14];
    unsigned char col[NCOL][MAXH];
    int heights[NCOL];
    unsigned char stock[MAXSTOCK];
    int n_stock;
    uint32_t *table; /* visited keys + 1; 0 = empty */
    size_t cap, used;
    long long nodes, budget;
    int out_of_budget;
    int best;
    int path[64], depth;
    int best_path[64], best_len;
} Search;

static int visit(Search *s, uint32_t key) {
    /* Returns 1 when newly inserted, 0 when already present, -1 on memory error. */
    if ((s->used + 1) * 2 > s->cap) {
        size_t ncap = s->cap * 2;
        uint32_t *nt = calloc(ncap, sizeof(uint32_t));
        if (!nt) return -1;
        for (size_t i = 0; i < s->cap; i++) {
            uint32_t k = s->table[i];
            if (!k) continue;
            size_t j = (k * 2654435761u) & (ncap - 1);
            while (nt[j]) j = (j + 1) & (ncap - 1);
            nt[j] = k;
        }
        free(s->table);
        s->table = nt;
        s->cap = ncap;
    }
    uint32_t k = key + 1;
    size_t j = (k * 2654435761u) & (s->cap - 1);
    while (s->table[j]) {
        if (s->table[j] == k) return 0;
        j = (j + 1) & (s->cap - 1);
    }
    s->table[j] = k;
    s->used++;
    return 1;
}

static void record(Search *s, int score) {
    s->best = score;
    memcpy(s->best_path, s->path, sizeof(int) * s->depth);
    s->best_len = s->depth;
}

static int dfs(Search *s, uint32_t hkey, int pos, int waste, int left) {
    if (s->best <= pos - s->n_stock) return 0;
    int r = visit(s, hkey | (uint32_t)pos << 21 | (uint32_t)waste << 26);
    if (r < 0) return -1;
    if (r == 0) return 0;
    if (++s->nodes > s->budget) {
        s->out_of_budget = 1;
        return 0;
    }
    if (left == 0) {
        record(s, pos - s->n_stock);
        return 0;
    }
    int moved = 0;
    for (int i = 0; i < NCOL; i++) {
        int h = s->heights[i];
        if (!h) continue;
        int card = s->col[i][h - 1];
        if (!s->fits[waste][card]) continue;
        moved = 1;
        s->heights[i] = h - 1;
        s->path[s->depth++] = i;
        int err = dfs(s, hkey - (1u << (3 * i)), pos, card, left - 1);
        s->depth--;
        s->heights[i] = h;
        if (err) return err;
        if (s->out_of_budget) return 0;
    }
    if (pos < s->n_stock) {
        s->path[s->depth++] = DEAL;
        int err = dfs(s, hkey, pos + 1, s->stock[pos], left);
        s->depth--;
        if (err) return err;
    } else if (!moved && left < s->best) {
        record(s, left);
    }
    return 0;
}

static PyObject *py_solve(PyObject *self, PyObject *args) {
    Py_buffer fits;
    PyObject *columns, *stock;
    int waste;
    long long max_nodes;
    if (!PyArg_ParseTuple(args, "y*OOiL", &fits, &columns, &stock, &waste, &max_nodes)) return NULL;
    Search *s = calloc(1, sizeof(Search));
    if (!s) {
        PyBuffer_Release(&fits);
        return PyErr_NoMemory();
    }
    PyObject *result = NULL;
    if (fits.len != 14 * 14) {
        PyErr_SetString(PyExc_ValueError, "fits must be 196 bytes");
        goto done;
    }
    memcpy(s->fits, fits.buf, 14 * 14);
    if (!PyList_Check(columns) || PyList_GET_SIZE(columns) != NCOL || !PyList_Check(stock) ||
        PyList_GET_SIZE(stock) > MAXSTOCK) {
        PyErr_SetString(PyExc_ValueError, "columns must be 7 lists, stock at most 31 ranks");
        goto done;
    }
    int left = 0;
    uint32_t hkey = 0;
    for (int i = 0; i < NCOL; i++) {
        PyObject *col = PyList_GET_ITEM(columns, i);
        if (!PyList_Check(col) || PyList_GET_SIZE(col) > MAXH) {
            PyErr_SetString(PyExc_ValueError, "a column must be a list of at most 5 ranks");
            goto done;
        }
        s->heights[i] = (int)PyList_GET_SIZE(col);
        for (int j = 0; j < s->heights[i]; j++) s->col[i][j] = (unsigned char)PyLong_AsLong(PyList_GET_ITEM(col, j));
        left += s->heights[i];
        hkey |= (uint32_t)s->heights[i] << (3 * i);
    }
    s->n_stock = (int)PyList_GET_SIZE(stock);
    for (int j = 0; j < s->n_stock; j++) s->stock[j] = (unsigned char)PyLong_AsLong(PyList_GET_ITEM(stock, j));
    if (PyErr_Occurred()) goto done;
    s->cap = 1 << 16;
    s->table = calloc(s->cap, sizeof(uint32_t));
    if (!s->table) {
        PyErr_NoMemory();
        goto done;
    }
    s->budget = max_nodes;
    s->best = 1000000000;
    int err;
    Py_BEGIN_ALLOW_THREADS
    err = dfs(s, hkey, 0, waste, left);
    Py_END_ALLOW_THREADS
    if (err) {
        PyErr_NoMemory();
        goto done;
    }
    PyObject *moves = PyList_New(s->best_len);
    if (!moves) goto done;
    for (int j = 0; j < s->best_len; j++) PyList_SET_ITEM(moves, j, PyLong_FromLong(s->best_path[j]));
    result = Py_BuildValue("(iNLO)", s->best, moves, s->nodes, s->out_of_budget ? Py_False : Py_True);
done:
    PyBuffer_Release(&fits);
    free(s->table);
    free(s);
    return result;
}

static PyMethodDef methods[] = {
    {"solve", py_solve, METH_VARARGS, "Depth-first Golf search; see agents/golf_solver.py."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_golf_solver", NULL, -1, methods};

PyMODINIT_FUNC PyInit__golf_solver(void) { return PyModule_Create(&module); }
