package gdbremote

import (
	"bufio"
	"bytes"
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
			fr, err := readFrame(r)
			if err != nil {
				return
			}
			if len(fr.payload) > maxDecodedPacket {
				t.Fatalf("payload of %d bytes", len(fr.payload))
			}
			if fr.kind == framePacket {
				// the reply parsers must not panic either
				ParseStopReply(string(fr.payload))
				unescapeBinary(fr.payload)
				decodeHexRegs(string(fr.payload))
				isOutput(fr.payload)
			}
		}
	})
}

// FuzzParseStopReply checks the stop reply parser on arbitrary text.
func FuzzParseStopReply(f *testing.F) {
	for _, s := range []string{"S05", "T0506:00;07:10e0;thread:p1.1;core:2;", "W00;process:12", "X09",
		"T05watch:1000;", "Fwrite,1,2,3", "N", "w00;p1.1", "T05:;", "T0g"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ParseStopReply(s)
	})
}
