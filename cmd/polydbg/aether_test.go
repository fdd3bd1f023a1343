package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/internal/firmware"
	"github.com/polydbg/polydbg/internal/realparts"
	"github.com/polydbg/polydbg/internal/testbin"
	pb "github.com/polydbg/polydbg/protocol/aether/aetherpb"
)

// aetherCallTimeout bounds every call of these tests, so that a regression fails fast.
const aetherCallTimeout = 20 * time.Second

// polydbgBinary builds the polydbg binary once for the tests that run it as a process.
func polydbgBinary(t *testing.T) string { return testbin.Polydbg(t) }

// aetherServe starts `polydbg aether serve args...` and returns the address it serves on.
// The process is stopped with SIGTERM at the end of the test, which checks its exit.
func aetherServe(t *testing.T, args ...string) string {
	t.Helper()
	addr, _ := aetherServeLog(t, args...)
	return addr
}

// aetherServeLog is aetherServe that also returns what the process printed so far.
func aetherServeLog(t *testing.T, args ...string) (string, func() string) {
	t.Helper()
	cmd := exec.Command(polydbgBinary(t), append([]string{"aether", "serve", "--listen", "127.0.0.1:0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addrc := make(chan string, 1)
	var logMu sync.Mutex
	var log strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logMu.Lock()
			log.WriteString(sc.Text() + "\n")
			logMu.Unlock()
			if a, ok := strings.CutPrefix(sc.Text(), "aether: serving on "); ok {
				addrc <- a
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				logMu.Lock()
				t.Errorf("aether serve ended with %v\n%s", err, log.String())
				logMu.Unlock()
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-exited
			t.Error("aether serve did not end within 30 s of SIGTERM")
		}
	})
	printed := func() string {
		logMu.Lock()
		defer logMu.Unlock()
		return log.String()
	}
	select {
	case a := <-addrc:
		return a, printed
	case err := <-exited:
		logMu.Lock()
		defer logMu.Unlock()
		t.Fatalf("aether serve ended before serving: %v\n%s", err, log.String())
	case <-time.After(60 * time.Second):
		logMu.Lock()
		defer logMu.Unlock()
		t.Fatalf("aether serve did not serve within 60 s\n%s", log.String())
	}
	return "", printed
}

// callTimeout gives every unary call of a client a deadline.
func callTimeout() grpc.DialOption {
	return grpc.WithUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		ctx, cancel := context.WithTimeout(ctx, aetherCallTimeout)
		defer cancel()
		return invoker(ctx, method, req, reply, cc, opts...)
	})
}

func aetherClient(t *testing.T, addr string, creds credentials.TransportCredentials) pb.AetherDebugClient {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds), callTimeout())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return pb.NewAetherDebugClient(conn)
}

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key; it returns their
// paths and a pool that trusts the certificate.
func selfSigned(t *testing.T) (string, string, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "polydbg test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certPath, keyPath := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return certPath, keyPath, pool
}

// buildAetherFirmware builds the Aether tests' firmware for the lm3s6965's Cortex-M3.
func buildAetherFirmware(t *testing.T) string { return firmware.BuildRTT(t) }

func TestAetherServeUsage(t *testing.T) {
	var cases = []struct {
		args []string
		code int
	}{
		{[]string{}, 2},
		{[]string{"serve", "--listen", "0.0.0.0:0", "--gdb", "127.0.0.1:1", "--elf", "x"}, 2}, // beyond loopback without a token
		{[]string{"serve", "--listen", "nonsense", "--gdb", "127.0.0.1:1"}, 2},
		{[]string{"serve", "--listen", "127.0.0.1:0", "--elf", "x"}, 1},                                        // no target
		{[]string{"serve", "--listen", "127.0.0.1:0", "--gdb", "127.0.0.1:1", "--qemu", "m", "--elf", "x"}, 1}, // two
		{[]string{"serve", "--listen", "127.0.0.1:0", "--svd", "/nonexistent.svd", "--gdb", "127.0.0.1:1"}, 1},
		{[]string{"serve", "--token-file", "/nonexistent-token", "--gdb", "127.0.0.1:1"}, 2},
	}
	for _, c := range cases {
		if got := runAether(c.args); got != c.code {
			t.Errorf("aether %v = %d, want %d", c.args, got, c.code)
		}
	}
}

