#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile int counter = 0; /* written in "watch" mode: a data breakpoint's target */
volatile int done[2];

int sq(int x) { return x * x; }
int add(int a, int b) { return a + b; }

void *worker(void *arg) {
    int id = (int)(long)arg;
    done[id] = id + 1; /* LINE:worker */
    return NULL;
}

int main(int argc, char **argv) {
    char buf[4096];
    const char *v = getenv("POLYDBG_DAP_VAR");
    printf("cwd %s var %s\n", getcwd(buf, sizeof buf), v ? v : "(unset)");
    fflush(stdout);
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "threads") == 0) {
        pthread_t t[2];
        for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, (void *)i);
        for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
        printf("threads %d %d\n", done[0], done[1]); /* LINE:joined */
    } else if (strcmp(mode, "watch") == 0) {
        for (int i = 0; i < 3; i++) {
            counter += 5; /* LINE:write */
        }
        printf("counter %d\n", counter);
    } else if (strcmp(mode, "dlopen") == 0) { /* a library loaded and unloaded at run time */
        void *h = dlopen("libm.so.6", RTLD_NOW);
        printf("dlopen %s\n", h ? "ok" : dlerror()); /* LINE:dlopened */
        if (h) dlclose(h);
        printf("closed\n"); /* LINE:dlclosed */
    } else if (strcmp(mode, "calls") == 0) {
        int x = add(sq(2), sq(3)); /* LINE:calls */
        printf("calls %d\n", x);
    } else if (strcmp(mode, "loop") == 0 && argc > 2) { /* write the pid, then run until killed */
        FILE *f = fopen(argv[2], "w");
        fprintf(f, "%d", (int)getpid());
        fclose(f);
        for (;;) usleep(1000); /* LINE:loop */
    }
    return 0;
}
