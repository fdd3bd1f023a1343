/* A test program for target/process: its behaviour is chosen by argv[1]. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void write_pid(const char *path, int pid) {
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f) exit(90);
	fprintf(f, "%d\n", pid);
	fclose(f);
	rename(tmp, path);
}

int main(int argc, char **argv) {
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "echo")) { /* args to stdout, env FOO and cwd to stderr */
		for (int i = 2; i < argc; i++) printf("%s%s", argv[i], i + 1 < argc ? " " : "\n");
		char cwd[4096];
		fprintf(stderr, "FOO=%s cwd=%s\n", getenv("FOO") ? getenv("FOO") : "", getcwd(cwd, sizeof cwd));
		return 0;
	}
	if (!strcmp(mode, "exit")) return atoi(argv[2]);
	if (!strcmp(mode, "interleave")) { /* alternating lines on both streams */
		for (int i = 0; i < 5; i++) {
			printf("out %d\n", i); fflush(stdout);
			fprintf(stderr, "err %d\n", i);
		}
		return 0;
	}
	if (!strcmp(mode, "grandchild")) { /* argv[2]: pid file of a grandchild; argv[3]: "exit" to leave it behind */
		pid_t c = fork();
		if (c == 0) {
			pid_t g = fork();
			if (g == 0) { for (;;) pause(); }
			write_pid(argv[2], g);
			for (;;) pause();
		}
		while (access(argv[2], F_OK) != 0) usleep(1000);
		if (argc > 3 && !strcmp(argv[3], "exit")) return 0;
		printf("ready\n"); fflush(stdout);
		for (;;) pause();
	}
	if (!strcmp(mode, "ignoreterm")) {
		signal(SIGTERM, SIG_IGN);
		printf("ready\n"); fflush(stdout);
		for (;;) pause();
	}
	if (!strcmp(mode, "sleep")) { printf("ready\n"); fflush(stdout); for (;;) pause(); }
	if (!strcmp(mode, "flood")) { /* argv[2] bytes of 'x' */
		long n = atol(argv[2]);
		char buf[4096]; memset(buf, 'x', sizeof buf);
		while (n > 0) { long k = n < (long)sizeof buf ? n : (long)sizeof buf; fwrite(buf, 1, k, stdout); n -= k; }
		return 0;
	}
	fprintf(stderr, "unknown mode %s\n", mode);
	return 2;
}