// The binary serves QEMU over TLS with a token: a Go client connects, GetStatus, Halt.
func TestAetherServeQEMUWithTLS(t *testing.T) {
	realparts.Need(t, "qemu-system-arm")
	fw := buildAetherFirmware(t)
	certPath, keyPath, pool := selfSigned(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tokenFile, []byte("tok-42\n"), 0o600)
	addr := aetherServe(t, "--elf", fw, "--qemu", "lm3s6965evb", "--svd", "../../backend/mcu/svd/testdata/lm3s6965.svd",
		"--token-file", tokenFile, "--tls-cert", certPath, "--tls-key", keyPath)
	creds := credentials.NewTLS(&tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12})
	cl := aetherClient(t, addr, creds)
	ctx := context.Background()
	if _, err := cl.GetStatus(ctx, &pb.Empty{}); status.Code(err) != codes.Unauthenticated {
		t.Errorf("GetStatus without the token: %v", err)
	}
	ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer tok-42")
	st, err := cl.GetStatus(ctx, &pb.Empty{})
	if err != nil || !st.Halted || st.FunctionName != "Reset_Handler" {
		t.Fatalf("GetStatus = %v, %v", st, err)
	}
	if _, err := cl.Resume(ctx, &pb.Empty{}); err != nil {
		t.Fatal(err)
	}
	st, err = cl.Halt(ctx, &pb.Empty{})
	if err != nil || !st.Halted || st.Reason != "pause" || st.Pc == 0 {
		t.Fatalf("Halt = %v, %v", st, err)
	}
	did0, err := cl.ReadPeripheral(ctx, &pb.PeripheralRequest{Peripheral: "SYSCTL", Register: "ID.DID0"})
	if err != nil || did0.Value != 0x10010002 {
		t.Errorf("DID0 = %v, %v", did0, err)
	}
	// a client that does not speak TLS gets nowhere
	plain := aetherClient(t, addr, insecure.NewCredentials())
	if _, err := plain.GetStatus(ctx, &pb.Empty{}); status.Code(err) != codes.Unavailable {
		t.Errorf("a plain-text client: %v", err)
	}
}

const aetherThreadsProg = `#define _GNU_SOURCE
#include <pthread.h>
#include <unistd.h>
static pthread_barrier_t started;
static void *worker(void *name) {
	pthread_setname_np(pthread_self(), (const char *)name);
	pthread_barrier_wait(&started);
	for (;;) pause();
	return 0;
}
int ready(int n) {
	return n + 1; /* the threads are up */
}
int main(void) {
	pthread_t a, b;
	pthread_barrier_init(&started, 0, 3);
	pthread_create(&a, 0, worker, "sensor");
	pthread_create(&b, 0, worker, "logger");
	pthread_barrier_wait(&started);
	return ready(2) == 3 ? 0 : 1;
}
`

// The binary serves a Linux program under gdbserver: GetStack, and GetTasks lists its
// threads by name.
func TestAetherServeNative(t *testing.T) {
	realparts.Need(t, "gcc", "gdbserver")
	dir := t.TempDir()
	src := filepath.Join(dir, "threads.c")
	os.WriteFile(src, []byte(aetherThreadsProg), 0o644)
	prog := filepath.Join(dir, "threads")
	if out, err := exec.Command("gcc", "-g", "-O0", "-no-pie", "-pthread", "-o", prog, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	sym, err := elfsym.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	defer sym.Close()
	bp, err := sym.FuncBreakpoint("ready")
	if err != nil {
		t.Fatal(err)
	}
	addr := aetherServe(t, "--native", prog)
	cl := aetherClient(t, addr, insecure.NewCredentials())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	events, err := cl.SubscribeEvents(ctx, &pb.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := events.Header(); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.SetBreakpoint(ctx, &pb.BreakpointRequest{Address: bp}); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Resume(ctx, &pb.Empty{}); err != nil {
		t.Fatal(err)
	}
	for {
		e, err := events.Recv()
		if err != nil {
			t.Fatalf("no halted event: %v", err)
		}
		if h := e.GetHalted(); h != nil {
			if h.Pc != bp || h.Reason != "breakpoint" {
				t.Fatalf("halted %v, want the breakpoint at %#x", h, bp)
			}
			break
		}
	}
	stack, err := cl.GetStack(ctx, &pb.Empty{})
	if err != nil || len(stack.Frames) < 2 || stack.Frames[0].FunctionName != "ready" || stack.Frames[1].FunctionName != "main" ||
		!strings.HasSuffix(stack.Frames[0].File, "threads.c") || stack.Frames[0].Line != 12 {
		t.Fatalf("GetStack = %v, %v", stack, err)
	}
	tasks, err := cl.GetTasks(ctx, &pb.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tk := range tasks.Tasks {
		names[tk.Name] = true
		if tk.TaskType != "thread" || tk.Handle == 0 {
			t.Errorf("task %v", tk)
		}
	}
	if len(tasks.Tasks) != 3 || !names["threads"] || !names["sensor"] || !names["logger"] {
		t.Errorf("GetTasks = %v", tasks)
	}
	// Reset starts the program again, halted at its entry, with its breakpoint kept
	st, err := cl.Reset(ctx, &pb.Empty{})
	if err != nil || !st.Halted || st.Reason != "reset" || st.Pc != sym.Entry() {
		t.Fatalf("Reset = %v, %v (entry %#x)", st, err, sym.Entry())
	}
	if _, err := cl.Resume(ctx, &pb.Empty{}); err != nil {
		t.Fatal(err)
	}
	for {
		e, err := events.Recv()
		if err != nil {
			t.Fatalf("no halted event after the reset: %v", err)
		}
		if h := e.GetHalted(); h != nil && h.Reason != "reset" {
			if h.Pc != bp || h.Reason != "breakpoint" {
				t.Fatalf("halted %v after the reset, want the breakpoint at %#x", h, bp)
			}
			break
		}
	}
}
