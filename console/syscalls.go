package console

import (
	"math"

	"github.com/polydbg/polydbg/kite/vm"
)

// Syscalls are the host functions a cartridge may call. Each call is counted (the
// syscalls_per_frame rule) and costs the cycles of the CALL instruction that makes it.
// Coordinates and colours may be ints or floats (floats are truncated); colours are
// taken modulo 16. All of them are impure: watches and conditions cannot call them.
var Syscalls = []string{"cls", "pset", "pget", "rect", "rectfill", "line", "text", "btn", "log", "rnd", "frame_index"}

// Buttons is the number of buttons btn() knows (0 left, 1 right, 2 up, 3 down, 4 A,
// 5 B, 6 start, 7 select).
const Buttons = 8

// Log levels of log(level, msg).
var logLevels = map[string]bool{"debug": true, "info": true, "warn": true, "error": true}

// hostStubs name the syscalls for the compiler; a console binds the real ones.
var hostStubs = func() []*vm.Builtin {
	out := make([]*vm.Builtin, len(Syscalls))
	for i, n := range Syscalls {
		out[i] = &vm.Builtin{Name: n, Fn: func(*vm.VM, []vm.Value) (vm.Value, error) { return vm.Nil, nil }}
	}
	return out
}()

func hostNames() []*vm.Builtin { return hostStubs }

// HostStubs returns the syscalls with no effect, for tools that only compile cartridges.
func HostStubs() []*vm.Builtin { return hostStubs }

type syscall func(c *Console, args []vm.Value) (vm.Value, error)

var syscallTable = map[string]syscall{
	"cls": func(c *Console, a []vm.Value) (vm.Value, error) {
		if err := nargs("cls", a, 0, 1); err != nil {
			return vm.Nil, err
		}
		col := int64(0)
		if len(a) == 1 {
			var err error
			if col, err = num("cls", a, 0); err != nil {
				return vm.Nil, err
			}
		}
		c.fb.Clear(uint8(col))
		return vm.Nil, nil
	},
	"pset": func(c *Console, a []vm.Value) (vm.Value, error) {
		n, err := nums("pset", a, 3)
		if err != nil {
			return vm.Nil, err
		}
		c.fb.Set(int(n[0]), int(n[1]), uint8(n[2]))
		return vm.Nil, nil
	},
	"pget": func(c *Console, a []vm.Value) (vm.Value, error) {
		n, err := nums("pget", a, 2)
		if err != nil {
			return vm.Nil, err
		}
		return vm.Int(int64(c.fb.At(int(n[0]), int(n[1])))), nil
	},
	"rect": func(c *Console, a []vm.Value) (vm.Value, error) {
		n, err := nums("rect", a, 5)
		if err != nil {
			return vm.Nil, err
		}
		c.fb.Rect(int(n[0]), int(n[1]), int(n[2]), int(n[3]), uint8(n[4]))
		return vm.Nil, nil
	},
	"rectfill": func(c *Console, a []vm.Value) (vm.Value, error) {
		n, err := nums("rectfill", a, 5)
		if err != nil {
			return vm.Nil, err
		}
		c.fb.RectFill(int(n[0]), int(n[1]), int(n[2]), int(n[3]), uint8(n[4]))
		return vm.Nil, nil
	},
	"line": func(c *Console, a []vm.Value) (vm.Value, error) {
		n, err := nums("line", a, 5)
		if err != nil {
			return vm.Nil, err
		}
		c.fb.Line(int(n[0]), int(n[1]), int(n[2]), int(n[3]), uint8(n[4]))
		return vm.Nil, nil
	},
	"text": func(c *Console, a []vm.Value) (vm.Value, error) {
		if err := nargs("text", a, 4, 4); err != nil {
			return vm.Nil, err
		}
		n, err := nums("text", a[1:], 3)
		if err != nil {
			return vm.Nil, err
		}
		s := a[0].String()
		if len(s) > 4096 {
			s = s[:4096]
		}
		return vm.Int(int64(c.fb.Text(s, int(n[0]), int(n[1]), uint8(n[2])))), nil
	},
	"btn": func(c *Console, a []vm.Value) (vm.Value, error) {
		n, err := nums("btn", a, 1)
		if err != nil {
			return vm.Nil, err
		}
		if n[0] < 0 || n[0] >= Buttons {
			return vm.Nil, vm.Errorf("btn: there is no button %d (0 to %d)", n[0], Buttons-1)
		}
		return vm.Bool(c.input&(1<<n[0]) != 0), nil
	},
	"log": func(c *Console, a []vm.Value) (vm.Value, error) {
		if err := nargs("log", a, 1, 2); err != nil {
			return vm.Nil, err
		}
		level, msg := "info", a[0]
		if len(a) == 2 {
			if a[0].Kind() != vm.StringKind || !logLevels[a[0].Str()] {
				return vm.Nil, vm.Errorf("log: the level must be \"debug\", \"info\", \"warn\" or \"error\", not %s", a[0].Repr())
			}
			level, msg = a[0].Str(), a[1]
		}
		c.frameLogs++
		c.emit(Event{Kind: EventLog, FrameIndex: c.frame, Level: level, Source: "cartridge", Msg: msg.String()})
		return vm.Nil, nil
	},
	"rnd": func(c *Console, a []vm.Value) (vm.Value, error) {
		if err := nargs("rnd", a, 1, 1); err != nil {
			return vm.Nil, err
		}
		switch a[0].Kind() {
		case vm.IntKind:
			if n := a[0].Int(); n > 0 {
				return vm.Int(int64(c.next64() % uint64(n))), nil
			}
		case vm.FloatKind:
			if f := a[0].Float(); f > 0 && !math.IsInf(f, 0) {
				return vm.Float(float64(c.next64()>>11) / (1 << 53) * f), nil
			}
		}
		return vm.Nil, vm.Errorf("rnd: the bound must be a positive number, not %s", a[0].Repr())
	},
	"frame_index": func(c *Console, a []vm.Value) (vm.Value, error) {
		if err := nargs("frame_index", a, 0, 0); err != nil {
			return vm.Nil, err
		}
		return vm.Int(c.frame), nil
	},
}

