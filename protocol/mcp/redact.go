package mcp

import (
	"encoding/json"
	"os"
	"regexp"
	"sort"
	"strings"
)

// redactor removes secrets from what the server sends an agent: the values of environment
// variables whose names look secret (a program that prints its environment, a variable
// holding a token), and strings shaped like keys wherever they appear.
type redactor struct {
	on      bool
	secrets []secret // longest value first
	escaped bool     // a secret has characters JSON escapes: only the JSON walk finds it
}

type secret struct{ name, value string }

// keyShapes are strings that look like credentials whatever their context.
var keyShapes = regexp.MustCompile(`` +
	`-----BEGIN [A-Z ]*PRIVATE KEY-----[^"]*?-----END [A-Z ]*PRIVATE KEY-----` +
	`|\bAKIA[0-9A-Z]{16}\b` +
	`|\bgh[pousr]_[A-Za-z0-9]{30,}\b` +
	`|\bgithub_pat_[A-Za-z0-9_]{30,}\b` +
	`|\bsk-[A-Za-z0-9_-]{20,}\b` +
	`|\bxox[abprs]-[A-Za-z0-9-]{10,}\b` +
	`|\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b`)

// keyAssignment is "password=..." and the like: the name stays, the value goes.
var keyAssignment = regexp.MustCompile(`(?i)\b((?:api[_-]?key|secret|token|passw(?:or)?d|credentials?|private[_-]?key)[A-Za-z0-9_]*\s*[:=]\s*)([^\s"'\\,;]{4,})`)

// secretName says whether an environment variable's name looks like it holds a secret.
var secretName = regexp.MustCompile(`(?i)(key|secret|token|passw|credential|auth|cookie|session)`)

func newRedactor(on bool) *redactor {
	r := &redactor{on: on}
	if !on {
		return r
	}
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		if len(value) >= 6 && secretName.MatchString(name) {
			r.secrets = append(r.secrets, secret{name, value})
		}
	}
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i].value) > len(r.secrets[j].value) })
	for _, sec := range r.secrets {
		if b, _ := json.Marshal(sec.value); string(b) != `"`+sec.value+`"` {
			r.escaped = true
		}
	}
	return r
}

// text redacts one string.
func (r *redactor) text(s string) string {
	if !r.on {
		return s
	}
	for _, sec := range r.secrets {
		if strings.Contains(s, sec.value) {
			s = strings.ReplaceAll(s, sec.value, "[redacted $"+sec.name+"]")
		}
	}
	s = keyShapes.ReplaceAllString(s, "[redacted key]")
	return keyAssignment.ReplaceAllString(s, "${1}[redacted]")
}

// matches says whether s holds anything text would redact.
func (r *redactor) matches(s string) bool {
	for _, sec := range r.secrets {
		if strings.Contains(s, sec.value) {
			return true
		}
	}
	return keyShapes.MatchString(s) || keyAssignment.MatchString(s)
}

// jsonOrText redacts a JSON document string by string (keeping it valid JSON), or plain
// text when it is not JSON.
func (r *redactor) jsonOrText(s string) string {
	if !r.escaped && !strings.Contains(s, `\u`) && !r.matches(s) {
		return s // nothing to redact, and no escape that could hide something
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return r.text(s)
	}
	v = r.walk(v)
	b, err := json.Marshal(v)
	if err != nil {
		return r.text(s)
	}
	return string(b)
}

func (r *redactor) walk(v any) any {
	switch x := v.(type) {
	case string:
		return r.text(x)
	case []any:
		for i := range x {
			x[i] = r.walk(x[i])
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[r.text(k)] = r.walk(e)
		}
		return out
	}
	return v
}
