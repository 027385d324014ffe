/* Golf, one hole: the exact expected score of the best play that does not see the stock order.
 *
 * Input, one deal a line: 35 link ranks (column by column, bottom card first) | waste rank | stock ranks.
 * Output, a line a deal: the value, the chance positions memoized, the turn positions searched, CPU seconds.
 * A chance position (about to deal) is the column heights and the multiset of stock ranks left; with
 * --group-ranks, stock ranks that would let the same link cards be played count as one (dead ranks, whose
 * neighbours are gone from the links, as rank 0). Book rules: one rank apart, nothing on a King.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NCOL 7
static int col[NCOL][5], height[NCOL], fits[14][14], stock[14], links[14], group;
static uint64_t *keys;
static float *vals;
static size_t cap, used;
static int bits;
static long long chance_nodes, turn_nodes;

static size_t slot(uint64_t k, int b) { return (size_t)((k * 0x9E3779B97F4A7C15ull) >> (64 - b)); }

static void grow(void) {
    size_t ncap = cap * 2;
    uint64_t *nk = calloc(ncap, 8);
    float *nv = malloc(ncap * 4);
    if (!nk || !nv) { fprintf(stderr, "out of memory\n"); exit(1); }
    for (size_t i = 0; i < cap; i++) {
        if (!keys[i]) continue;
        size_t j = slot(keys[i], bits + 1);
        while (nk[j]) j = (j + 1) & (ncap - 1);
        nk[j] = keys[i];
        nv[j] = vals[i];
    }
    free(keys); free(vals);
    keys = nk; vals = nv; cap = ncap; bits++;
}

static int lookup(uint64_t k, float *v) {
    size_t j = slot(++k, bits);
    while (keys[j]) {
        if (keys[j] == k) { *v = vals[j]; return 1; }
        j = (j + 1) & (cap - 1);
    }
    return 0;
}

static void store(uint64_t k, float v) {
    if ((used + 1) * 2 > cap) grow();
    size_t j = slot(++k, bits);
    while (keys[j]) j = (j + 1) & (cap - 1);
    keys[j] = k; vals[j] = v; used++;
}

static float chance(uint32_t hkey, int left_in_stock, int left);

/* The best over the plays from here (each column's exposed card onto the waste) and dealing. */
static float turn(uint32_t hkey, int waste, int left_in_stock, int left) {
    turn_nodes++;
    if (left == 0) return (float)-left_in_stock;
    float best = left_in_stock ? chance(hkey, left_in_stock, left) : 1e9f;
    int moved = 0;
    for (int i = 0; i < NCOL && best > -left_in_stock; i++) {
        int h = height[i];
        if (!h || !fits[waste][col[i][h - 1]]) continue;
        int card = col[i][h - 1];
        moved = 1;
        height[i] = h - 1; links[card]--;
        float x = turn(hkey - (1u << (3 * i)), card, left_in_stock, left - 1);
        links[card]++; height[i] = h;
        if (x < best) best = x;
    }
    if (!left_in_stock && !moved) best = (float)left;
    return best;
}

/* The mean over the next stock card. */
static float chance(uint32_t hkey, int left_in_stock, int left) {
    int saved[14], counts[14] = {0};
    memcpy(saved, stock, sizeof stock);
    if (group) {
        int enables[14];
        for (int r = 1; r < 14; r++) {
            enables[r] = 0;
            for (int c = 1; c < 14; c++) if (fits[r][c] && links[c]) enables[r] |= 1 << c;
        }
        for (int r = 0; r < 14; r++) {
            if (!stock[r]) continue;
            int rep = 0;
            if (r && enables[r]) for (rep = 1; enables[rep] != enables[r]; rep++) {}
            counts[rep] += stock[r];
        }
    } else {
        memcpy(counts, stock, sizeof stock);
    }
    uint64_t key = hkey;
    int pos = 21; /* the counts in unary, each ended by a zero bit: at most 16 + 14 bits */
    for (int r = 0; r < 14; r++) {
        for (int j = 0; j < counts[r]; j++) key |= 1ull << pos++;
        pos++;
    }
    float v;
    if (lookup(key, &v)) return v;
    chance_nodes++;
    memcpy(stock, counts, sizeof stock);
    float mean = 0;
    for (int r = 0; r < 14; r++) {
        int c = stock[r];
        if (!c) continue;
        stock[r]--;
        mean += (float)c / left_in_stock * turn(hkey, r, left_in_stock - 1, left);
        stock[r]++;
    }
    memcpy(stock, saved, sizeof stock);
    store(key, mean);
    return mean;
}

int main(int argc, char **argv) {
    group = argc > 1 && !strcmp(argv[1], "--group-ranks");
    for (int a = 1; a < 14; a++)
        for (int b = 1; b < 14; b++) fits[a][b] = abs(a - b) == 1 && a != 13;
    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        int ranks[64], n = 0, part = 0, waste = 0, n_stock = 0;
        memset(stock, 0, sizeof stock);
        memset(links, 0, sizeof links);
        for (char *tok = strtok(line, " \n"); tok; tok = strtok(NULL, " \n")) {
            if (tok[0] == '|') { part++; continue; }
            int r = atoi(tok);
            if (r < 1 || r > 13 || (part == 0 && n >= 35)) { fprintf(stderr, "bad rank %s\n", tok); return 2; }
            if (part == 0) ranks[n++] = r;
            else if (part == 1) waste = r;
            else { stock[r]++; n_stock++; }
        }
        if (n != 35 || !waste) { fprintf(stderr, "a deal needs 35 link ranks and a waste rank\n"); return 2; }
        uint32_t hkey = 0;
        for (int i = 0; i < NCOL; i++) {
            for (int j = 0; j < 5; j++) { col[i][j] = ranks[5 * i + j]; links[col[i][j]]++; }
            height[i] = 5;
            hkey |= 5u << (3 * i);
        }
        bits = 20; cap = (size_t)1 << bits; used = 0;
        keys = calloc(cap, 8); vals = malloc(cap * 4);
        chance_nodes = turn_nodes = 0;
        clock_t start = clock();
        float value = turn(hkey, waste, n_stock, 35);
        double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
        printf("%.4f %lld %lld %.1f\n", value, chance_nodes, turn_nodes, seconds);
        fflush(stdout);
        free(keys); free(vals);
    }
    return 0;
}