// syscalls binds the syscalls to this console.
func (c *Console) syscalls() []*vm.Builtin {
	out := make([]*vm.Builtin, len(Syscalls))
	for i, name := range Syscalls {
		f := syscallTable[name]
		out[i] = &vm.Builtin{Name: name, Fn: func(_ *vm.VM, a []vm.Value) (vm.Value, error) {
			c.frameCalls++
			c.totalSyscalls++
			return f(c, a)
		}}
	}
	return out
}

// next64 is splitmix64, seeded per run: rnd() is deterministic for a given seed.
func (c *Console) next64() uint64 {
	c.rng += 0x9E3779B97F4A7C15
	z := c.rng
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

func nargs(name string, a []vm.Value, lo, hi int) error {
	if len(a) < lo || len(a) > hi {
		if lo == hi {
			return vm.Errorf("wrong argument count: %s expects %d, got %d", name, lo, len(a))
		}
		return vm.Errorf("wrong argument count: %s expects %d to %d, got %d", name, lo, hi, len(a))
	}
	return nil
}

// num reads argument i as an integer (a float is truncated).
func num(name string, a []vm.Value, i int) (int64, error) {
	switch v := a[i]; v.Kind() {
	case vm.IntKind:
		return v.Int(), nil
	case vm.FloatKind:
		f := v.Float()
		if f != f || f > 1<<40 || f < -(1<<40) {
			return 0, vm.Errorf("%s: argument %d is out of range (%s)", name, i+1, v.String())
		}
		return int64(f), nil
	}
	return 0, vm.Errorf("%s: argument %d must be int or float, not %s", name, i+1, a[i].TypeName())
}

func nums(name string, a []vm.Value, n int) ([]int64, error) {
	if err := nargs(name, a, n, n); err != nil {
		return nil, err
	}
	var buf [5]int64
	out := buf[:n]
	for i := range out {
		v, err := num(name, a, i)
		if err != nil {
			return nil, err
		}
		out[i] = clampInt(v)
	}
	return out, nil
}

// clampInt keeps coordinates in a range where arithmetic on them cannot overflow.
func clampInt(v int64) int64 { return min(max(v, -1<<20), 1<<20) }
