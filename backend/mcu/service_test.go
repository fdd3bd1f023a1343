package mcu

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polydbg/polydbg/backend/gdbremote"
	"github.com/polydbg/polydbg/backend/mcu/svd"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/firmware"
	"github.com/polydbg/polydbg/internal/realparts"
)

// recorder keeps the telemetry of one Watch.
type recorder struct {
	mu   sync.Mutex
	all  []engine.Telemetry
	wake chan struct{}
}

func (r *recorder) add(e engine.Telemetry) {
	r.mu.Lock()
	r.all = append(r.all, e)
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *recorder) mark() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.all)
}

// waitFor waits for a report after from that satisfies ok.
func (r *recorder) waitFor(t *testing.T, from int, what string, ok func(engine.Telemetry) bool) engine.Telemetry {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		r.mu.Lock()
		for ; from < len(r.all); from++ {
			if ok(r.all[from]) {
				e := r.all[from]
				r.mu.Unlock()
				return e
			}
		}
		r.mu.Unlock()
		select {
		case <-r.wake:
		case <-deadline:
			t.Fatalf("no %s", what)
		}
	}
}

// service starts the RTT firmware in QEMU with a session and the service on it.
func service(t *testing.T) (*Service, *engine.Session, *recorder) {
	realparts.Need(t, "qemu-system-arm")
	elf := firmware.BuildRTT(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tgt, err := gdbremote.StartQEMUWith(ctx, "lm3s6965evb", elf, gdbremote.QEMUOptions{}, gdbremote.Config{})
	if err != nil {
		t.Fatal(err)
	}
	dev, err := svd.ParseFile("svd/testdata/lm3s6965.svd")
	if err != nil {
		t.Fatal(err)
	}
	sess := engine.NewSession(tgt)
	t.Cleanup(func() { sess.Close() })
	s := New(sess, tgt, dev, Options{PollPeriod: 10 * time.Millisecond})
	rec := &recorder{wake: make(chan struct{}, 1)}
	stop := s.Watch(rec.add)
	t.Cleanup(stop)
	if err := sess.Start(false); err != nil {
		t.Fatal(err)
	}
	return s, sess, rec
}

func TestServiceOnQEMU(t *testing.T) {
	s, sess, rec := service(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	t.Run("rtt and plots", func(t *testing.T) {
		rec.waitFor(t, 0, "rtt greeting", func(e engine.Telemetry) bool {
			return e.Kind == engine.TelemetryRTT && e.Channel == 0 && strings.Contains(string(e.Data), "hello from rtt")
		})
		m := rec.mark()
		if n, err := s.WriteRTT(0, []byte("ping")); err != nil || n != 4 {
			t.Fatalf("WriteRTT = %d, %v", n, err)
		}
		rec.waitFor(t, m, "echo", func(e engine.Telemetry) bool {
			return e.Kind == engine.TelemetryRTT && strings.Contains(string(e.Data), "echo: ping")
		})
		rec.waitFor(t, 0, "plot line", func(e engine.Telemetry) bool { return e.Kind == engine.TelemetryPlot && e.Name == "wave" })
		if _, err := s.WriteRTT(7, []byte("x")); !errors.Is(err, engine.ErrInvalid) {
			t.Errorf("WriteRTT on channel 7: %v", err)
		}
	})

	t.Run("samples", func(t *testing.T) {
		m := rec.mark()
		if err := s.Sample("counter", 20*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		last := -1.0
		for range 3 {
			e := rec.waitFor(t, m, "counter plot", func(e engine.Telemetry) bool {
				return e.Kind == engine.TelemetryPlot && e.Name == "counter" && e.Value > last
			})
			last, m = e.Value, rec.mark()
		}
		v := rec.waitFor(t, 0, "counter variable", func(e engine.Telemetry) bool {
			return e.Kind == engine.TelemetryVariable && e.Name == "counter"
		})
		if !strings.HasSuffix(v.Type, "int32_t") || v.Addr == 0 || strings.TrimLeft(v.Text, "-0123456789") != "" {
			t.Errorf("variable %+v", v)
		}
		if err := s.Sample("nope", time.Second); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("Sample(nope): %v", err)
		}
		if err := s.Sample("pxReadyTasksLists", time.Second); !errors.Is(err, engine.ErrInvalid) {
			t.Errorf("Sample(an array): %v", err)
		}
		if err := s.Sample("counter", 0); err != nil {
			t.Error(err)
		}
		if err := s.Sample("counter", 0); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("stop sampling twice: %v", err)
		}
	})

	t.Run("tasks", func(t *testing.T) {
		e := rec.waitFor(t, 0, "task switch", func(e engine.Telemetry) bool { return e.Kind == engine.TelemetryTaskSwitch })
		if !(e.From == "IDLE" && e.To == "sensor" || e.From == "sensor" && e.To == "IDLE") {
			t.Errorf("switch %+v", e)
		}
		ts, err := s.Threads(ctx) // while running: a brief halt
		if err != nil || len(ts) != 4 {
			t.Fatalf("Threads = %+v, %v", ts, err)
		}
		names := map[string]string{}
		for _, th := range ts {
			names[th.Name] = th.State
			if th.Kind != "freertos" || th.ID == 0 || th.StackSize == 0 {
				t.Errorf("task %+v", th)
			}
		}
		if names["IDLE"] == "" || names["sensor"] == "" || names["console"] != "suspended" {
			t.Errorf("tasks %+v", ts)
		}
		if sess.State() != engine.Running {
			t.Errorf("the brief halts showed: %v", sess.State())
		}
	})

	t.Run("peripherals", func(t *testing.T) {
		did0, err := s.ReadPeripheral("SYSCTL", "ID.DID0")
		if err != nil || did0.Value != 0x10010002 || did0.Address != 0x400FE000 {
			t.Fatalf("DID0 = %+v, %v", did0, err)
		}
		enum := ""
		for _, f := range did0.Fields {
			if f.Name == "CLASS" {
				enum = f.Enum
			}
		}
		if enum != "FURY" {
			t.Errorf("DID0 fields %+v", did0.Fields)
		}
		ctl, err := s.WritePeripheral("UART1", "CTL", "UARTEN", 1)
		if err != nil || ctl.Value != 0x301 || len(ctl.Bytes) != 4 || ctl.Bytes[0] != 1 || ctl.Bytes[1] != 3 {
			t.Fatalf("CTL = %+v, %v", ctl, err)
		}
		if _, err := s.ReadPeripheral("UART9", "DR"); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("unknown peripheral: %v", err)
		}
		if _, err := s.WritePeripheral("UART0", "LCRH", "WLEN", 4); !errors.Is(err, engine.ErrInvalid) {
			t.Errorf("too wide a field value: %v", err)
		}
	})

	t.Run("reset seen by another subscriber", func(t *testing.T) {
		other := sess.Subscribe()
		defer sess.Unsubscribe(other)
		m := rec.mark()
		h, err := sess.Reset(ctx, true)
		if err != nil || h.Stop == nil || h.Stop.Reason != engine.ReasonReset || h.Stop.Location.Func != "Reset_Handler" {
			t.Fatalf("Reset = %+v, %v", h, err)
		}
		var kinds []engine.EventKind
		for {
			e, err := other.Next(ctx)
			if err != nil {
				t.Fatalf("after %v: %v", kinds, err)
			}
			kinds = append(kinds, e.Kind)
			if e.Kind == engine.EventStopped && e.Stop.Reason == engine.ReasonReset {
				break
			}
		}
		if len(kinds) < 2 || kinds[len(kinds)-2] != engine.EventReset {
			t.Errorf("the other subscriber saw %v", kinds)
		}
		// the service forgot the control block: the firmware's new greeting comes through
		if err := sess.Continue(); err != nil {
			t.Fatal(err)
		}
		rec.waitFor(t, m, "rtt greeting after the reset", func(e engine.Telemetry) bool {
			return e.Kind == engine.TelemetryRTT && strings.Contains(string(e.Data), "hello from rtt")
		})
	})
}
