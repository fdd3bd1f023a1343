package wirejson

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
// shape Unmarshal describes (objects for struct fields, at most maxDepth deep), and reports
// whether it did. When it reports false, v is as it was: decode it again with encoding/json.
func Decode(data []byte, v any) bool {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return false
	}
	d := decoderOf(rv.Elem().Type())
	if d == nil {
		return false
	}
	// Check all, then store: encoding/json leaves v as it was when data is not valid.
	if !decodeObject(data, d, reflect.Value{}, true) {
		return false
	}
	decodeObject(data, d, rv.Elem(), false)
	return true
}

// DecodeFresh is Decode for a v that is thrown away when it reports false (a value just
// made): one pass, v may then be partly written.
func DecodeFresh(data []byte, v any) bool {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return false
	}
	d := decoderOf(rv.Elem().Type())
	return d != nil && decodeObject(data, d, rv.Elem(), false)
}

// maxDepth bounds the objects within the decoded object (a request's arguments and an
// object in them).
const maxDepth = 3

// decodeObject reads the object data into the struct st, whose fields d describes, or
// only checks that it can (dry, st not valid), reporting whether data is one.
func decodeObject(data []byte, d fieldDecoders, st reflect.Value, dry bool) bool {
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
			kind, ok := s.value(maxDepth)
			if !ok {
				return false
			}
			f := d.lookup(key)
			if f == nil {
				return false
			}
			var fv reflect.Value
			if !dry {
				fv = st.Field(f.index[0])
				for _, j := range f.index[1:] {
					fv = fv.Field(j)
				}
			}
			if !f.set(fv, kind, data[start:s.i], dry) {
				return false
			}
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
	return s.end()
}

type fieldDecoder struct {
	name  string
	index []int // through embedded structs
	set   func(v reflect.Value, kind byte, raw []byte, dry bool) bool
}

// fieldDecoders are a struct's keys: a message has few, so a look along the list is
// quicker than hashing the key.
type fieldDecoders []fieldDecoder

func (d fieldDecoders) lookup(key []byte) *fieldDecoder {
	for i := range d {
		if d[i].name == string(key) {
			return &d[i]
		}
	}
	return nil
}

var decoders sync.Map // reflect.Type -> fieldDecoders (nil: not handled)

var rawMessageType = reflect.TypeFor[json.RawMessage]()

func decoderOf(t reflect.Type) fieldDecoders {
	if d, ok := decoders.Load(t); ok {
		return d.(fieldDecoders)
	}
	d := fieldDecoders{}
	seen := map[string]bool{}
	ok := eachField(t, nil, func(index []int, sf reflect.StructField, name, opts string) bool {
		if seen[name] {
			return false
		}
		seen[name] = true
		if set := setter(sf.Type); set != nil && !slices.Contains(strings.Split(opts, ","), "string") {
			d = append(d, fieldDecoder{name: name, index: index, set: set})
		} // else such a key makes Decode give up (it is not in the list)
		return true
	})
	if !ok {
		d = nil
	}
	decoders.Store(t, d)
	return d
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
			v.SetString(intern(raw[1 : len(raw)-1]))
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
	case reflect.Struct:
		// Looked up when first used (t may hold itself through a pointer or a slice), then
		// kept.
		var known atomic.Pointer[fieldDecoders]
		return func(v reflect.Value, kind byte, raw []byte, dry bool) bool {
			d := known.Load()
			if d == nil {
				ds := decoderOf(t)
				d = &ds
				known.Store(d)
			}
			return kind == '{' && *d != nil && decodeObject(raw, *d, v, dry)
		}
	case reflect.Pointer:
		elem := setter(t.Elem())
		// A pointer to a struct is not: encoding/json decodes into the struct it points to.
		if elem == nil || t.Elem().Kind() == reflect.Pointer || t.Elem().Kind() == reflect.Struct {
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
