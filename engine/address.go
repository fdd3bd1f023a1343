package engine

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Addresses as people write them, and memory shown as gdb's x command shows it.

// ParseAddress reads an address written as a number: 0x hex, 0o octal, 0b binary or decimal.
func ParseAddress(text string) (uint64, error) {
	v, err := strconv.ParseUint(strings.TrimSpace(text), 0, 64)
	if err != nil {
		return 0, fmt.Errorf("address %q: want 0x... or a decimal number", strings.TrimSpace(text))
	}
	return v, nil
}

// AddressEvaluator is implemented by targets that read an expression's value as an
// address from the value itself, not its text (which print address off leaves without one).
type AddressEvaluator interface {
	AddressOf(frame int, expr string) (uint64, error)
}

// Address finds the address expr names in frame: a number, or an expression the target
// evaluates to a pointer or an integer ($sp, $pc, &counter, buf).
func (s *Session) Address(frame int, expr string) (uint64, error) {
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return 0, fmt.Errorf("no address given")
	}
	if a, err := ParseAddress(strings.Trim(expr, "()")); err == nil {
		return a, nil
	}
	if ae, ok := s.t.(AddressEvaluator); ok && s.checkInspectable("evaluate") == nil {
		if a, err := ae.AddressOf(frame, expr); err == nil {
			return a, nil
		}
	}
	v, err := s.Evaluate(frame, expr, EvalMode{Pure: true})
	if err != nil {
		if a, ok := leadingNumber(expr); ok { // a value as printed: "(0x7ffe... "text")"
			return a, nil
		}
		return 0, err
	}
	if a, ok := leadingNumber(v.Value); ok { // a pointer shows as 0x... and what it points to
		return a, nil
	}
	if _, fn, ok := strings.Cut(v.Value, "} "); ok && strings.HasPrefix(v.Value, "{") { // a function, "{int (void)} 0x401136 <main>": its address
		if a, ok := leadingNumber(fn); ok {
			return a, nil
		}
	}
	if strings.HasSuffix(v.Type, "]") { // an array stands for the address of its first element, as in C
		if p, err := s.Evaluate(frame, "&"+expr, EvalMode{Pure: true}); err == nil {
			if a, ok := leadingNumber(p.Value); ok {
				return a, nil
			}
		}
	}
	return 0, fmt.Errorf("%s = %s is not an address", expr, v.Value)
}

// leadingNumber reads the number a printed value begins with (after any parentheses).
func leadingNumber(text string) (uint64, bool) {
	t := strings.TrimLeft(text, "( ")
	if i := strings.IndexAny(t, " )"); i >= 0 {
		t = t[:i]
	}
	if a, err := ParseAddress(t); err == nil {
		return a, true
	}
	n, err := strconv.ParseInt(t, 10, 64)
	return uint64(n), err == nil
}

// FormatUnits shows memory as units of unit bytes (1, 2, 4 or 8, little-endian) in gdb's
// x formats: x and z hex padded to the unit's width, d signed, u unsigned, o octal, t
// binary, c a character with its number, f a float (4 bytes) or double (8).
func FormatUnits(data []byte, unit int, format byte) []string {
	out := make([]string, 0, len(data)/unit)
	for i := 0; i+unit <= len(data); i += unit {
		var full [8]byte
		copy(full[:], data[i:i+unit])
		v := binary.LittleEndian.Uint64(full[:])
		shift := 64 - 8*uint(unit)
		switch format {
		case 'd':
			out = append(out, strconv.FormatInt(int64(v<<shift)>>shift, 10))
		case 'u':
			out = append(out, strconv.FormatUint(v, 10))
		case 'o':
			out = append(out, "0"+strconv.FormatUint(v, 8))
			if v == 0 {
				out[len(out)-1] = "0"
			}
		case 't':
			out = append(out, fmt.Sprintf("%0*b", 8*unit, v))
		case 'c':
			out = append(out, fmt.Sprintf("%d %s", int8(v), gdbChar(byte(v))))
		case 'f':
			switch unit {
			case 4:
				out = append(out, strconv.FormatFloat(float64(math.Float32frombits(uint32(v))), 'g', 9, 32))
			case 8:
				out = append(out, strconv.FormatFloat(math.Float64frombits(v), 'g', 17, 64))
			default:
				out = append(out, strconv.FormatInt(int64(v<<shift)>>shift, 10))
			}
		default:
			out = append(out, fmt.Sprintf("0x%0*x", 2*unit, v))
		}
	}
	return out
}
