/* Three threads, one after the other: each prints its thread id (gettid, the LWP gdb shows)
   and ends before the next starts. With an argument the program then waits for ever, else
   it exits. Used by the live thread event tests (backend/gdbremote, protocol/dap). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>

static void *work(void *a) {
    printf("tid %ld\n", (long)syscall(SYS_gettid));
    fflush(stdout);
    usleep(10000);
    return a;
}

int main(int argc, char **argv) {
    pthread_t t;
    for (int i = 0; i < 3; i++) {
        pthread_create(&t, 0, work, 0);
        pthread_join(t, 0);
    }
    if (argc > 1)
        for (;;) pause();
    return 0;
}
