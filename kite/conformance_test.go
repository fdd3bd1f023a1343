package kite

// The language conformance suite.
//
// Every program testdata/conformance/NAME.kite is run in-process by RunFile, the code path of
// `polydbg run FILE`, with the file name as given ("testdata/conformance/NAME.kite"), and its
// results are compared with the golden files next to it:
//
//	NAME.out   the expected stdout  (absent: no output)
//	NAME.err   the expected stderr  (absent: no output)
//	NAME.code  the expected exit code, one decimal line (absent: 0)
//
// `go test ./kite -run Conformance -update` rewrites the golden files from the current
// behaviour (review the diff before committing it). A program whose stdout depends on time
// or randomness asserts its own properties and prints only stable text.

import (
	"bytes"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the conformance golden files")

func TestConformance(t *testing.T) {
	files, err := filepath.Glob("testdata/conformance/*.kite")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no conformance programs")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".kite")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := RunFile(file, nil, &stdout, &stderr)
			base := strings.TrimSuffix(file, ".kite")
			if *update {
				writeGolden(t, base+".out", stdout.String())
				writeGolden(t, base+".err", stderr.String())
				c := ""
				if code != 0 {
					c = strconv.Itoa(code) + "\n"
				}
				writeGolden(t, base+".code", c)
				return
			}
			wantCode := 0
			if c := readGolden(t, base+".code"); c != "" {
				var err error
				if wantCode, err = strconv.Atoi(strings.TrimSpace(c)); err != nil {
					t.Fatalf("%s.code: %v", base, err)
				}
			}
			if code != wantCode {
				t.Errorf("exit code %d, want %d", code, wantCode)
			}
			if want := readGolden(t, base+".out"); stdout.String() != want {
				t.Errorf("stdout:\n%s\nwant:\n%s\n%s", stdout.String(), want, firstDiff(stdout.String(), want))
			}
			if want := readGolden(t, base+".err"); stderr.String() != want {
				t.Errorf("stderr:\n%s\nwant:\n%s\n%s", stderr.String(), want, firstDiff(stderr.String(), want))
			}
		})
	}
}

// readGolden returns a golden file's text; an absent file is empty.
func readGolden(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// writeGolden writes text to path, or removes path when text is empty.
func writeGolden(t *testing.T, path, text string) {
	if text == "" {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		return
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// firstDiff describes the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "first difference at line " + strconv.Itoa(i+1) + ":\n  got:  " + strconv.Quote(gl) + "\n  want: " + strconv.Quote(wl)
		}
	}
	return ""
}
