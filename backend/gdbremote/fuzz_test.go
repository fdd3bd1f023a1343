package gdbremote

import (
	"bufio"
	"bytes"
	"fmt"
	"github.com/polydbg/polydbg/backend/gdbremote/rsp"
	"reflect"
	"testing"
)

// FuzzReadFrame feeds arbitrary bytes to the packet reader: it must return frames or an
// error, never panic, never loop, and never produce more than the decoded-size limit.
func FuzzReadFrame(f *testing.F) {
	for _, s := range []string{
		"+$OK#9a", "$T0506:0000000000000000;thread:01;#00", "-", "$0* #2d", "$a*\"b#00",
		"%Stop:T05#00", "$}#00", "$$OK#9a", "garbage$OK#9a", "$OK#zz", "$#00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReader(bytes.NewReader(data))
		for range len(data) + 1 {
			fr, err := rsp.ReadFrame(r)
			if err != nil {
				return
			}
			if len(fr.Payload) > rsp.MaxDecodedPacket {
				t.Fatalf("payload of %d bytes", len(fr.Payload))
			}
			if fr.Kind == rsp.Packet {
				// the reply parsers must not panic either
				ParseStopReply(string(fr.Payload))
				rsp.UnescapeBinary(fr.Payload)
				decodeHexRegs(string(fr.Payload))
				isOutput(fr.Payload)
			}
		}
	})
}

// FuzzParseStopReply checks the stop reply parser on arbitrary text.
func FuzzParseStopReply(f *testing.F) {
	for _, s := range []string{"S05", "T0506:00;07:10e0;thread:p1.1;core:2;", "W00;process:12", "X09",
		"T05watch:1000;", "Fwrite,1,2,3", "N", "w00;p1.1", "T05:;", "T0g", "w0;p1.2", "W0;process:1c",
		"T05syscall_return:1b3;thread:a3b;", "T05create:;thread:662f;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sr, err := ParseStopReply(s)
		if err != nil {
			return
		}
		// an accepted reply is consistent with its text
		if sr.Raw != s {
			t.Fatalf("Raw %q", sr.Raw)
		}
		want := map[byte]StopKind{'S': StopSignal, 'T': StopSignal, 'W': StopExited, 'X': StopTerminated,
			'N': StopNoResumed, 'w': StopThreadExit, 'F': StopFileIO}
		if k, ok := want[s[0]]; !ok || sr.Kind != k {
			t.Fatalf("kind %v for %q", sr.Kind, s)
		}
		if sr.Signal < 0 || sr.Signal > 255 {
			t.Fatalf("signal %d", sr.Signal)
		}
		if s[0] != 'T' && len(sr.Regs) > 0 {
			t.Fatalf("registers in a %c reply", s[0])
		}
		for n, b := range sr.Regs {
			if len(b) == 0 {
				t.Fatalf("register %d accepted without a value in %q", n, s)
			}
		}
		if s[0] != 'T' {
			return
		}
		// a T reply re-encoded from what was parsed parses to the same thing
		re := fmt.Sprintf("T%02x", sr.Signal)
		for n, b := range sr.Regs {
			re += fmt.Sprintf("%x:%x;", n, b)
		}
		if sr.Thread != "" {
			re += "thread:" + sr.Thread + ";"
		}
		if sr.Core >= 0 {
			re += fmt.Sprintf("core:%x;", sr.Core)
		}
		if sr.Reason == "watch" || sr.Reason == "rwatch" || sr.Reason == "awatch" {
			re += fmt.Sprintf("%s:%x;", sr.Reason, sr.WatchAddr)
		} else if sr.Reason == "syscall_entry" || sr.Reason == "syscall_return" {
			re += fmt.Sprintf("%s:%x;", sr.Reason, sr.Syscall)
		} else if sr.Reason != "" {
			re += sr.Reason + ":;"
		}
		sr2, err := ParseStopReply(re)
		if err != nil {
			t.Fatalf("re-encoded %q of %q: %v", re, s, err)
		}
		sr2.Raw = sr.Raw
		if !reflect.DeepEqual(sr, sr2) {
			t.Fatalf("%q parsed as %+v, re-encoded %q as %+v", s, sr, re, sr2)
		}
	})
}
