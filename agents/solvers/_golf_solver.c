/* Fast core of agents/solvers/golf.py: the same depth-first search, in C.
 *
 * solve(fits: bytes[14*14], columns: list[list[int ranks]], stock: list[int ranks],
 *       waste: int rank, max_nodes: int) -> (score, moves: list[int], nodes, exact)
 *
 * Positions are keyed by column heights (3 bits each), stock position (6 bits)
 * and waste rank (4 bits); a visited set (open addressing) makes each position
 * searched once. The cuts, the move order and the budget's playout are those of
 * solve_python, so both return the same score, moves and node count. Built as
 * an optional extension: without it the pure-Python search is used.
 */
#include <stdlib.h>
#include <string.h>

#include "_golf_columns.h"

#define MAXSTOCK 51
#define MAXPATH (NCOL * MAXH + MAXSTOCK)
#define POS_SHIFT 21
#define WASTE_SHIFT 27
#define NO_SCORE 1000000000

typedef struct {
    unsigned char fits[14][14];
    int sign[14], wraps[14], blocker[14];
    unsigned char col[NCOL][MAXH];
    int heights[NCOL];
    unsigned char stock[MAXSTOCK];
    int n_stock;
    uint32_t *table; /* visited keys + 1; 0 = empty */
    size_t cap, used;
    int bits;
    long long nodes, budget;
    int out_of_budget;
    int best;
    int path[MAXPATH], depth;
    int best_path[MAXPATH], best_len;
} Search;

static int visit(Search *s, uint32_t key) {
    /* Returns 1 when newly inserted, 0 when already present, -1 on memory error. */
    if ((s->used + 1) * 2 > s->cap) {
        size_t ncap = s->cap * 2;
        int nbits = s->bits + 1;
        uint32_t *nt = calloc(ncap, sizeof(uint32_t));
        if (!nt) return -1;
        for (size_t i = 0; i < s->cap; i++) {
            uint32_t k = s->table[i];
            if (!k) continue;
            size_t j = golf_slot(k, nbits);
            while (nt[j]) j = (j + 1) & (ncap - 1);
            nt[j] = k;
        }
        free(s->table);
        s->table = nt;
        s->cap = ncap;
        s->bits = nbits;
    }
    uint32_t k = key + 1;
    size_t j = golf_slot(k, s->bits);
    while (s->table[j]) {
        if (s->table[j] == k) return 0;
        j = (j + 1) & (s->cap - 1);
    }
    s->table[j] = k;
    s->used++;
    return 1;
}

static void record(Search *s, int score, const int *path, int len) {
    s->best = score;
    memcpy(s->best_path, path, sizeof(int) * len);
    s->best_len = len;
}

/* The budget ran out before any end was found: finish the line by first legal moves. */
static void playout(Search *s, int pos, int waste, int left) {
    int line[MAXPATH], len = s->depth, height[NCOL];
    memcpy(line, s->path, sizeof(int) * len);
    memcpy(height, s->heights, sizeof height);
    while (left) {
        int column = -1;
        for (int i = 0; i < NCOL && column < 0; i++)
            if (height[i] && s->fits[waste][s->col[i][height[i] - 1]]) column = i;
        if (column >= 0) {
            waste = s->col[column][--height[column]];
            left--;
            line[len++] = column;
        } else if (pos < s->n_stock) {
            waste = s->stock[pos++];
            line[len++] = DEAL;
        } else {
            break;
        }
    }
    record(s, left ? left : pos - s->n_stock, line, len);
}

static int dfs(Search *s, uint32_t hkey, int pos, int waste, int left, int imbalance, int slack, int kings) {
    int stock_left = s->n_stock - pos;
    if (s->best <= -stock_left) return 0; /* even clearing now could not beat the best */
    int chains = abs(imbalance) - slack;
    if (kings > chains) chains = kings;
    if (left && s->best <= chains - stock_left - !s->blocker[waste]) return 0;
    int r = visit(s, hkey | (uint32_t)pos << POS_SHIFT | (uint32_t)waste << WASTE_SHIFT);
    if (r < 0) return -1;
    if (r == 0) return 0;
    if (s->nodes >= s->budget) {
        s->out_of_budget = 1;
        if (s->best == NO_SCORE) playout(s, pos, waste, left);
        return 0;
    }
    s->nodes++;
    if (left == 0) {
        record(s, -stock_left, s->path, s->depth);
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
        int err = dfs(s, hkey - (1u << (3 * i)), pos, card, left - 1, imbalance - s->sign[card],
                      slack - s->wraps[card], kings - s->blocker[card]);
        s->depth--;
        s->heights[i] = h;
        if (err) return err;
        if (s->out_of_budget) return 0;
    }
    if (pos < s->n_stock) {
        s->path[s->depth++] = DEAL;
        int err = dfs(s, hkey, pos + 1, s->stock[pos], left, imbalance, slack, kings);
        s->depth--;
        if (err) return err;
    } else if (!moved && left < s->best) {
        record(s, left, s->path, s->depth);
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
    if (!PyList_Check(stock) || PyList_GET_SIZE(stock) > MAXSTOCK || waste < 1 || waste > 13) {
        PyErr_SetString(PyExc_ValueError, "stock must be at most 51 ranks, waste a rank 1..13");
        goto done;
    }
    for (int r = 1; r < 14; r++) {
        s->sign[r] = r % 2 ? 1 : -1;
        s->wraps[r] = (r == 1 || r == 13) && s->fits[1][13];
        int any = 0;
        for (int w = 0; w < 14; w++) any |= s->fits[r][w];
        s->blocker[r] = !any;
    }
    int left, imbalance = 0, slack = 0, kings = 0;
    uint64_t heights_key;
    if (golf_columns(columns, s->col, s->heights, &left, &heights_key)) goto done;
    uint32_t hkey = (uint32_t)heights_key;
    for (int i = 0; i < NCOL; i++)
        for (int j = 0; j < s->heights[i]; j++) {
            int r = s->col[i][j];
            imbalance += s->sign[r];
            slack += s->wraps[r];
            kings += s->blocker[r];
        }
    s->n_stock = (int)PyList_GET_SIZE(stock);
    for (int j = 0; j < s->n_stock; j++) {
        int r = golf_rank(PyList_GET_ITEM(stock, j));
        if (r < 0) goto done;
        s->stock[j] = (unsigned char)r;
    }
    s->bits = 16;
    s->cap = (size_t)1 << s->bits;
    s->table = calloc(s->cap, sizeof(uint32_t));
    if (!s->table) {
        PyErr_NoMemory();
        goto done;
    }
    s->budget = max_nodes < 0 ? 0 : max_nodes;
    s->best = NO_SCORE;
    int err;
    Py_BEGIN_ALLOW_THREADS
    err = dfs(s, hkey, 0, waste, left, imbalance, slack, kings);
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
    {"solve", py_solve, METH_VARARGS, "Depth-first Golf search; see agents/solvers/golf.py."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_golf_solver", NULL, -1, methods};

PyMODINIT_FUNC PyInit__golf_solver(void) { return PyModule_Create(&module); }
