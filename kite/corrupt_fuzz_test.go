package kite_test

import (
	"encoding/binary"
	"testing"

	"github.com/polydbg/polydbg/kite"
	"github.com/polydbg/polydbg/kite/vm"
)

// FuzzCorruptBytecode runs programs whose instructions were damaged (as a corrupt compiled
// cartridge would be): the VM may fail with an error, but never crash the host.
func FuzzCorruptBytecode(f *testing.F) {
	src := []byte(`fn fib(n) {
    if n < 2 { return n }
    return fib(n - 1) + fib(n - 2)
}
let xs = [1, "a", {"k": 2.5}]
for i in range(0, 5) { xs = xs + [fib(i)] }
let f = fn(x) { return x * 2 }
print(map(xs, fn(x) { return str(x) }), f(3))
`)
	f.Add(uint16(3), uint32(0x12345678))
	f.Add(uint16(10), uint32(0xffffff01))
	f.Add(uint16(40), uint32(0x00000100))
	f.Fuzz(func(t *testing.T, at uint16, word uint32) {
		prog, err := kite.Compile("c.kite", src, nil)
		if err != nil {
			t.Fatal(err)
		}
		code := append([]uint32(nil), prog.Code...)
		code[int(at)%len(code)] ^= word
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], word)
		code[int(b[0])%len(code)] = word // and one instruction replaced outright
		prog.Code = code
		m, err := vm.New(prog, vm.Options{MaxCycles: 200_000, MaxDepth: 64})
		if err != nil {
			return
		}
		_ = m.Run() // any error is fine; a panic fails the fuzz test
	})
}
