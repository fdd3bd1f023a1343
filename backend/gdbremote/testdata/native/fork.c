/* A program whose forked child runs a function the debugger has a breakpoint in. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int work(int n) {
    return n * 2;
}

int main(void) {
    pid_t pid = fork();
    if (pid == 0) {
        int r = work(21);
        _exit(r == 42 ? 7 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status))
        printf("child exited %d\n", WEXITSTATUS(status));
    else
        printf("child killed by signal %d\n", WTERMSIG(status));
    fflush(stdout);
    return work(1) == 2 ? 0 : 3;
}
