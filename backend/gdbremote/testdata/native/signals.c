/* A program that stops twice for a signal: SIGUSR1, which its handler takes, then SIGSEGV
   (line 11), which ends it. Used by signals_test.go and protocol/cli's TestSignalsAsGDB. */
#include <signal.h>
#include <stdio.h>
static volatile int got;
static void on(int s) { got = s; }
int main(void) {
    signal(SIGUSR1, on);
    raise(SIGUSR1);
    printf("handled %d\n", got); fflush(stdout);
    *(volatile int *)0 = 1; /* line 11 */
    return 0;
}
