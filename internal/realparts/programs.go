package realparts

// Programs more than one package's tests run.

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

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

// LibraryProg is a program whose work is done by its own shared library, built with
// debug information (BuildWithLibrary): LibrarySrc's foo_add, called three times.
const LibraryProg = `#include <stdio.h>
struct acc { int total; const char *name; };
int foo_add(struct acc *a, int v);
int main(void) {
	struct acc a = {0, "acc"};
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += foo_add(&a, i);
	printf("%d\n", s);
	return 0;
}
`

// LibrarySrc is the library of LibraryProg, foo.c: a static function (twice, line 6 its
// first statement), a static and a global variable; foo_add's statements are lines 10-13.
const LibrarySrc = `#include <stdio.h>
struct acc { int total; const char *name; };
static int scale = 3;
int counter;
static int twice(int v) {
	int r = v * 2;
	return r;
}
int foo_add(struct acc *a, int v) {
	int t = twice(v) + scale;
	a->total += t;
	counter++;
	return a->total;
}
`

// BuildWithLibrary builds LibrarySrc as dir/libfoo.so and LibraryProg as dir/prog linked
// with it (found at run time by its rpath), both with gcc -g -O0; it returns the
// directory, the program and the library's source.
func BuildWithLibrary(t testing.TB) (dir, exe, libSource string) {
	t.Helper()
	Need(t, "gcc")
	dir = t.TempDir()
	libSource, main := filepath.Join(dir, "foo.c"), filepath.Join(dir, "main.c")
	exe = filepath.Join(dir, "prog")
	for path, src := range map[string]string{libSource: LibrarySrc, main: LibraryProg} {
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"-g", "-O0", "-shared", "-fPIC", "-o", "libfoo.so", "foo.c"}, // in dir: the units are named foo.c and main.c
		{"-g", "-O0", "-o", "prog", "main.c", "-L.", "-lfoo", "-Wl,-rpath," + dir},
	} {
		cmd := exec.Command("gcc", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gcc %v: %v\n%s", args, err, out)
		}
	}
	return dir, exe, libSource
}

// PluginHost is a program that loads the plugin library PLUGIN (a path BuildPlugin
// defines) with dlopen and calls its plug_run twice (PluginSrc), printing the sum (13 + 17
// = 30); it unloads the plugin before its end.
const PluginHost = `#include <dlfcn.h>
#include <stdio.h>
int main(void) {
	void *h = dlopen(PLUGIN, RTLD_NOW);
	if (!h) { puts(dlerror()); return 1; }
	int (*run)(int) = (int (*)(int))dlsym(h, "plug_run");
	int r = run(4);
	r += run(5);
	printf("%d\n", r);
	dlclose(h);
	return 0;
}
`

// PluginSrc is the plugin PluginHost loads, plug.c: plug_run's statements are lines 3-5.
const PluginSrc = `static int calls;
int plug_run(int x) {
	int y = x * 3;
	calls++;
	return y + calls;
}
`

// BuildPlugin builds PluginSrc as dir/libplug.so and PluginHost as dir/host, with gcc -g
// -O0; it returns the directory, the host, the plugin and the plugin's source.
func BuildPlugin(t testing.TB) (dir, host, plugin, pluginSource string) {
	t.Helper()
	Need(t, "gcc")
	dir = t.TempDir()
	for name, src := range map[string]string{"plug.c": PluginSrc, "host.c": PluginHost} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"-g", "-O0", "-shared", "-fPIC", "-o", "libplug.so", "plug.c"},
		{"-g", "-O0", "-o", "host", "-DPLUGIN=\"" + filepath.Join(dir, "libplug.so") + "\"", "host.c", "-ldl"},
	} {
		cmd := exec.Command("gcc", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gcc %v: %v\n%s", args, err, out)
		}
	}
	return dir, filepath.Join(dir, "host"), filepath.Join(dir, "libplug.so"), filepath.Join(dir, "plug.c")
}

// CallStopProg is a program whose outer calls twice (whose body starts on line 4), and
// whose main calls both (lines 12 and 13), to be called from expressions.
const CallStopProg = `#include <stdio.h>
int depth;
int twice(int v) {
	int r = v * 2;
	depth++;
	return r;
}
int outer(int v) {
	return twice(v) + 1;
}
int main(void) {
	int t = twice(3);
	t += outer(4);
	printf("%d\n", t);
	return 0;
}
`

// ForkProg forks: the child calls work (line 6), prints "child 10" and ends with 3, the
// parent waits for it quietly and ends with 0.
const ForkProg = `#include <stdio.h>
#include <unistd.h>
#include <sys/wait.h>

static int work(int n) {
	int r = n * 2;
	return r;
}

int main(void) {
	int x = 5;
	pid_t pid = fork();
	if (pid == 0) {
		x = work(x);
		printf("child %d\n", x);
		return 3;
	}
	waitpid(pid, NULL, 0);
	return 0;
}
`
