/* A loop of cheap system calls that times itself: the worst case for a debugger that
   catches system calls (bench/threadevents_test.go). Prints "ms N". */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int main(void) {
    struct timespec a, b;
    long s = 0;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < 200000; i++)
        s += getppid();
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("ms %ld\n", (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 + (s == 0));
    return 0;
}
