package engine

import (
	"encoding/binary"
	"fmt"
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
// x formats: x hex padded to the unit's width, d signed, u unsigned, c a character.
func FormatUnits(data []byte, unit int, format byte) []string {
	out := make([]string, 0, len(data)/unit)
	for i := 0; i+unit <= len(data); i += unit {
		var full [8]byte
		copy(full[:], data[i:i+unit])
		v := binary.LittleEndian.Uint64(full[:])
		switch format {
		case 'd':
			shift := 64 - 8*uint(unit)
			out = append(out, strconv.FormatInt(int64(v<<shift)>>shift, 10))
		case 'u':
			out = append(out, strconv.FormatUint(v, 10))
		case 'c':
			out = append(out, strconv.QuoteRune(rune(byte(v))))
		default:
			out = append(out, fmt.Sprintf("0x%0*x", 2*unit, v))
		}
	}
	return out
}
