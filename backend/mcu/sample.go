package mcu

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/backend/gdbremote"
	"github.com/polydbg/polydbg/engine"
)

// sampler holds the variables to sample and when.
type sampler struct {
	mu sync.Mutex
	vs map[string]*sampled
}

type sampled struct {
	name   string
	v      *elfsym.Var
	addr   uint64
	size   int
	period time.Duration
	next   time.Time
}

func newSampler() *sampler { return &sampler{vs: map[string]*sampled{}} }

// due returns the samples to take now.
func (w *sampler) due(now time.Time) []sampled {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []sampled
	for _, v := range w.vs {
		if !now.Before(v.next) {
			out = append(out, *v)
			v.next = now.Add(v.period)
		}
	}
	return out
}

// numeric are the value kinds (elfsym.Value.Kind) a sample can plot.
var numeric = map[string]bool{"int": true, "uint": true, "float": true, "char": true, "bool": true, "enum": true}

// Sample implements engine.Sampler: it samples the global variable name (an integer or a
// float) every period as plot telemetry, and as variable telemetry when its value changes;
// period 0 stops it.
func (s *Service) Sample(name string, period time.Duration) error {
	if period == 0 {
		s.vars.mu.Lock()
		_, ok := s.vars.vs[name]
		delete(s.vars.vs, name)
		s.vars.mu.Unlock()
		if !ok {
			return fmt.Errorf("%w: %q is not sampled", engine.ErrNotFound, name)
		}
		return nil
	}
	if period < time.Millisecond || period > time.Hour {
		return fmt.Errorf("%w: period %v is out of range", engine.ErrInvalid, period)
	}
	sym := s.t.Symbols()
	v, ok := sym.Global(name)
	if !ok {
		return fmt.Errorf("%w: no global variable %q in the ELF file", engine.ErrNotFound, name)
	}
	size := v.Size()
	probe := sym.FormatValue(v.Type, make([]byte, max(size, 0)), 0, false, nil, 0)
	if !numeric[probe.Kind] || size < 1 || size > 8 {
		return fmt.Errorf("%w: %s is a %s, not an integer or a float", engine.ErrInvalid, name, v.TypeName())
	}
	loc, err := sym.Locate(v, nil, nil)
	if err != nil || loc.Kind != elfsym.LocMemory {
		return fmt.Errorf("%w: %s has no static address", engine.ErrInvalid, name)
	}
	s.vars.mu.Lock()
	s.vars.vs[name] = &sampled{name: name, v: v, addr: loc.Addr, size: size, period: period}
	s.vars.mu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default:
	}
	return nil
}

// sample reads a variable, formats it as elfsym does for every front end, and publishes
// its value (last holds the previous texts by name).
func (s *Service) sample(m gdbremote.Access, w sampled, last map[string]string) {
	b, err := m.ReadMemory(w.addr, w.size)
	if err != nil || len(b) < w.size {
		return
	}
	val := s.t.Symbols().FormatValue(w.v.Type, b, w.addr, true, nil, 0)
	num, _, _ := strings.Cut(val.Text, " ") // a char is "65 'A'"
	x, err := strconv.ParseFloat(num, 64)
	switch {
	case val.Kind == "bool" && val.Text == "true":
		x = 1
	case err != nil:
		x = float64(gdbremote.Uint(b, s.t.Symbols().Arch.ByteOrder)) // an enum by name
	}
	s.publish(engine.Telemetry{Kind: engine.TelemetryPlot, Name: w.name, Value: x})
	if prev, ok := last[w.name]; !ok || prev != val.Text {
		last[w.name] = val.Text
		s.publish(engine.Telemetry{Kind: engine.TelemetryVariable, Name: w.name, Text: val.Text, Type: val.Type, Addr: w.addr})
	}
}
