#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int add(int a, int b) {
    int s = a + b; /* LINE:add_body */
    return s;
}

int main(int argc, char **argv) {
    int total = 0;
    for (int i = 0; i < 5; i++) {
        total = add(total, i); /* LINE:call */
    }
    printf("total %d args %d\n", total, argc - 1);
    fflush(stdout);
    if (argc > 2) { /* pidfile loop: write the pid, then run until killed */
        FILE *f = fopen(argv[1], "w");
        fprintf(f, "%d", (int)getpid());
        fclose(f);
        for (;;) usleep(1000);
    }
    return 0;
}
