package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// returnProg has a recursion to return out of several frames at once, and functions that
// return a double, a char and nothing.
const returnProg = `#include <stdio.h>
static int calls;
int fact(int n) {
	calls++;
	if (n <= 1)
		return 1;
	return n * fact(n - 1);
}
double half(double v) { return v / 2; }
char grade(int score) { return score > 50 ? 'P' : 'F'; }
void tick(void) { calls += 100; }
int main(void) {
	int f = fact(4);
	double h = half(5.0);
	char g = grade(70);
	tick();
	printf("%d %g %c %d\n", f, h, g, calls);
	return 0;
}
`

// gdb's return: from a frame selected with up (the frames inside it go too), with a value
// converted to the function's type (an int, a double computed from an argument, a char),
// and from a void function; what the caller then does with the value, and what the
// program prints at its end, against gdb.
func TestReturnAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	const lines = `break 6
run
up 2
return 100
bt
frame
next
finish
print calls
break half
continue
return v * 3 + 0.25
frame
next
print h
break grade
continue
return 'X'
next
print g
break tick
continue
return 5
frame
continue
`
	dir, ours, theirs := scriptAndGDB(t, "ret", returnProg, lines)
	if !strings.Contains(string(ours), "Value returned is $1 = 400\n") || !strings.Contains(string(ours), "400 15.25 X 4\n") {
		t.Errorf("the returned values were not the program's:\n%s", ours)
	}
	compareLines(t, "return", dir, ours, theirs)
}

// Typed (or piped) rather than read from a script, return asks first and shows the frame it
// returned to, as gdb's does; a value that cannot be evaluated is refused before the
// question, and without a program there is no frame to return from.
func TestReturnAsksAndShowsTheFrame(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "retask", returnProg)
	input := "return\nbreak half\nrun\nreturn nosuch + 1\nreturn 2\nnext\nprint h\nkill\n"
	cmd := exec.Command(polydbgBinary(t), "debug", exe)
	cmd.Stdin = strings.NewReader(input)
	ours, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("polydbg: %v\n%s", err, ours)
	}
	cmd = exec.Command("gdb", "-nx", "-q", "-ex", "set width 0", exe)
	cmd.Stdin = strings.NewReader(input)
	theirs, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, theirs)
	}
	norm := func(out []byte) string {
		return strings.NewReplacer("(polydbg) ", "", "(gdb) ", "", dir+"/", "").Replace(string(out))
	}
	o, g := norm(ours), norm(theirs)
	agree := 0
	for _, want := range []string{
		"No selected frame.\n",
		"No symbol \"nosuch\" in current context.\nMake half return now? (y or n) [answered Y; input not from terminal]\n" +
			"#0  0x",
		" in main () at " + "retask.c:14\n14\t\tdouble h = half(5.0);\n15\t\tchar g = grade(70);\n$1 = 2\n",
	} {
		if !strings.Contains(g, want) {
			t.Fatalf("gdb did not say %q:\n%s", want, g)
		}
		if strings.Contains(o, want) {
			agree++
		} else {
			t.Errorf("polydbg did not say %q, as gdb:\n%s", want, o)
		}
	}
	t.Logf("%d of 3 passages agree with gdb", agree)
}

// print does what its expression does, as gdb's: a function call runs, an assignment (plain,
// compound, to a convenience variable) changes the variable and is worth its new value,
// x++ and x-- are worth the old one, ++x the new one; the program then sees the changes.
func TestPrintSideEffectsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	const lines = `break tick
run
p fact(5)
p fact(3) + fact(2)
p calls = 99
p calls++
p calls
p ++calls
p calls--
p calls += 10
p calls *= 2
p/x calls = 255
p $j = 4
p $j++
p $j
p calls == 255
continue
`
	dir, ours, theirs := scriptAndGDB(t, "sidefx", returnProg, lines)
	if !strings.Contains(string(ours), "$1 = 120\n") || !strings.Contains(string(ours), "24 2.5 P 355\n") {
		t.Errorf("the calls or the assignments did not happen:\n%s", ours)
	}
	compareLines(t, "print's side effects", dir, ours, theirs)
}

