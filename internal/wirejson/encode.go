// Package wirejson encodes and decodes the small JSON messages of the line protocols without
// encoding/json's per-call reflection work, on a step's hot path: Append and Decode produce
// exactly what encoding/json does (Encoder with SetEscapeHTML(false), Unmarshal) for the
// shapes they handle, and hand everything else to encoding/json. It knows no protocol.
package wirejson

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Append appends v's JSON encoding to b, as json.Encoder with SetEscapeHTML(false) writes
// it but without the newline. Structs of strings, integers, booleans, pointers, slices,
// string-keyed maps and interfaces are encoded by plans made once per type; any other type
// (floats, marshalers, embedded fields...) goes through encoding/json.
func Append(b []byte, v any) ([]byte, error) {
	if v == nil {
		return append(b, "null"...), nil
	}
	rv := reflect.ValueOf(v)
	if enc := encoderOf(rv.Type()); enc != nil {
		return enc(b, rv), nil
	}
	return appendSlow(b, v)
}

// appendSlow encodes with encoding/json.
func appendSlow(b []byte, v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return b, err
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
}

type encoderFunc func(b []byte, v reflect.Value) []byte

var encoders sync.Map // reflect.Type -> encoderFunc, or nil when encoding/json must do it

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// encoderOf returns the plan for t, or nil.
func encoderOf(t reflect.Type) encoderFunc {
	if e, ok := encoders.Load(t); ok {
		return e.(encoderFunc)
	}
	e := newEncoder(t, map[reflect.Type]bool{})
	encoders.Store(t, e)
	return e
}

func newEncoder(t reflect.Type, visiting map[reflect.Type]bool) encoderFunc {
	if t.Implements(marshalerType) || t.Implements(textMarshalerType) ||
		reflect.PointerTo(t).Implements(marshalerType) || reflect.PointerTo(t).Implements(textMarshalerType) {
		return nil
	}
	if visiting[t] { // a recursive type: leave it to encoding/json
		return nil
	}
	visiting[t] = true
	defer delete(visiting, t)
	switch t.Kind() {
	case reflect.String:
		return func(b []byte, v reflect.Value) []byte { return AppendString(b, v.String()) }
	case reflect.Bool:
		return func(b []byte, v reflect.Value) []byte { return strconv.AppendBool(b, v.Bool()) }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(b []byte, v reflect.Value) []byte { return strconv.AppendInt(b, v.Int(), 10) }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return func(b []byte, v reflect.Value) []byte { return strconv.AppendUint(b, v.Uint(), 10) }
	case reflect.Interface:
		return func(b []byte, v reflect.Value) []byte {
			if v.IsNil() {
				return append(b, "null"...)
			}
			e := v.Elem()
			if enc := encoderOf(e.Type()); enc != nil {
				return enc(b, e)
			}
			out, err := appendSlow(b, e.Interface())
			if err != nil {
				return append(b, "null"...) // as good as it gets: encoding/json fails here too
			}
			return out
		}
	case reflect.Pointer:
		elem := newEncoder(t.Elem(), visiting)
		if elem == nil {
			return nil
		}
		return func(b []byte, v reflect.Value) []byte {
			if v.IsNil() {
				return append(b, "null"...)
			}
			return elem(b, v.Elem())
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 { // base64
			return nil
		}
		elem := newEncoder(t.Elem(), visiting)
		if elem == nil {
			return nil
		}
		return func(b []byte, v reflect.Value) []byte {
			if v.IsNil() {
				return append(b, "null"...)
			}
			b = append(b, '[')
			for i := range v.Len() {
				if i > 0 {
					b = append(b, ',')
				}
				b = elem(b, v.Index(i))
			}
			return append(b, ']')
		}
	case reflect.Map:
		if t.Key().Kind() != reflect.String || t.Key() != reflect.TypeFor[string]() {
			return nil
		}
		elem := newEncoder(t.Elem(), visiting)
		if elem == nil {
			return nil
		}
		return func(b []byte, v reflect.Value) []byte {
			if v.IsNil() {
				return append(b, "null"...)
			}
			if m, ok := v.Interface().(map[string]string); ok { // an environment: no reflection
				return AppendStringMap(b, m)
			}
			keys := make([]string, 0, v.Len())
			for it := v.MapRange(); it.Next(); {
				keys = append(keys, it.Key().String())
			}
			slices.Sort(keys)
			b = append(b, '{')
			for i, k := range keys {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(AppendString(b, k), ':')
				b = elem(b, v.MapIndex(reflect.ValueOf(k)))
			}
			return append(b, '}')
		}
	case reflect.Struct:
		return structEncoder(t, visiting)
	}
	return nil
}

// AppendStringMap appends m as encoding/json writes a map[string]string: keys sorted, null for
// a nil map.
func AppendStringMap(b []byte, m map[string]string) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	var stack [32]string
	keys := stack[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(AppendString(b, k), ':')
		b = AppendString(b, m[k])
	}
	return append(b, '}')
}

type field struct {
	index     []int  // through embedded structs
	key       string // `"name":`
	omitEmpty bool
	enc       encoderFunc
}

func structEncoder(t reflect.Type, visiting map[reflect.Type]bool) encoderFunc {
	var fields []field
	seen := map[string]bool{}
	ok := eachField(t, nil, func(index []int, sf reflect.StructField, name, opts string) bool {
		if !plainKey(name) || (opts != "" && opts != "omitempty") || seen[name] {
			return false // encoding/json's rules for these: its business
		}
		seen[name] = true
		enc := newEncoder(sf.Type, visiting)
		if enc == nil {
			return false
		}
		fields = append(fields, field{index: index, key: string(AppendString(nil, name)) + ":", omitEmpty: opts == "omitempty", enc: enc})
		return true
	})
	if !ok {
		return nil
	}
	return func(b []byte, v reflect.Value) []byte {
		b = append(b, '{')
		first := true
		for i := range fields {
			f := &fields[i]
			fv := v.Field(f.index[0])
			for _, j := range f.index[1:] {
				fv = fv.Field(j)
			}
			if f.omitEmpty && isEmpty(fv) {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, f.key...)
			b = f.enc(b, fv)
		}
		return append(b, '}')
	}
}

// eachField calls f with the fields of struct t that encoding/json encodes, in its order,
// with their JSON name and tag options: the exported fields, and those of embedded exported
// structs without a tag (promoted, as encoding/json does). It reports false, for encoding/json
// to do the work, when f does or when an embedded field is of another kind (a pointer, a
// tagged or an unexported struct): promotion rules beyond the plain case are its business. A
// name that appears twice is left to f to refuse.
func eachField(t reflect.Type, prefix []int, f func(index []int, sf reflect.StructField, name, opts string) bool) bool {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		index := append(prefix[:len(prefix):len(prefix)], i)
		if sf.Anonymous {
			if tag == "" && sf.IsExported() && sf.Type.Kind() == reflect.Struct {
				if !eachField(sf.Type, index, f) {
					return false
				}
				continue
			}
			return false
		}
		if !sf.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		if !f(index, sf, name, opts) {
			return false
		}
	}
	return true
}

// plainKey reports whether a tag name is one encoding/json uses as it is.
func plainKey(name string) bool {
	for _, c := range name {
		if c != '_' && c != '-' && c != '.' && c != '$' && !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return name != ""
}

func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String, reflect.Slice, reflect.Map:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint() == 0
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	}
	return false
}

// AppendString appends s as a JSON string, escaped as encoding/json does without HTML
// escaping.
func AppendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return appendEscaped(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendEscaped is encoding/json's appendString without HTML escaping.
func appendEscaped(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
