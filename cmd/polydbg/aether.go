package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/polydbg/polydbg/launch"
	"github.com/polydbg/polydbg/protocol/aether"
)

func init() {
	register(&command{name: "aether", summary: "serve the Aether gRPC agent interface (aether serve --elf FILE --qemu MACHINE | --gdb HOST:PORT | --native PROG)", run: runAether})
}

type aetherMultiFlag []string

func (m *aetherMultiFlag) String() string     { return fmt.Sprint(*m) }
func (m *aetherMultiFlag) Set(v string) error { *m = append(*m, v); return nil }

func runAether(args []string) int {
	if len(args) == 0 || args[0] != "serve" {
		fmt.Fprintln(os.Stderr, "usage: polydbg aether serve [--listen 127.0.0.1:50051] [--web ADDR] --elf FILE [--svd FILE] (--gdb HOST:PORT | --qemu MACHINE | --native PROG [-- ARGS])")
		return 2
	}
	fs := flag.NewFlagSet("aether serve", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:50051", "address to serve on")
	elfPath := fs.String("elf", "", "firmware or program (ELF with DWARF)")
	svdPath := fs.String("svd", "", "CMSIS-SVD file of the device")
	gdbAddr := fs.String("gdb", "", "HOST:PORT of a running GDB stub")
	qemu := fs.String("qemu", "", "start qemu-system-arm with this machine")
	native := fs.String("native", "", "start this Linux program under gdbserver")
	var serial aetherMultiFlag
	fs.Var(&serial, "qemu-serial", "QEMU -serial backend, once per UART in order")
	run := fs.Bool("run", false, "let the program run at once")
	poll := fs.Duration("poll", aether.DefaultPollPeriod, "RTT polling period while running (0 disables RTT)")
	rttAddr := fs.String("rtt-addr", "", "address of the RTT control block")
	timeout := fs.Duration("timeout", aether.DefaultSyncTimeout, "limit of the synchronous calls")
	token := fs.String("token", os.Getenv("POLYDBG_AETHER_TOKEN"), "require authorization: Bearer TOKEN (visible to other users in ps: prefer --token-file or $POLYDBG_AETHER_TOKEN)")
	tokenFile := fs.String("token-file", "", "read the token from this file (its first line)")
	webAddr := webFlag(fs)
	cert := fs.String("tls-cert", "", "TLS certificate file")
	key := fs.String("tls-key", "", "TLS key file")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if *tokenFile != "" {
		b, err := os.ReadFile(*tokenFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "aether:", err)
			return 2
		}
		line, _, _ := strings.Cut(string(b), "\n")
		if *token = strings.TrimSpace(line); *token == "" {
			fmt.Fprintln(os.Stderr, "aether: the token file is empty")
			return 2
		}
	}
	host, _, err := net.SplitHostPort(*listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "aether:", err)
		return 2
	}
	if ip := net.ParseIP(host); (ip == nil || !ip.IsLoopback()) && host != "localhost" && *token == "" {
		fmt.Fprintln(os.Stderr, "aether: listening beyond loopback needs --token-file, --token or $POLYDBG_AETHER_TOKEN")
		return 2
	}
	var ra uint64
	if *rttAddr != "" {
		if ra, err = strconv.ParseUint(*rttAddr, 0, 64); err != nil {
			fmt.Fprintln(os.Stderr, "aether: --rtt-addr:", err)
			return 2
		}
	}
	spec, err := aetherSpec(*gdbAddr, *qemu, *native, *elfPath, fs.Args(), serial)
	if err != nil {
		fmt.Fprintln(os.Stderr, "aether:", err)
		return 1
	}
	spec.SVD = *svdPath
	spec.MCU = launch.MCUOptions{PollPeriod: *poll, RTTAddress: ra}
	if *poll == 0 {
		spec.MCU.PollPeriod = -1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	d, err := launch.Start(ctx, spec)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "aether:", strings.TrimPrefix(err.Error(), "launch: "))
		return 1
	}
	srv, err := aether.New(aether.Config{Debuggee: d, SyncTimeout: *timeout, Token: *token, Run: *run})
	if err != nil {
		d.Close()
		fmt.Fprintln(os.Stderr, "aether:", err)
		return 1
	}
	name := spec.ELF
	if name == "" {
		name = spec.Program
	}
	defer launch.Sessions.Remove(launch.Sessions.Add(d, filepath.Base(name), "aether").ID)
	defer srv.Close()
	stopWeb, err := startWeb(*webAddr, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "aether:", err)
		return 1
	}
	defer stopWeb()
	opts := srv.ServerOptions()
	if *cert != "" || *key != "" {
		c, err := tls.LoadX509KeyPair(*cert, *key)
		if err != nil {
			fmt.Fprintln(os.Stderr, "aether:", err)
			return 1
		}
		opts = append(opts, grpc.Creds(credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{c}, MinVersion: tls.VersionTLS12})))
	}
	g := grpc.NewServer(opts...)
	srv.Register(g)
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "aether:", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "aether: serving on %s\n", l.Addr())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-sig:
		case <-srv.Session().Done():
		}
		g.Stop()
	}()
	if err := g.Serve(l); err != nil {
		fmt.Fprintln(os.Stderr, "aether:", err)
		return 1
	}
	return 0
}

// aetherSpec is the launch spec of exactly one of --gdb, --qemu and --native.
func aetherSpec(gdb, qemu, native, elf string, args, serial []string) (launch.Spec, error) {
	n := 0
	for _, s := range []string{gdb, qemu, native} {
		if s != "" {
			n++
		}
	}
	switch {
	case n != 1:
		return launch.Spec{}, errors.New("give exactly one of --gdb, --qemu and --native")
	case native != "":
		return launch.Spec{Kind: launch.Native, Program: native, Args: args, ELF: elf}, nil
	case elf == "":
		return launch.Spec{}, errors.New("--elf is required")
	case qemu != "":
		return launch.Spec{Kind: launch.QEMU, Machine: qemu, ELF: elf, QEMUSerial: serial}, nil
	}
	return launch.Spec{Kind: launch.Remote, Address: gdb, ELF: elf}, nil
}
