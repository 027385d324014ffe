/* Shared by the Golf C cores (_golf_solver.c, _golf_expectimax.c): the table's hash and the columns' parse.
 *
 * Golf's tableau is 7 columns of at most 5 ranks. A position's column part of its key is each column's
 * height in 3 bits (column i at bits 3i..3i+2).
 */
#ifndef GOLF_COLUMNS_H
#define GOLF_COLUMNS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#define NCOL 7
#define MAXH 5
#define DEAL 7

/* Open-addressing slot of a key in a table of 2**bits entries (Fibonacci hashing). */
static size_t golf_slot(uint64_t k, int bits) { return (size_t)((k * 0x9E3779B97F4A7C15ull) >> (64 - bits)); }

/* A rank 1..13 from a Python int, or -1 with ValueError set. */
static int golf_rank(PyObject *item) {
    long r = PyLong_AsLong(item);
    if (r < 1 || r > 13) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "ranks must be 1..13");
        return -1;
    }
    return (int)r;
}

/* Reads ``columns`` (7 lists of at most 5 ranks, base first) into ``col`` and ``height``; sets the cards
 * left and the heights' key. Returns 0, or -1 with ValueError set. */
static int golf_columns(PyObject *columns, unsigned char col[NCOL][MAXH], int height[NCOL], int *left,
                        uint64_t *hkey) {
    if (!PyList_Check(columns) || PyList_GET_SIZE(columns) != NCOL) {
        PyErr_SetString(PyExc_ValueError, "columns must be 7 lists");
        return -1;
    }
    *left = 0;
    *hkey = 0;
    for (int i = 0; i < NCOL; i++) {
        PyObject *c = PyList_GET_ITEM(columns, i);
        if (!PyList_Check(c) || PyList_GET_SIZE(c) > MAXH) {
            PyErr_SetString(PyExc_ValueError, "a column must be a list of at most 5 ranks");
            return -1;
        }
        height[i] = (int)PyList_GET_SIZE(c);
        for (int j = 0; j < height[i]; j++) {
            int r = golf_rank(PyList_GET_ITEM(c, j));
            if (r < 0) return -1;
            col[i][j] = (unsigned char)r;
        }
        *left += height[i];
        *hkey |= (uint64_t)height[i] << (3 * i);
    }
    return 0;
}

#endif
