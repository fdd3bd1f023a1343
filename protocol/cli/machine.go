package cli

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// Machine-level commands for targets with registers and memory (native programs,
// microcontrollers): info registers, x (examine memory), set $REG = VALUE.

func (d *Debugger) infoRegisters(names []string) {
	regs, err := d.s.Registers()
	if err != nil {
		d.printf("%s\n", explain(err))
		return
	}
	shown := 0
	for _, r := range regs {
		if len(names) > 0 && !contains(names, r.Name) {
			continue
		}
		d.printf("%-10s %#-20x %d\n", r.Name, r.Value, r.Value)
		shown++
	}
	if shown == 0 {
		d.printf("Invalid register `%s'.\n", strings.Join(names, " "))
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// cmdExamine is gdb's x/NFU ADDR: N units of size U (b, h, w, g) shown in format F
// (x hex, d signed, u unsigned, c char). ADDR is a number or $REGISTER.
func cmdExamine(d *Debugger, args string) bool {
	count, format, unit := 1, byte('x'), 4
	if strings.HasPrefix(args, "/") {
		spec, rest, _ := strings.Cut(args[1:], " ")
		args = rest
		digits := strings.TrimRight(spec, "xducbhwg")
		if digits != "" {
			n, err := strconv.Atoi(digits)
			if err != nil || n <= 0 {
				d.printf("Invalid number %q.\n", digits)
				return false
			}
			count = n
		}
		for _, c := range []byte(spec[len(digits):]) {
			switch c {
			case 'x', 'd', 'u', 'c':
				format = c
			case 'b':
				unit = 1
			case 'h':
				unit = 2
			case 'w':
				unit = 4
			case 'g':
				unit = 8
			}
		}
		if format == 'c' && !strings.ContainsAny(spec, "hwg") {
			unit = 1
		}
	}
	addr, err := d.address(strings.TrimSpace(args))
	if err != nil {
		d.printf("%v\n", err)
		return false
	}
	data, err := d.s.ReadMemory(addr, count*unit)
	if err != nil {
		d.printf("Cannot access memory at address %#x: %s\n", addr, explain(err))
		return false
	}
	perLine := max(1, 16/unit)
	for i := 0; i < count; i++ {
		if i%perLine == 0 {
			if i > 0 {
				d.printf("\n")
			}
			d.printf("%#x:", addr+uint64(i*unit))
		}
		v := readUnit(data[i*unit:], unit)
		switch format {
		case 'd':
			d.printf("\t%d", signExtend(v, unit))
		case 'u':
			d.printf("\t%d", v)
		case 'c':
			d.printf("\t%q", rune(byte(v)))
		default:
			d.printf("\t0x%0*x", 2*unit, v)
		}
	}
	d.printf("\n")
	return false
}

func readUnit(b []byte, unit int) uint64 {
	var full [8]byte
	copy(full[:], b[:unit])
	return binary.LittleEndian.Uint64(full[:])
}

func signExtend(v uint64, unit int) int64 {
	shift := 64 - 8*uint(unit)
	return int64(v<<shift) >> shift
}

// address reads an address argument: a number (0x... allowed) or $REGISTER.
func (d *Debugger) address(arg string) (uint64, error) {
	if arg == "" {
		return 0, fmt.Errorf("Argument required (starting display address).")
	}
	if len(arg) > 1 && arg[0] == '$' && arg[1] != '$' && (arg[1] < '0' || arg[1] > '9') {
		return d.register(arg[1:])
	}
	if strings.HasPrefix(arg, "$") { // a value from the history: x $1, x $
		v, err := d.substituteHistory(arg)
		if err != nil {
			return 0, err
		}
		arg = strings.Fields(strings.Trim(v, "()") + " ")[0] // "(0x7ffe... <sym>)" → the number
	}
	v, err := strconv.ParseUint(arg, 0, 64)
	if err != nil {
		return 0, fmt.Errorf("Invalid address %q (a number or $register).", arg)
	}
	return v, nil
}

func (d *Debugger) register(name string) (uint64, error) {
	regs, err := d.s.Registers()
	if err != nil {
		return 0, fmt.Errorf("%s", explain(err))
	}
	for _, r := range regs {
		if r.Name == name {
			return r.Value, nil
		}
	}
	return 0, fmt.Errorf("Invalid register `%s'.", name)
}

// cmdSet handles `set $REG = VALUE` (and `set var` is explained as unsupported), and the
// settings `set context on|off` and `set listsize N`.
func cmdSet(d *Debugger, args string) bool {
	if word, val, _ := strings.Cut(args, " "); word != "" && !strings.HasPrefix(word, "$") {
		return d.setting(word, strings.TrimSpace(val))
	}
	lhs, rhs, ok := strings.Cut(args, "=")
	lhs, rhs = strings.TrimSpace(lhs), strings.TrimSpace(rhs)
	if !ok || !strings.HasPrefix(lhs, "$") || rhs == "" {
		d.printf("Usage: set $REGISTER = VALUE (variables are changed by the program, not the debugger).\n")
		return false
	}
	v, err := strconv.ParseInt(rhs, 0, 64)
	if err != nil {
		u, uerr := strconv.ParseUint(rhs, 0, 64)
		if uerr != nil {
			d.printf("Invalid number %q.\n", rhs)
			return false
		}
		v = int64(u)
	}
	if err := d.s.WriteRegister(lhs[1:], uint64(v)); err != nil {
		d.printf("%s\n", explain(err))
	}
	return false
}

func (d *Debugger) setting(name, val string) bool {
	switch {
	case strings.HasPrefix("context", name):
		switch val {
		case "on", "1", "":
			d.context = true
		case "off", "0":
			d.context = false
		default:
			d.printf("\"on\" or \"off\" expected.\n")
		}
	case strings.HasPrefix("listsize", name):
		n, ok := atoi(val)
		if !ok || n < 1 {
			d.printf("Usage: set listsize N (N > 0).\n")
			return false
		}
		d.listLines = n
	default:
		d.printf("Usage: set $REGISTER = VALUE, set context on|off or set listsize N (variables are changed by the program, not the debugger).\n")
	}
	return false
}
