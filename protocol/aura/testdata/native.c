/* A native test program for aura: its behaviour is chosen by argv[1]. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
	const char *mode = argc > 1 ? argv[1] : "";
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(mode, "out")) { /* ordered lines on stdout, one on stderr, exit 7 */
		for (int i = 1; i <= 3; i++) {
			printf("line %d\n", i);
			if (i == 2) fprintf(stderr, "warning on stderr\n");
		}
		printf("no newline at the end");
		return 7;
	}
	if (!strcmp(mode, "partial")) { /* a partial line, then sleep until killed */
		printf("pro");
		usleep(20000);
		printf("mpt: ");
		fprintf(stderr, "sleeping\n");
		for (;;) pause();
	}
	if (!strcmp(mode, "fork")) { /* a child that sleeps; argv[2] == "exit": the parent leaves */
		int fds[2];
		char b;
		if (pipe(fds) != 0) return 90;
		pid_t c = fork();
		if (c == 0) {
			printf("child %d\n", (int)getpid());
			write(fds[1], "x", 1);
			for (;;) pause();
		}
		if (read(fds[0], &b, 1) != 1) return 91;
		printf("ready\n");
		if (argc > 2 && !strcmp(argv[2], "exit")) return 0;
		for (;;) pause();
	}
	if (!strcmp(mode, "ignoreterm")) {
		signal(SIGTERM, SIG_IGN);
		printf("ready\n");
		for (;;) pause();
	}
	return 2;
}
