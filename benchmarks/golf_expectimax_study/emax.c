// Exact expectimax for one Golf hole, the stock order unknown (uniform): prototype.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

static int R[7][5];      // ranks 1..13 per column, row 0 deepest
static uint8_t FIT[14][14];
static uint64_t *keys; static double *vals; static uint64_t mask_; static long long nstates, cap;
static int base_n; static int aborted;

static inline uint64_t hash64(uint64_t x){ x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33; return x; }

// state: h[7] (3 bits each), top (4 bits), cnt[13] (3 bits each)
static double V(int *h, int top, int *cnt, int n) {
    uint64_t key = 0;
    for (int c = 0; c < 7; c++) key = key * 8 + h[c];
    key = key * 16 + top;
    for (int r = 0; r < 13; r++) key = key * 8 + cnt[r];
    key += 1;  // 0 = empty slot
    if (aborted) return 0;
    uint64_t s = hash64(key) & mask_;
    while (keys[s]) { if (keys[s] == key) return vals[s]; s = (s + 1) & mask_; }
    int left = 0; for (int c = 0; c < 7; c++) left += h[c];
    double best;
    if (left == 0) best = -n;
    else {
        best = 1e9;
        for (int c = 0; c < 7; c++) {
            if (h[c] && FIT[top][R[c][h[c]-1]]) {
                int r = R[c][h[c]-1];
                h[c]--; double v = V(h, r, cnt, n); h[c]++;
                if (v < best) best = v;
            }
        }
        if (n > 0) {
            double e = 0;
            for (int r = 1; r <= 13; r++) if (cnt[r-1]) {
                double p = (double)cnt[r-1] / n;
                cnt[r-1]--; e += p * V(h, r, cnt, n - 1); cnt[r-1]++;
            }
            if (e < best) best = e;
        }
        if (best > 1e8) best = left;
    }
    // insert (the slot may have moved due to recursion inserts: search again)
    s = hash64(key) & mask_;
    while (keys[s]) s = (s + 1) & mask_;
    keys[s] = key; vals[s] = best; nstates++;
    if (nstates * 10 > cap * 6) aborted = 1;
    return best;
}

// ranks: 35 ints column-major [c*5+row], top rank, stock ranks (n), fits 14x14, log2 table size
double solve_emax(const int *ranks, const int *h0, int top, const int *stock, int n, const uint8_t *fits, int logsize, long long *states) {
    for (int c = 0; c < 7; c++) for (int r = 0; r < 5; r++) R[c][r] = ranks[c*5+r];
    memcpy(FIT, fits, 14*14);
    cap = 1LL << logsize; mask_ = cap - 1;
    keys = calloc(cap, sizeof(uint64_t)); vals = malloc(cap * sizeof(double));
    nstates = 0; aborted = 0;
    int h[7]; for (int c = 0; c < 7; c++) h[c] = h0[c];
    int cnt[13] = {0}; for (int i = 0; i < n; i++) cnt[stock[i]-1]++;
    base_n = n;
    double v = V(h, top, cnt, n);
    *states = aborted ? -nstates : nstates;
    free(keys); free(vals);
    return v;
}
