/* 2,000 threads, one after the other, each ending at once: what live thread events cost a
   program that starts threads (bench/threadevents_test.go). Times itself: prints "ms N". */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static void *work(void *a) { return a; }

int main(void) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < 2000; i++) {
        pthread_t t;
        pthread_create(&t, 0, work, 0);
        pthread_join(t, 0);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("ms %ld\n", (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000);
    return 0;
}
