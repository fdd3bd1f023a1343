package main

// `polydbg lantern deps|sysroot|gdb`: the daemon host's dependencies and libraries, and gdb against a session.

import (
	"debug/elf"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/polydbg/polydbg/internal/tarball"
	"github.com/polydbg/polydbg/protocol/lantern"
)

func (l *lanternCLI) deps() (int, error) {
	c, err := l.dial()
	if err != nil {
		return 1, err
	}
	defer c.Close()
	var d lantern.Deps
	if err := c.DoInto("DEPS", &d); err != nil {
		return 1, err
	}
	tw := tabwriter.NewWriter(l.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tAVAILABLE\tREQUIRED\tDESCRIPTION")
	for _, x := range d.Deps {
		fmt.Fprintf(tw, "%s\t%v\t%v\t%s\n", x.Name, x.Available, x.Required, x.Description)
	}
	tw.Flush()
	if !d.AllSatisfied {
		return 1, errors.New("a required dependency is missing on the daemon's host")
	}
	return 0, nil
}

// sysroot fetches the daemon's sysroot and unpacks it into dir.
func (l *lanternCLI) sysroot(dir string) (int, error) {
	if err := fetchSysroot(l, dir); err != nil {
		return 1, err
	}
	fmt.Fprintln(l.stdout, dir)
	return 0, nil
}

func fetchSysroot(l *lanternCLI, dir string) error {
	c, err := l.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp("", "polydbg-sysroot-*.tar.gz")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if _, err := c.Sysroot(tmp); err != nil {
		return err
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err = tarball.Extract(tmp, dir, tarball.Limits{})
	if err != nil {
		return fmt.Errorf("unpacking the sysroot into %s (it should be empty): %w", dir, err)
	}
	return nil
}

// gdb runs gdb (gdb-multiarch for a binary of another architecture) connected to the
// session's gdbserver, with the daemon's libraries as its sysroot.
func (l *lanternCLI) gdb(fs *flag.FlagSet, args []string) (int, error) {
	sysroot := fs.String("sysroot", "", "use this sysroot instead of fetching the daemon's (cached per daemon)")
	refresh := fs.Bool("refresh-sysroot", false, "fetch the daemon's sysroot again")
	var extra []string
	for i, a := range args {
		if a == "--" {
			args, extra = args[:i], args[i+1:]
			break
		}
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return 2, err
	}
	if len(pos) < 1 || len(pos) > 2 {
		return 2, errors.New("usage: polydbg lantern gdb ID [FILE] [--sysroot DIR] [-- GDB-ARGS...]")
	}
	id, file := pos[0], ""
	if len(pos) == 2 {
		file = pos[1]
	}
	c, err := l.dial()
	if err != nil {
		return 1, err
	}
	s, err := c.Session("STATUS " + id)
	if err == nil && s.DebugPort == nil {
		if s.State != lantern.StateRunning {
			err = fmt.Errorf("session %s is %s: start it with `polydbg lantern start %s --debug`", id, s.State, id)
		} else {
			s, err = c.Session("DEBUG " + id) // attach gdbserver to the running program
		}
	}
	c.Close()
	if err != nil {
		return 1, err
	}
	if *sysroot == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		*sysroot = filepath.Join(cache, "polydbg", "lantern-sysroot", strings.NewReplacer(":", "_", "/", "_").Replace(l.addr))
		if *refresh {
			os.RemoveAll(*sysroot)
		}
		if ents, err := os.ReadDir(*sysroot); err != nil || len(ents) == 0 {
			fmt.Fprintf(l.stderr, "polydbg lantern: fetching the sysroot into %s\n", *sysroot)
			if err := fetchSysroot(l, *sysroot); err != nil {
				os.RemoveAll(*sysroot)
				return 1, err
			}
		}
	}
	gdb := "gdb"
	if file != "" && !nativeELF(file) {
		gdb = "gdb-multiarch"
	}
	if _, err := exec.LookPath(gdb); err != nil {
		return 1, fmt.Errorf("%s is not installed", gdb)
	}
	host, _, _ := net.SplitHostPort(l.addr)
	gargs := []string{"-q", "-ex", "set sysroot " + *sysroot, "-ex", "target remote " + net.JoinHostPort(host, strconv.Itoa(*s.DebugPort))}
	gargs = append(gargs, extra...)
	if file != "" {
		gargs = append(gargs, file)
	}
	cmd := exec.CommandContext(l.ctx, gdb, gargs...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = l.stdin, l.stdout, l.stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), nil
		}
		return 1, err
	}
	return 0, nil
}

// nativeELF reports whether file is an ELF for this host's architecture (or not an ELF at
// all, in which case plain gdb will say so).
func nativeELF(file string) bool {
	f, err := elf.Open(file)
	if err != nil {
		return true
	}
	defer f.Close()
	host := map[string]elf.Machine{"amd64": elf.EM_X86_64, "386": elf.EM_386, "arm64": elf.EM_AARCH64, "arm": elf.EM_ARM,
		"riscv64": elf.EM_RISCV, "ppc64le": elf.EM_PPC64, "s390x": elf.EM_S390, "loong64": elf.EM_LOONGARCH}[runtime.GOARCH]
	return host == 0 || f.Machine == host
}
