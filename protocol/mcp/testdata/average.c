/* average.c: the bug an agent hunts in the MCP tests, natively: the loop skips the last
   score. Lines marked LINE:name are looked up by the tests. */
#include <stdio.h>

int average(const int *xs, int n) {
    int sum = 0;
    for (int i = 0; i < n - 1; i++) { /* LINE:loop (the loop) */
        sum += xs[i];
    }
    return sum / n; /* LINE:ret (the return) */
}

int main(void) {
    int scores[3] = {4, 8, 6};
    printf("scoring %d players\n", 3);
    fflush(stdout);
    int avg = average(scores, 3); /* LINE:call (the call) */
    printf("average: %d\n", avg);
    return 0;
}
