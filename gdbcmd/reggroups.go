package gdbcmd

import (
	"regexp"
	"slices"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// gdb's register groups for info all-registers and info registers GROUP: on x86, the
// widest vector registers the machine has (zmm, else ymm, else xmm) stand for the narrower
// ones and the halves they are made of; the float group is x87's, the system group the
// segment bases and orig_rax, which all leaves out. Elsewhere (ARM) all is every register.

// x86Halves are the raw parts gdb hides behind its pseudo-registers.
var x86Halves = regexp.MustCompile(`^(ymm|zmm)\d+h$`)

// x86Vector names a vector register and its width's prefix.
var x86Vector = regexp.MustCompile(`^(xmm|ymm|zmm)\d+$`)

var x86Float = []string{"st0", "st1", "st2", "st3", "st4", "st5", "st6", "st7", "fctrl", "fstat", "ftag", "fiseg",
	"fioff", "foseg", "fooff", "fop"}

var x86System = []string{"fs_base", "gs_base", "orig_rax"}

// registerGroup is the registers of gdb's group name ("all", "general", "float",
// "vector", "system"); false for a name that is none.
func registerGroup(regs []engine.Register, name string) ([]engine.Register, bool) {
	x86 := slices.ContainsFunc(regs, func(r engine.Register) bool { return r.Name == "rip" || r.Name == "eip" })
	if name == "general" {
		return infoGeneralRegisters(regs), true
	}
	if !x86 {
		switch name {
		case "all":
			return regs, true
		case "float", "vector", "system":
			return nil, true
		}
		return nil, false
	}
	widest := "xmm"
	for _, r := range regs {
		if m := x86Vector.FindStringSubmatch(r.Name); m != nil && m[1] > widest { // "zmm" > "ymm" > "xmm"
			widest = m[1]
		}
	}
	keep := func(r engine.Register) bool {
		m := x86Vector.FindStringSubmatch(r.Name)
		vector := m != nil && m[1] == widest || r.Name == "mxcsr"
		switch name {
		case "all":
			return !x86Halves.MatchString(r.Name) && (m == nil || m[1] == widest) && !slices.Contains(x86System, r.Name)
		case "vector":
			return vector
		case "float":
			return slices.Contains(x86Float, r.Name)
		case "system":
			return slices.Contains(x86System, r.Name)
		}
		return false
	}
	switch name {
	case "all", "vector", "float", "system":
		out := slices.DeleteFunc(slices.Clone(regs), func(r engine.Register) bool { return !keep(r) })
		if name == "system" { // in gdb's order of them, not the description's
			slices.SortStableFunc(out, func(a, b engine.Register) int {
				return slices.Index(x86System, a.Name) - slices.Index(x86System, b.Name)
			})
		}
		return out, true
	}
	return nil, false
}

// isRegisterGroup says whether a word of info registers names a group, not a register.
func isRegisterGroup(word string) bool {
	return slices.Contains(strings.Fields("all general float vector system"), word)
}