// frame and info frame take gdb's ways of naming a frame: N, level N, function NAME (its
// innermost frame); info frame of another frame than the selected one says "Stack frame
// at", and leaves the selection as it is; bad names answer in gdb's words.
func TestFrameSelectionAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("break 6", "run", "frame function main", "frame function nosuch", "frame function tick",
		"frame level 0", "frame level 9", "frame function", "frame level", "info frame level 9", "info frame level 2",
		"frame", "info frame function main", "frame 1", "frame x", "info frame level 0", "info frame")
	dir, exe := buildNative(t, "frames", returnProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "frame selection", dir, ours, theirs)
}

// frame apply and thread apply as gdb's: all, N innermost, -N outermost, level ranges; the
// flags -q (no headers), -c (an error said, the next frame goes on), -s (a failing frame
// left out); an error ending the apply; faas, taas, tfaas; the selected frame kept; bad
// arguments in gdb's words.
func TestApplyAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("break fact if n == 2", "run", "frame apply all p n", "frame apply 2 p $pc", "frame apply all -q p 1",
		"frame apply level 1-2 info locals", "faas p n", "frame apply all -s p nosuch", "frame apply all p nosuch",
		"echo after\\n", "frame apply -1 p 2", "frame apply all -c p n", "up", "frame apply 1 p n", "frame", "thread apply all -q p n",
		"taas p n", "tfaas p n", "thread apply 1 -- p 3", "frame apply", "frame apply all", "frame apply level x p 1",
		"thread apply 9 p 1", "frame apply 2", "thread apply all", "thread apply", "thread apply 1 p 4")
	dir, exe := buildNative(t, "apply", returnProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "frame and thread apply", dir, ours, theirs)
}

// oneWorkerProg starts one thread and waits for it.
const oneWorkerProg = `#include <pthread.h>
int shared;
void *worker(void *arg) {
	shared += *(int *)arg;
	return 0;
}
int main(void) {
	pthread_t th;
	int id = 7;
	pthread_create(&th, 0, worker, &id);
	pthread_join(th, 0);
	return shared - 7;
}
`

// thread name and thread find as gdb's: a name given to the selected thread, found by
// name, by the program's name for it and by its target id; cleared again; $_thread.
func TestThreadNameAndFindAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("thread name early", "break 4", "run", "p $_thread", "thread name w", "thread find w",
		"thread find LWP", "thread find zzz", "thread", "thread name", "thread find w", "thread name a b", "thread find ^a",
		"thread find ^th", "thread find", "thread find 0x7ff")
	dir, exe := buildNative(t, "threadname", oneWorkerProg) // pthread is in libc
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "thread name and find", dir, ours, theirs)
}

// normProg passes a struct by value and a pointer.
const normProg = `struct pt { int x, y; };
int norm(struct pt p, int *q) {
	return p.x * p.x + p.y * p.y + *q;
}
int main(void) {
	struct pt p = {3, 4};
	int z = 0;
	return norm(p, &z) - 25;
}
`

// How frames are shown, as gdb's: a struct argument as "..." (frame-arguments scalars, the
// default), all, none, presence; frame-info source-line, location-and-address,
// source-and-location, short-location; backtrace's -frame-arguments and -frame-info for one
// backtrace; the settings shown and their errors.
func TestFrameInfoAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("break norm", "run", "bt", "bt -frame-arguments all", "bt -frame-info source-line",
		"bt -frame-info location-and-address", "bt -frame-info source-and-location", "bt -frame-arguments presence",
		"bt -frame-arguments none -frame-info short-location 1", "show print frame-arguments",
		"set print frame-info short-location", "show print frame-info", "frame", "up", "set print frame-arguments none",
		"frame", "down", "set print frame-arguments bogus", "set print frame-info", "set print frame-info auto",
		"set print frame-arguments all", "frame", "set print frame-arguments scalars", "info frame", "bt -frame-info bogus",
		"bt")
	dir, exe := buildNative(t, "frameinfo", normProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "frame info", dir, ours, theirs)
}
