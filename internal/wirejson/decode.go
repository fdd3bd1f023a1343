package wirejson

import (
	"encoding/json"
	"reflect"
	"strconv"
	"sync"
	"unicode/utf8"
)

// Unmarshal is json.Unmarshal with a fast path for a command line: an object whose keys
// each name a field of the struct v points to exactly, with values that are strings
// without escapes, integers, booleans, or (for a json.RawMessage field) any such value or
// an object of them. Whatever else goes to json.Unmarshal, so the result, and the error,
// are always encoding/json's.
func Unmarshal(data []byte, v any) error {
	if Decode(data, v) {
		return nil
	}
	return json.Unmarshal(data, v)
}

// Decode decodes data into v, a pointer to a struct, when data is an object of the simple
// shape Unmarshal describes, and reports whether it did. When it reports false, v may have
// been partly written: decode it again with encoding/json.
func Decode(data []byte, v any) bool {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return false
	}
	d := decoderOf(rv.Elem().Type())
	if d == nil {
		return false
	}
	// Scan all, then store: encoding/json leaves v as it was when data is not valid.
	var found [16]entry
	entries := found[:0]
	s := scanner{data: data}
	s.space()
	if !s.take('{') {
		return false
	}
	s.space()
	if !s.take('}') {
		for {
			s.space()
			key, ok := s.plainString()
			if !ok {
				return false
			}
			s.space()
			if !s.take(':') {
				return false
			}
			s.space()
			start := s.i
			kind, ok := s.value(1)
			if !ok {
				return false
			}
			f, ok := d[string(key)]
			if !ok || !f.set(reflect.Value{}, kind, data[start:s.i], true) {
				return false
			}
			entries = append(entries, entry{f, kind, data[start:s.i]})
			s.space()
			if s.take('}') {
				break
			}
			if !s.take(',') {
				return false
			}
		}
	}
	s.space()
	if !s.end() {
		return false
	}
	st := rv.Elem()
	for _, e := range entries {
		e.f.set(st.Field(e.f.index), e.kind, e.raw, false)
	}
	return true
}

type entry struct {
	f    fieldDecoder
	kind byte
	raw  []byte
}

type fieldDecoder struct {
	index int
	set   func(v reflect.Value, kind byte, raw []byte, dry bool) bool
}

var decoders sync.Map // reflect.Type -> map[string]fieldDecoder (nil: not handled)

var rawMessageType = reflect.TypeFor[json.RawMessage]()

func decoderOf(t reflect.Type) map[string]fieldDecoder {
	if d, ok := decoders.Load(t); ok {
		return d.(map[string]fieldDecoder)
	}
	d := map[string]fieldDecoder{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			d = nil
			break
		}
		if !sf.IsExported() {
			continue
		}
		name, opts := sf.Name, ""
		if tag := sf.Tag.Get("json"); tag != "" {
			if tag == "-" {
				continue
			}
			n, o, _ := cutComma(tag)
			if n != "" {
				name = n
			}
			opts = o
		}
		set := setter(sf.Type)
		if set == nil || opts == "string" {
			continue // such a key makes Decode give up (it is not in the map)
		}
		if _, dup := d[name]; dup {
			d = nil
			break
		}
		d[name] = fieldDecoder{index: i, set: set}
	}
	decoders.Store(t, d)
	return d
}

func cutComma(tag string) (string, string, bool) {
	for i := range len(tag) {
		if tag[i] == ',' {
			return tag[:i], tag[i+1:], true
		}
	}
	return tag, "", false
}

