package gdbcmd

import (
	"fmt"
	"strconv"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/cstring"
)

// auxvEntry is gdb's name and description of an auxiliary vector entry, and how it shows
// its value: 'x' in hex, 'd' in decimal, 's' the address of a string, with the string.
type auxvEntry struct {
	name, desc string
	how        byte
}

// auxvEntries are the entries gdb 13 names (Linux's AT_*); others are "???", in hex.
var auxvEntries = map[uint64]auxvEntry{
	0: {"AT_NULL", "End of vector", 'x'}, 1: {"AT_IGNORE", "Entry should be ignored", 'x'},
	2: {"AT_EXECFD", "File descriptor of program", 'd'}, 3: {"AT_PHDR", "Program headers for program", 'x'},
	4: {"AT_PHENT", "Size of program header entry", 'd'}, 5: {"AT_PHNUM", "Number of program headers", 'd'},
	6: {"AT_PAGESZ", "System page size", 'd'}, 7: {"AT_BASE", "Base address of interpreter", 'x'},
	8: {"AT_FLAGS", "Flags", 'x'}, 9: {"AT_ENTRY", "Entry point of program", 'x'},
	10: {"AT_NOTELF", "Program is not ELF", 'd'}, 11: {"AT_UID", "Real user ID", 'd'},
	12: {"AT_EUID", "Effective user ID", 'd'}, 13: {"AT_GID", "Real group ID", 'd'},
	14: {"AT_EGID", "Effective group ID", 'd'}, 15: {"AT_PLATFORM", "String identifying platform", 's'},
	16: {"AT_HWCAP", "Machine-dependent CPU capability hints", 'x'}, 17: {"AT_CLKTCK", "Frequency of times()", 'd'},
	18: {"AT_FPUCW", "Used FPU control word", 'd'}, 19: {"AT_DCACHEBSIZE", "Data cache block size", 'd'},
	20: {"AT_ICACHEBSIZE", "Instruction cache block size", 'd'}, 21: {"AT_UCACHEBSIZE", "Unified cache block size", 'd'},
	22: {"AT_IGNOREPPC", "Entry should be ignored", 'd'}, 23: {"AT_SECURE", "Boolean, was exec setuid-like?", 'd'},
	24: {"AT_BASE_PLATFORM", "String identifying base platform", 's'}, 25: {"AT_RANDOM", "Address of 16 random bytes", 'x'},
	26: {"AT_HWCAP2", "Extension of AT_HWCAP", 'x'}, 31: {"AT_EXECFN", "File name of executable", 's'},
	32: {"AT_SYSINFO", "Special system info/entry points", 'x'}, 33: {"AT_SYSINFO_EHDR", "System-supplied DSO's ELF header", 'x'},
	51: {"AT_MINSIGSTKSZ", "Minimum stack size for signal delivery", 'x'},
}

// infoAuxv is gdb's info auxv: the program's auxiliary vector, an entry a line.
func (d *Debugger) infoAuxv() {
	ar, ok := d.s.Target().(engine.AuxvReader)
	if !ok || !d.live() {
		d.fail("The program has no auxiliary information now.\n")
		return
	}
	entries, err := ar.Auxv()
	if err != nil {
		d.fail("%s\n", explain(err))
		return
	}
	for _, e := range entries {
		a, known := auxvEntries[e[0]]
		if !known {
			a = auxvEntry{"???", "", 'x'}
		}
		value := fmt.Sprintf("%#x", e[1])
		switch a.how {
		case 'd':
			value = strconv.FormatUint(e[1], 10)
		case 's':
			if b, ended, ok := d.cString(e[1], 4096); ok && ended {
				value += " " + cstring.Quote(b)
			}
		}
		d.printf("%-4d %-20s %-30s %s\n", e[0], a.name, a.desc, value)
	}
}
