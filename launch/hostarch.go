package launch

import (
	"debug/elf"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
)

// hostMachines are the ELF machines this machine's processor runs, by GOARCH.
var hostMachines = map[string][]elf.Machine{
	"amd64":   {elf.EM_X86_64, elf.EM_386},
	"386":     {elf.EM_386},
	"arm64":   {elf.EM_AARCH64, elf.EM_ARM},
	"arm":     {elf.EM_ARM},
	"riscv64": {elf.EM_RISCV},
}

// CheckRunsHere refuses an ELF executable built for another processor (firmware for a
// microcontroller, most often) before gdbserver tries to run it, saying what to use instead;
// Start checks it for a native program, a front end may check earlier to say more.
// A file that is not an ELF, or a processor it does not know, passes: the launch says why.
func CheckRunsHere(path string) error {
	file, err := openRegular(path)
	if err != nil {
		return nil
	}
	defer file.Close()
	f, err := elf.NewFile(file)
	if err != nil {
		return nil
	}
	want, known := hostMachines[runtime.GOARCH]
	if !known {
		return nil
	}
	for _, m := range want {
		if f.Machine == m {
			return nil
		}
	}
	return fmt.Errorf("launch: %s is a program for %s, not for this machine (%s): debug it in QEMU or through the GDB stub of the board it runs on",
		path, machineName(f.Machine), machineName(want[0]))
}

// machineName is an ELF machine as people say it ("ARM", "x86-64").
func machineName(m elf.Machine) string {
	switch m {
	case elf.EM_X86_64:
		return "x86-64"
	case elf.EM_AARCH64:
		return "AArch64"
	case elf.EM_RISCV:
		return "RISC-V"
	}
	return strings.TrimPrefix(m.String(), "EM_")
}

// openRegular opens path for reading if it is a regular file of any size, without blocking
// (a FIFO is refused, not waited for).
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return f, nil
}
