/* The program the lantern tests upload; argv[1] chooses what it does. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile int sink;

int work(int x) {
	int y = x * 2;
	sink = y;
	return y + 1;
}

int main(int argc, char **argv) {
	const char *mode = argc > 1 ? argv[1] : "hello";
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(mode, "hello")) {
		printf("args:");
		for (int i = 2; i < argc; i++) printf(" [%s]", argv[i]);
		printf("\nGREETING=%s\n", getenv("GREETING") ? getenv("GREETING") : "(unset)");
		fprintf(stderr, "to stderr\n");
		return 3;
	}
	if (!strcmp(mode, "flood")) { /* numbered lines, argv[2] bytes at least */
		long n = atol(argv[2]);
		char line[32];
		for (long i = 0, w = 0; w < n; i++) w += fwrite(line, 1, snprintf(line, sizeof line, "line %06ld\n", i), stdout);
		return 0;
	}
	if (!strcmp(mode, "grandchild")) { /* argv[2]: where the grandchild writes its pid */
		char tmp[4096];
		snprintf(tmp, sizeof tmp, "%s.tmp", argv[2]);
		if (fork() == 0) {
			if (fork() == 0) {
				FILE *f = fopen(tmp, "w");
				fprintf(f, "%d\n", getpid());
				fclose(f);
				rename(tmp, argv[2]);
				for (;;) pause();
			}
			for (;;) pause();
		}
		while (access(argv[2], F_OK) != 0) usleep(1000);
		printf("ready\n");
		for (;;) pause();
	}
	if (!strcmp(mode, "loop")) { /* calls work() forever */
		printf("ready\n");
		for (int i = 0;; i++) { work(i); usleep(20000); }
	}
	if (!strcmp(mode, "work")) {
		printf("work(20) = %d\n", work(20));
		return 0;
	}
	if (!strcmp(mode, "sleep")) {
		printf("ready\n");
		for (;;) pause();
	}
	fprintf(stderr, "unknown mode %s\n", mode);
	return 2;
}
