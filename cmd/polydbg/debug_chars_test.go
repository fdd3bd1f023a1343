package main

import (
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// wideProg has wchar_t, char16_t and char32_t characters, arrays and pointers.
const wideProg = `#include <wchar.h>
#include <uchar.h>
static wchar_t wide[] = L"wide";
static wchar_t *wp = L"ptr\tx";
static wchar_t wc = L'Q';
static char16_t u16[] = u"sixteen";
static char32_t u32[] = U"thirty";
static char32_t c32 = U'Z';
static wchar_t wrep[16] = L"aaaaaaaaaaaab";
static wchar_t wempty[4];
struct s { wchar_t name[6]; int n; } ss = {L"abc", 3};
int main(void) { return wide[0] + wp[0] + wc + u16[0] + u32[0] + c32 + wrep[0] + ss.n; }
`

// Wide characters print as gdb prints them: 81 L'Q', L"wide", u"sixteen", U"thirty", a
// pointer with its string and no type before it, repeats and the elements limit as a char
// string's, a struct's member; wide literals (L'a', L"ab", u'x', U"yz") are read and typed;
// a format prints the numbers; x/hs and x/ws read strings of char16_t and char32_t.
// Against gdb, before the run and at a stop.
func TestWideCharactersAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "wide", wideProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, exCommands("p wide", "p wp", "p wc", "p u16", "p u32",
		"p c32", "p wrep", "p wempty", "p ss", "p wide[1]", "p *wp", "p/x wide", "p/d wc", "whatis wide", "p &wide",
		"p &wide[1]", "p wide + 1", "output wide", "p sizeof(wide)", "p L'a'", `p L"ab"`, "p -elements 2 -- wide",
		"p wc == L'Q'", "whatis L'a'", `whatis L"ab"`, `p sizeof(L"ab")`, "p u'x'", `p U"yz"`, "x/ws wide", "x/hs u16",
		"x/2ws wrep", "x/s wide", "break main", "run", "x/ws wp",
		"p wp", "p *wp@3", "p wp[1]", "set var wc = 66", "p wc", "set print repeats 3", "p wrep", "p/x wrep"))
	compareLines(t, "wide characters", dir, ours, theirs)
}

// formatsProg has char arrays with runs, bools and small integers to print with formats.
const formatsProg = `#include <stdbool.h>
#include <stdint.h>
static char text[32] = "hello, world";
static int16_t shorts[4] = {-1, 2, -3, 4};
static bool flags[3] = {true, false, true};
static _Bool flag = 1;
struct cfg { const char *name; bool on; uint8_t bits[3]; } cfgs[2] = {{"a", true, {1, 2, 3}}, {"b", false, {0}}};
int main(void) { return text[0] + shorts[0] + flag + flags[0] + cfgs[0].on; }
`

// A format prints an array's runs as gdb's <repeats N times> under print repeats, and a
// bool as its number (0x1). Against gdb.
func TestFormatsOfRunsAndBoolsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "formats", formatsProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, exCommands("break main", "run", "p/x text", "p/d text",
		"p/c text", "p/x shorts", "p/x flags", "p/d flags", "p/x flag", "p/t flag", "p/c flag", "output/x flag",
		"p/x cfgs", "set print repeats 3", "p/x text", "p/x cfgs", "set print repeats unlimited", "p/x text",
		"set print repeats 10", "set print array-indexes on", "p/x shorts", "p/x text"))
	compareLines(t, "formats of runs and bools", dir, ours, theirs)
}

// escapesProg has quotes, backslashes, C's named escapes and a UTF-8 character in strings
// and chars.
const escapesProg = `char s[] = "q\"uo\\te \xc3\xa9 tab\t bell\a back\b feed\f ret\r vt\v del\x7f";
char c = 0x7f, e = 0x1b, bs = '\\';
int main(void) { return s[0] + c + e + bs; }
`

// Strings and characters are escaped as gdb escapes them: \" \\ and C's named escapes (\a
// \b \f \r \v), '\\' for a backslash, others in octal, a UTF-8 character as itself where the
// locale's character set is UTF-8 (in print, output and x/s). Against gdb, under C.UTF-8
// and under C.
func TestEscapesAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "escapes", escapesProg)
	t.Setenv("LANG", "C.UTF-8")
	t.Setenv("LC_ALL", "C.UTF-8")
	cmds := exCommands("p s", "p c", "p e", "p bs", `p '\\'`, `p '\''`, `p '"'`, `p "a\"b"`, "x/s s", "p/c 200",
		"output s", "p/c 7", "p/c 8", `p "\a\r"`, "p s[16]")
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "escapes under C.UTF-8", dir, ours, theirs)
	t.Setenv("LANG", "C")
	t.Setenv("LC_ALL", "C")
	ours, theirs = batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "escapes under C", dir, ours, theirs)
}
