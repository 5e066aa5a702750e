/* Coins random playouts in plain C99: the C twin of the numba engine.
 *
 * `slagwerk bench` compiles this file with the system C compiler and
 * measures the numba playouts against it, as it measures them against the
 * plain Python twin (pure.py). Like that twin it implements the rules on its
 * own (docs/rules.md §1) and shares no code with the numba kernels; only the
 * meaning is the same: deal all 48 cards, 16 to each of the three seats,
 * play 16 tricks of uniformly random cards (any card of the hand is legal),
 * and give the coins of every trick to its winner. Seat 0 deals, seat 1
 * (left of the dealer) leads the first trick, and each trick's winner leads
 * the next, as in a match's first deal.
 *
 * Cards use the project's indexing: card = suit * 12 + rank, suits cups,
 * coins, swords, clubs (0..3; suit s beats suit (s + 1) % 4), ranks 2 .. A
 * (0..11). A hand is an unordered array of cards; a random play picks an
 * index and moves the hand's last card into the gap.
 *
 * Build: cc -std=c99 -O3 -march=native -o coins_playout playout.c
 * Usage:
 *   coins_playout N [SEED]  play N deals; print "playouts=N", the sums of the
 *                           coins each seat took ("coins=a,b,c") and of their
 *                           squares ("squares=a,b,c"), and the CPU seconds
 *   coins_playout winners   print the trick winner (0, 1, 2 in play order)
 *                           of every trick of three distinct cards, one digit
 *                           per trick, (c0, c1, c2) in lexicographic order
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { SEATS = 3, SUITS = 4, RANKS = 12, DECK = SUITS * RANKS, HAND = DECK / SEATS };
enum { COINS_SUIT = 1, DEALER = 0 };

/* ------------------------------------------------------------------ rules */

static int suit_of(int card) { return card / RANKS; }

/* Position (0, 1, 2 in play order) of the card that wins a trick. Within a
 * suit a higher index is a higher card, so cards of one suit compare as
 * indices. */
static int trick_winner(int c0, int c1, int c2)
{
    int s0 = suit_of(c0), s1 = suit_of(c1), s2 = suit_of(c2);
    if (s0 == s1 && s1 == s2) /* one suit: the highest */
        return c0 > c1 ? (c0 > c2 ? 0 : 2) : (c1 > c2 ? 1 : 2);
    if (s0 == s1) /* two of a suit: the higher of the two; the odd card never wins */
        return c0 > c1 ? 0 : 1;
    if (s0 == s2)
        return c0 > c2 ? 0 : 2;
    if (s1 == s2)
        return c1 > c2 ? 1 : 2;
    /* three suits: one suit of the cycle is missing; the card of the suit it beats wins */
    int beaten = (6 - s0 - s1 - s2 + 1) % SUITS;
    return s0 == beaten ? 0 : (s1 == beaten ? 1 : 2);
}

/* Random tricks make trick_winner's branches unpredictable, so playouts look
 * the winner up in a table filled from it (110 KB), as the engine does. */
static uint8_t WINNER[DECK][DECK][DECK];

static void fill_winner_table(void)
{
    for (int a = 0; a < DECK; a++)
        for (int b = 0; b < DECK; b++)
            for (int c = 0; c < DECK; c++)
                WINNER[a][b][c] = (uint8_t)trick_winner(a, b, c);
}

/* ------------------------------------------------------- random numbers */

/* splitmix64 (Steele, Lea and Flood): a 64-bit counter through a mixer. */
static uint64_t rng_state;

static uint64_t next_u64(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, n) for n <= 48: 32 random bits scaled by multiplication
 * (the bias, below n / 2^32, is far below what any statistic here sees). */
static int below(int n)
{
    return (int)(((next_u64() >> 32) * (uint64_t)n) >> 32);
}

/* --------------------------------------------------------------- playout */

/* Deal and play one deal with uniformly random cards; add the coins each
 * seat took to coins[]. */
static void random_playout(int coins[SEATS])
{
    uint8_t hands[SEATS][HAND];
    uint8_t deck[DECK];
    for (int i = 0; i < DECK; i++)
        deck[i] = (uint8_t)i;
    /* Fisher-Yates from the front: position i gets a random card of the
     * rest. The last hand is what is left once two hands are drawn. */
    for (int i = 0; i < DECK - HAND; i++) {
        int j = i + below(DECK - i);
        uint8_t card = deck[j];
        deck[j] = deck[i];
        deck[i] = card;
    }
    memcpy(hands, deck, sizeof hands);

    int leader = (DEALER + 1) % SEATS;
    for (int left = HAND; left > 0; left--) { /* cards in every hand */
        int trick[SEATS];
        for (int k = 0; k < SEATS; k++) {
            uint8_t *hand = hands[(leader + k) % SEATS];
            int i = below(left);
            trick[k] = hand[i];
            hand[i] = hand[left - 1];
        }
        int winner = (leader + WINNER[trick[0]][trick[1]][trick[2]]) % SEATS;
        for (int k = 0; k < SEATS; k++)
            coins[winner] += suit_of(trick[k]) == COINS_SUIT;
        leader = winner;
    }
}

/* ------------------------------------------------------------------ main */

static int usage(void)
{
    fputs("usage: coins_playout N [SEED]   (N random playouts)\n"
          "       coins_playout winners    (the trick winner of every trick)\n", stderr);
    return 2;
}

static int print_winners(void)
{
    for (int a = 0; a < DECK; a++)
        for (int b = 0; b < DECK; b++)
            for (int c = 0; c < DECK; c++)
                if (a != b && a != c && b != c)
                    putchar('0' + trick_winner(a, b, c));
    putchar('\n');
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "winners") == 0)
        return print_winners();
    if (argc < 2 || argc > 3)
        return usage();
    char *end;
    long long n = strtoll(argv[1], &end, 10);
    if (*end != '\0' || n < 0)
        return usage();
    unsigned long long seed = 1;
    if (argc == 3) {
        seed = strtoull(argv[2], &end, 10);
        if (*end != '\0')
            return usage();
    }
    rng_state = seed;
    fill_winner_table();

    long long sums[SEATS] = {0}, squares[SEATS] = {0};
    clock_t start = clock();
    for (long long i = 0; i < n; i++) {
        int coins[SEATS] = {0};
        random_playout(coins);
        for (int s = 0; s < SEATS; s++) {
            sums[s] += coins[s];
            squares[s] += coins[s] * coins[s];
        }
    }
    double cpu = (double)(clock() - start) / CLOCKS_PER_SEC;
    printf("playouts=%lld coins=%lld,%lld,%lld squares=%lld,%lld,%lld cpu_seconds=%.3f\n", n,
           sums[0], sums[1], sums[2], squares[0], squares[1], squares[2], cpu);
    return 0;
}
