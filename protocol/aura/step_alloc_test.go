package aura

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// A step's command and its stopped event cost few allocations: parsing {"cmd":"stepIn"}
// and encoding a stop with its environment and watches. A regression on the hot path
// fails here.
func TestStepAllocations(t *testing.T) {
	line := []byte(`{"cmd":"stepIn"}`)
	n := testing.AllocsPerRun(200, func() {
		if c, err := ParseCommand(line); err != nil || c.Cmd != "stepIn" {
			t.Fatal(c, err)
		}
	})
	if n > 0 { // measured: 0 (a bare command is not decoded); 3 before
		t.Errorf("ParseCommand allocates %v objects, want none", n)
	}
	for _, name := range commandNames { // the bare line reads as the decoded one
		fast, errFast := ParseCommand([]byte(`{"cmd":"` + name + `"}`))
		slow, errSlow := ParseCommand([]byte(`{ "cmd": "` + name + `" }`))
		if !reflect.DeepEqual(fast, slow) || (errFast == nil) != (errSlow == nil) {
			t.Errorf("%s: %+v, %v bare; %+v, %v decoded", name, fast, errFast, slow, errSlow)
		}
	}
	v := "3"
	ev := StoppedEvent{Event: "stopped", Reason: "step", File: "/tmp/a.kite", Line: 4, Col: 5, Func: "main",
		Env: map[string]string{"i": "3", "total": "6"}, Watches: []WatchResult{{Expr: "i", Value: &v}}}
	want := `AURA_DEBUG_EVENT {"event":"stopped","reason":"step","file":"/tmp/a.kite","line":4,"col":5,` +
		`"env":{"i":"3","total":"6"},"watches":[{"expr":"i","value":"3"}],"func":"main"}` + "\n"
	if got := string(appendEvent(nil, ev)); got != want {
		t.Fatalf("got %s", got)
	}
	var buf []byte // stdout keeps its line from one event to the next
	n = testing.AllocsPerRun(200, func() { buf = appendEvent(buf[:0], ev) })
	if n > 2 { // measured: 1 (the event's boxing); 2 with a new line each time, 11 before wirejson's map path
		t.Errorf("appendEvent allocates %v objects, want at most 2", n)
	}
}

// BenchmarkStepInProcess: a stepIn to its stopped event through Run, over io.Pipe, in
// process (perf on, as by default), for CPU profiles of the Dev-VM's step:
//
//	GOMAXPROCS=1 go test ./protocol/aura -run '^$' -bench StepInProcess -benchtime 50000x -cpuprofile cpu.out
func BenchmarkStepInProcess(b *testing.B) {
	file := filepath.Join(b.TempDir(), "loop.kite")
	src := "let i = 0\nlet total = 0\nwhile true {\n    i += 1\n    total += i\n}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Run(context.Background(), Config{File: file, Protocol: true, WaitEnable: true,
			Stdin: inR, Stdout: outW, Stderr: io.Discard})
	}()
	out := bufio.NewReader(outR)
	send := func(line string) {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			b.Fatal(err)
		}
	}
	await := func(event string) {
		for {
			line, err := out.ReadSlice('\n')
			if err != nil {
				b.Fatal(err)
			}
			if bytes.Contains(line, []byte(`"event":"`+event+`"`)) {
				return
			}
		}
	}
	await("hello")
	send(`{"cmd":"enable","startPaused":true}`)
	await("stopped")
	b.ReportAllocs()
	for b.Loop() {
		send(`{"cmd":"stepIn"}`)
		await("stopped")
	}
	b.StopTimer()
	send(`{"cmd":"terminate"}`)
	inW.Close()
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	<-done
}
