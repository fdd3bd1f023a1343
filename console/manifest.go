package console

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/polydbg/polydbg/internal/fileload"
)

// Magic is the manifest's magic string and CartridgeVersion the only version understood.
const (
	Magic            = "PMTU"
	CartridgeVersion = 1
)

// Manifest is a cartridge's manifest.json.
type Manifest struct {
	Magic            string `json:"magic"`
	CartridgeVersion int    `json:"cartridge_version"`
	AppID            int64  `json:"app_id"`
	Title            string `json:"title"`
	AppVersion       string `json:"app_version"`
	AppMode          string `json:"app_mode"` // "Game" or "System"
	Entrypoint       string `json:"entrypoint"`
	Limits           Limits `json:"limits"`
}

// Limits are the certification limits. Each one is a rule; CyclesPerFrame is also the
// frame's cycle budget. The manifest may set any of them; the others keep their default.
type Limits struct {
	CyclesPerFrame   int64 `json:"cycles_per_frame"`
	SyscallsPerFrame int64 `json:"syscalls_per_frame"`
	HeapValues       int64 `json:"heap_values"`
	LogsPerFrame     int64 `json:"logs_per_frame"`
}

// DefaultLimits are the limits of a manifest that sets none.
var DefaultLimits = Limits{
	CyclesPerFrame:   200_000,
	SyscallsPerFrame: 4_096,
	HeapValues:       65_536,
	LogsPerFrame:     16,
}

// MaxCyclesPerFrame bounds the budget a manifest may ask for.
const MaxCyclesPerFrame = 100_000_000

// Rule names of the certification limits, as cert events name them.
const (
	RuleCycles   = "cycles_per_frame"
	RuleSyscalls = "syscalls_per_frame"
	RuleHeap     = "heap_values"
	RuleLogs     = "logs_per_frame"
)

// ManifestError lists every problem found in a manifest, one per line.
type ManifestError struct {
	File     string
	Problems []string
}

func (e *ManifestError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.File + ": " + p)
	}
	return b.String()
}

// ReadManifest reads and validates dir/manifest.json. A manifest with problems returns a
// *ManifestError naming each of them.
func ReadManifest(dir string) (*Manifest, error) {
	file := filepath.Join(dir, "manifest.json")
	data, err := fileload.ReadFile(file)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s is not a cartridge: no manifest.json", dir)
		}
		return nil, err
	}
	m, problems := parseManifest(data, dir)
	if len(problems) > 0 {
		return nil, &ManifestError{File: file, Problems: problems}
	}
	return m, nil
}

// ParseManifest validates a manifest's text; dir is the cartridge directory the
// entrypoint must exist in ("" skips that check).
func ParseManifest(data []byte, dir string) (*Manifest, error) {
	m, problems := parseManifest(data, dir)
	if len(problems) > 0 {
		return nil, &ManifestError{File: "manifest.json", Problems: problems}
	}
	return m, nil
}

func parseManifest(data []byte, dir string) (*Manifest, []string) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return nil, []string{"not a JSON object: " + err.Error()}
	}
	if raw == nil {
		return nil, []string{"not a JSON object"}
	}
	m := &Manifest{Limits: DefaultLimits}
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	str := func(key string, dst *string) bool {
		v, ok := raw[key]
		if !ok {
			bad("%s is missing", key)
			return false
		}
		if err := json.Unmarshal(v, dst); err != nil {
			bad("%s must be a string, got %s", key, short(v))
			return false
		}
		return true
	}
	integer := func(key string, v json.RawMessage, dst *int64) bool {
		var x any
		d := json.NewDecoder(bytes.NewReader(v))
		d.UseNumber()
		f, isNum := x.(json.Number)
		if err := d.Decode(&x); err == nil {
			f, isNum = x.(json.Number)
		}
		if !isNum {
			bad("%s must be an integer, got %s", key, short(v))
			return false
		}
		n, err := f.Int64()
		if err != nil {
			bad("%s must be an integer, got %s", key, short(v))
			return false
		}
		*dst = n
		return true
	}

	if str("magic", &m.Magic) && m.Magic != Magic {
		bad("magic must be %q, got %q", Magic, m.Magic)
	}
	if v, ok := raw["cartridge_version"]; !ok {
		bad("cartridge_version is missing")
	} else {
		var n int64
		if integer("cartridge_version", v, &n) {
			m.CartridgeVersion = int(n)
			if n != CartridgeVersion {
				bad("cartridge_version %d is not supported (this runtime reads version %d)", n, CartridgeVersion)
			}
		}
	}
	if v, ok := raw["app_id"]; !ok {
		bad("app_id is missing")
	} else if integer("app_id", v, &m.AppID) && m.AppID <= 0 {
		bad("app_id must be a positive integer, got %d", m.AppID)
	}
	if str("title", &m.Title) && strings.TrimSpace(m.Title) == "" {
		bad("title is empty")
	}
	if str("app_version", &m.AppVersion) && strings.TrimSpace(m.AppVersion) == "" {
		bad("app_version is empty")
	}
	if str("app_mode", &m.AppMode) && m.AppMode != "Game" && m.AppMode != "System" {
		bad("app_mode must be \"Game\" or \"System\", got %q", m.AppMode)
	}
	if str("entrypoint", &m.Entrypoint) {
		switch {
		case m.Entrypoint == "":
			bad("entrypoint is empty")
		case filepath.IsAbs(m.Entrypoint) || strings.HasPrefix(filepath.Clean(m.Entrypoint), ".."):
			bad("entrypoint %q must be a path inside the cartridge", m.Entrypoint)
		case dir != "":
			if st, err := os.Stat(filepath.Join(dir, m.Entrypoint)); err != nil {
				bad("entrypoint %q does not exist", m.Entrypoint)
			} else if st.IsDir() {
				bad("entrypoint %q is a directory", m.Entrypoint)
			}
		}
	}
	if v, ok := raw["limits"]; ok {
		var lim map[string]json.RawMessage
		if err := json.Unmarshal(v, &lim); err != nil || lim == nil {
			bad("limits must be an object, got %s", short(v))
		} else {
			fields := map[string]*int64{
				RuleCycles: &m.Limits.CyclesPerFrame, RuleSyscalls: &m.Limits.SyscallsPerFrame,
				RuleHeap: &m.Limits.HeapValues, RuleLogs: &m.Limits.LogsPerFrame,
			}
			keys := make([]string, 0, len(lim))
			for k := range lim {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				dst, known := fields[k]
				if !known {
					bad("limits.%s is not a known limit (known: %s, %s, %s, %s)", k, RuleCycles, RuleSyscalls, RuleHeap, RuleLogs)
					continue
				}
				var n int64
				if !integer("limits."+k, lim[k], &n) {
					continue
				}
				if n <= 0 {
					bad("limits.%s must be a positive integer, got %d", k, n)
					continue
				}
				if k == RuleCycles && n > MaxCyclesPerFrame {
					bad("limits.%s must be at most %d, got %d", k, MaxCyclesPerFrame, n)
					continue
				}
				*dst = n
			}
		}
	}
	return m, problems
}

func short(v json.RawMessage) string {
	s := string(v)
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return s
}
