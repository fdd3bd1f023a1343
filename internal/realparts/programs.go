package realparts

// Programs more than one package's tests run.

// ExecProg is a C program that runs itself again (exec) with "again", and then, so run,
// the program named by its first argument. Its helper's body is on line 3.
const ExecProg = `#include <string.h>
#include <unistd.h>
int helper(int x) { return x + 1; }
int main(int argc, char **argv) {
	if (argc > 1 && strcmp(argv[1], "again") == 0) {
		int r = helper(41);
		if (argc > 2) execl(argv[2], argv[2], (char *)0);
		return r == 42 ? 0 : 1;
	}
	helper(1);
	execl(argv[0], argv[0], "again", argv[1], (char *)0);
	return 5;
}
`
