/* Golf, one hole's links: the exact expected score of the best play that does not see the stock order, as a
 * library (ctypes, regret.py). From section 27's hole.c (commit 28c2e9c), its memo kept across calls.
 * set_deal(35 link ranks, column by column, bottom card first) starts a hole; turn_value(heights, waste,
 * stock rank counts) is the value with the player to move, deal_value(heights, counts) that of dealing now.
 * A chance position (about to deal) is the column heights and the multiset of stock ranks left. Book rules:
 * one rank apart, nothing on a King.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NCOL 7
static int col[NCOL][5], height[NCOL], fits[14][14], stock[14], links[14], group;
typedef struct { uint64_t key; float value; } Entry;
static Entry *table;
static size_t cap, used;
static int bits;
static long long chance_nodes, turn_nodes;

static size_t slot(uint64_t k, int b) { return (size_t)((k * 0x9E3779B97F4A7C15ull) >> (64 - b)); }

static void grow(void) {
    size_t ncap = cap * 2;
    Entry *nt = calloc(ncap, sizeof(Entry));
    if (!nt) { fprintf(stderr, "out of memory\n"); exit(1); }
    for (size_t i = 0; i < cap; i++) {
        if (!table[i].key) continue;
        size_t j = slot(table[i].key, bits + 1);
        while (nt[j].key) j = (j + 1) & (ncap - 1);
        nt[j] = table[i];
    }
    free(table);
    table = nt; cap = ncap; bits++;
}

static int lookup(uint64_t k, float *v) {
    size_t j = slot(++k, bits);
    while (table[j].key) {
        if (table[j].key == k) { *v = table[j].value; return 1; }
        j = (j + 1) & (cap - 1);
    }
    return 0;
}

static void store(uint64_t k, float v) {
    if ((used + 1) * 2 > cap) grow();
    size_t j = slot(++k, bits);
    while (table[j].key) j = (j + 1) & (cap - 1);
    table[j].key = k; table[j].value = v; used++;
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


/* Library interface: set a deal's links, then query exact values (memo kept across calls). */
void set_deal(const int *ranks35) {
    for (int a = 1; a < 14; a++)
        for (int b = 1; b < 14; b++) fits[a][b] = abs(a - b) == 1 && a != 13;
    memset(links, 0, sizeof links);
    for (int i = 0; i < NCOL; i++)
        for (int j = 0; j < 5; j++) { col[i][j] = ranks35[5 * i + j]; links[col[i][j]]++; }
    group = 0;
    free(table);
    bits = 20; cap = (size_t)1 << bits; used = 0;
    table = calloc(cap, sizeof(Entry));
    chance_nodes = turn_nodes = 0;
}

static uint32_t load(const int *heights, const int *counts, int *left, int *n_stock) {
    uint32_t hkey = 0;
    *left = 0; *n_stock = 0;
    memset(links, 0, sizeof links);
    for (int i = 0; i < NCOL; i++) {
        height[i] = heights[i]; hkey |= (uint32_t)heights[i] << (3 * i); *left += heights[i];
        for (int j = 0; j < heights[i]; j++) links[col[i][j]]++;
    }
    for (int r = 0; r < 14; r++) { stock[r] = counts[r]; *n_stock += counts[r]; }
    return hkey;
}

/* Best expected score from a position where the player is to move (plays or deal). */
float turn_value(const int *heights, int waste, const int *counts) {
    int left, n; uint32_t hkey = load(heights, counts, &left, &n);
    return turn(hkey, waste, n, left);
}

/* Expected score of dealing now and playing on optimally (the stock must not be empty). */
float deal_value(const int *heights, const int *counts) {
    int left, n; uint32_t hkey = load(heights, counts, &left, &n);
    if (left == 0) return (float)-n;
    return chance(hkey, n, left);
}

long long memo_size(void) { return (long long)used; }
