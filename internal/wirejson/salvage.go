package wirejson

import (
	"bytes"
	"strconv"
)

// A line that is not JSON (cut short, or broken further on) may still name the command it
// was: an error answer that repeats its name or number tells the client which one failed.

// SalvageWord returns the letters of the first `"key": "word"` in data, which need not be
// JSON (a word of 1 to 40 ASCII letters, closed by its quote).
func SalvageWord(data []byte, key string) (word string, ok bool) {
	eachValue(data, key, func(v []byte) bool {
		if len(v) < 2 || v[0] != '"' {
			return false
		}
		end := 1 + bytes.IndexByte(v[1:], '"') // the closing quote
		if end < 2 || end > 41 {
			return false
		}
		for _, c := range v[1:end] {
			if c < 'A' || c > 'Z' && c < 'a' || c > 'z' {
				return false
			}
		}
		word, ok = string(v[1:end]), true
		return true
	})
	return word, ok
}

// SalvageInt returns the first `"key": N` in data, which need not be JSON (1 to 9 digits,
// followed by a comma, a brace or white space).
func SalvageInt(data []byte, key string) (n int, ok bool) {
	eachValue(data, key, func(v []byte) bool {
		d := 0
		for d < len(v) && v[d] >= '0' && v[d] <= '9' {
			d++
		}
		if d == 0 || d > 9 || d == len(v) || bytes.IndexByte([]byte(", }\t\r\n"), v[d]) < 0 {
			return false
		}
		n, _ = strconv.Atoi(string(v[:d]))
		ok = true
		return true
	})
	return n, ok
}

// eachValue calls f with data from the value of each `"key"` followed by a colon (white
// space around it skipped), until f reports it found what it looks for.
func eachValue(data []byte, key string, f func(v []byte) bool) {
	quoted := []byte(`"` + key + `"`)
	for {
		j := bytes.Index(data, quoted)
		if j < 0 {
			return
		}
		data = data[j+len(quoted):]
		rest := bytes.TrimLeft(data, " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' && f(bytes.TrimLeft(rest[1:], " \t\r\n")) {
			return
		}
	}
}