// setter stores a scanned value of the kind scanner.value reports into a field of type t
// (only checks, when dry), reporting false when encoding/json would do something else than a
// plain store.
func setter(t reflect.Type) func(v reflect.Value, kind byte, raw []byte, dry bool) bool {
	if t == rawMessageType {
		return func(v reflect.Value, kind byte, raw []byte, dry bool) bool {
			if kind == 'n' || dry {
				return kind != 'n'
			}
			v.SetBytes(append([]byte(nil), raw...))
			return true
		}
	}
	if t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) ||
		reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return nil
	}
	switch t.Kind() {
	case reflect.String:
		return func(v reflect.Value, kind byte, raw []byte, dry bool) bool {
			if kind != '"' || dry {
				return kind == '"'
			}
			v.SetString(string(raw[1 : len(raw)-1]))
			return true
		}
	case reflect.Bool:
		return func(v reflect.Value, kind byte, raw []byte, dry bool) bool {
			if kind != 't' && kind != 'f' || dry {
				return kind == 't' || kind == 'f'
			}
			v.SetBool(kind == 't')
			return true
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(v reflect.Value, kind byte, raw []byte, dry bool) bool {
			if kind != '0' {
				return false
			}
			n, err := strconv.ParseInt(string(raw), 10, 64)
			if err != nil || overflows(t, n) {
				return false
			}
			if !dry {
				v.SetInt(n)
			}
			return true
		}
	case reflect.Pointer:
		elem := setter(t.Elem())
		if elem == nil || t.Elem().Kind() == reflect.Pointer {
			return nil
		}
		return func(v reflect.Value, kind byte, raw []byte, dry bool) bool {
			if kind == 'n' || !elem(reflect.Value{}, kind, raw, true) {
				return false
			}
			if !dry {
				p := reflect.New(t.Elem())
				elem(p.Elem(), kind, raw, false)
				v.Set(p)
			}
			return true
		}
	}
	return nil
}

// overflows reports whether n does not fit an integer of type t.
func overflows(t reflect.Type, n int64) bool {
	bits := t.Bits()
	return bits < 64 && (n < -1<<(bits-1) || n >= 1<<(bits-1))
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[interface{ UnmarshalText([]byte) error }]()
)

// scanner reads the simple JSON Decode accepts.
type scanner struct {
	data []byte
	i    int
}

func (s *scanner) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) take(c byte) bool {
	if s.i < len(s.data) && s.data[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) end() bool { return s.i == len(s.data) }

// plainString reads a string without escapes, of valid UTF-8, and returns its content.
func (s *scanner) plainString() ([]byte, bool) {
	if !s.take('"') {
		return nil, false
	}
	start := s.i
	ascii := true
	for s.i < len(s.data) {
		c := s.data[s.i]
		switch {
		case c == '"':
			str := s.data[start:s.i]
			s.i++
			return str, ascii || utf8.Valid(str)
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
		s.i++
	}
	return nil, false
}

// value reads one value and returns its kind: '"' a string, '0' an integer, 't' true,
// 'f' false, 'n' null, '{' an object of such values (at most depth objects deep).
func (s *scanner) value(depth int) (byte, bool) {
	if s.i >= len(s.data) {
		return 0, false
	}
	switch c := s.data[s.i]; {
	case c == '"':
		_, ok := s.plainString()
		return '"', ok
	case c == '-' || '0' <= c && c <= '9':
		return '0', s.integer()
	case c == 't':
		return 't', s.word("true")
	case c == 'f':
		return 'f', s.word("false")
	case c == 'n':
		return 'n', s.word("null")
	case c == '{' && depth > 0:
		s.i++
		s.space()
		if s.take('}') {
			return '{', true
		}
		for {
			s.space()
			if _, ok := s.plainString(); !ok {
				return 0, false
			}
			s.space()
			if !s.take(':') {
				return 0, false
			}
			s.space()
			if _, ok := s.value(depth - 1); !ok {
				return 0, false
			}
			s.space()
			if s.take('}') {
				return '{', true
			}
			if !s.take(',') {
				return 0, false
			}
		}
	}
	return 0, false
}

// integer reads -?(0|[1-9][0-9]*), not followed by a fraction or an exponent.
func (s *scanner) integer() bool {
	s.take('-')
	start := s.i
	for s.i < len(s.data) && '0' <= s.data[s.i] && s.data[s.i] <= '9' {
		s.i++
	}
	n := s.i - start
	if n == 0 || (n > 1 && s.data[start] == '0') {
		return false
	}
	return s.i == len(s.data) || (s.data[s.i] != '.' && s.data[s.i] != 'e' && s.data[s.i] != 'E')
}

func (s *scanner) word(w string) bool {
	if len(s.data)-s.i < len(w) || string(s.data[s.i:s.i+len(w)]) != w {
		return false
	}
	s.i += len(w)
	return true
}
