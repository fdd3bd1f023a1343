package main

// `polydbg lantern push`: uploading a program (a file, or a directory as a bundle).

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

func (l *lanternCLI) push(fs *flag.FlagSet, args []string) (int, error) {
	execPath := fs.String("exec", "", "bundle (directory): the executable, relative to the directory")
	progArgs := fs.String("args", "", "arguments of the program")
	var env multiFlag
	fs.Var(&env, "env", "K=V environment variable of the program (repeatable)")
	start := fs.Bool("start", false, "start the program after the upload")
	debug := fs.Bool("debug", false, "start it under gdbserver (implies --start)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return 2, err
	}
	if len(pos) != 1 {
		return 2, errors.New(`usage: polydbg lantern push FILE|DIR [--exec PATH] [--args "..."] [--env K=V]... [--start] [--debug]`)
	}
	path := pos[0]
	fi, err := os.Stat(path)
	if err != nil {
		return 1, err
	}
	var payload io.Reader
	var size int64
	if fi.IsDir() {
		if *execPath == "" {
			return 2, errors.New("a directory is sent as a bundle: say which file runs with --exec PATH")
		}
		var buf bytes.Buffer
		if err := packDir(&buf, path); err != nil {
			return 1, err
		}
		payload, size = &buf, int64(buf.Len())
	} else {
		if *execPath != "" {
			return 2, errors.New("--exec is for directories (bundles)")
		}
		f, err := os.Open(path)
		if err != nil {
			return 1, err
		}
		defer f.Close()
		payload, size = f, fi.Size()
	}
	c, err := l.dial()
	if err != nil {
		return 1, err
	}
	defer c.Close()
	prog := newProgress(l.stderr, writesToTerminal(l.stderr), "push "+filepath.Base(path), size, time.Now())
	prog.start()
	id, err := c.Upload(prog.reader(payload), size, filepath.ToSlash(*execPath))
	prog.finish(time.Now())
	if err != nil {
		return 1, err
	}
	if *progArgs != "" {
		if _, err := c.Do("ARGS " + id + " " + *progArgs); err != nil {
			return 1, err
		}
	}
	for _, kv := range env {
		if _, err := c.Do("ENV " + id + " " + kv); err != nil {
			return 1, err
		}
	}
	if !*start && !*debug {
		fmt.Fprintln(l.stdout, id)
		return 0, nil
	}
	line := "START " + id
	if *debug {
		line += " --debug"
	}
	s, err := c.Session(line)
	if err != nil {
		return 1, err
	}
	fmt.Fprintln(l.stdout, id)
	if s.DebugPort != nil {
		host, _, _ := net.SplitHostPort(l.addr)
		fmt.Fprintf(l.stderr, "gdbserver listens on %s; run: polydbg lantern gdb %s %s\n", net.JoinHostPort(host, strconv.Itoa(*s.DebugPort)), id, path)
	}
	return 0, nil
}

// packDir writes dir as a tar.gz whose entries are relative to dir: regular files,
// directories, and symbolic links as they are.
func packDir(w io.Writer, dir string) error {
	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		link := ""
		if fi.Mode()&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(p); err != nil {
				return err
			}
		} else if !fi.Mode().IsRegular() && !fi.IsDir() {
			return nil // sockets, devices...: not part of a program
		}
		hdr, err := tar.FileInfoHeader(fi, link)
		if err != nil {
			return err
		}
		hdr.Name = filepath.ToSlash(rel)
		if fi.IsDir() {
			hdr.Name += "/"
		}
		hdr.Uname, hdr.Gname, hdr.Uid, hdr.Gid = "", "", 0, 0
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if fi.Mode().IsRegular() {
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			if _, err := io.Copy(tw, f); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

// writesToTerminal reports whether w is a terminal (for the progress bar).
func writesToTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTerminal(f)
}
