package prometeu

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
)

// schema is a JSON Schema node. validate implements the subset protocol.json uses: type
// (a name or a list of names), const, enum, required, properties, additionalProperties
// false, items, minimum, maximum, oneOf and local $ref.
type schema map[string]any

type validator struct{ root schema }

func (v validator) validate(s schema, x any, path string) error {
	if ref, ok := s["$ref"].(string); ok {
		target, err := v.resolve(ref)
		if err != nil {
			return err
		}
		return v.validate(target, x, path)
	}
	if t, ok := s["type"]; ok {
		var names []string
		switch t := t.(type) {
		case string:
			names = []string{t}
		case []any:
			for _, n := range t {
				names = append(names, n.(string))
			}
		}
		match := false
		for _, n := range names {
			match = match || hasType(x, n)
		}
		if !match {
			return fmt.Errorf("%s: %s is not of type %s", path, show(x), strings.Join(names, " or "))
		}
	}
	if c, ok := s["const"]; ok && !jsonEqual(c, x) {
		return fmt.Errorf("%s: %s is not %s", path, show(x), show(c))
	}
	if e, ok := s["enum"].([]any); ok {
		found := false
		for _, c := range e {
			found = found || jsonEqual(c, x)
		}
		if !found {
			return fmt.Errorf("%s: %s is not one of %s", path, show(x), show(e))
		}
	}
	if f, ok := number(x); ok {
		if m, ok := s["minimum"].(float64); ok && f < m {
			return fmt.Errorf("%s: %v is below the minimum %v", path, f, m)
		}
		if m, ok := s["maximum"].(float64); ok && f > m {
			return fmt.Errorf("%s: %v is above the maximum %v", path, f, m)
		}
	}
	if obj, ok := x.(map[string]any); ok {
		for _, r := range asList(s["required"]) {
			if _, ok := obj[r.(string)]; !ok {
				return fmt.Errorf("%s: %s is missing", path, r)
			}
		}
		props, _ := s["properties"].(map[string]any)
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ps, ok := props[k].(map[string]any)
			if !ok {
				if s["additionalProperties"] == false {
					return fmt.Errorf("%s: unexpected field %s", path, k)
				}
				continue
			}
			if err := v.validate(ps, obj[k], path+"."+k); err != nil {
				return err
			}
		}
	}
	if arr, ok := x.([]any); ok {
		if items, ok := s["items"].(map[string]any); ok {
			for i, it := range arr {
				if err := v.validate(items, it, fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
		}
	}
	if alts := asList(s["oneOf"]); len(alts) > 0 {
		var matched []int
		var errs []string
		for i, a := range alts {
			if err := v.validate(a.(map[string]any), x, path); err != nil {
				errs = append(errs, err.Error())
			} else {
				matched = append(matched, i)
			}
		}
		if len(matched) != 1 {
			if len(matched) == 0 {
				return fmt.Errorf("%s: matches none of oneOf: %s", path, closest(errs))
			}
			return fmt.Errorf("%s: matches %d alternatives of oneOf %v", path, len(matched), matched)
		}
	}
	return nil
}

// closest picks the error of the alternative that got furthest (its type matched).
func closest(errs []string) string {
	best := ""
	for _, e := range errs {
		if !strings.Contains(e, ".type:") && (best == "" || len(e) > len(best)) {
			best = e
		}
	}
	if best == "" && len(errs) > 0 {
		best = errs[0]
	}
	return best
}

func (v validator) resolve(ref string) (schema, error) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("unsupported $ref %s", ref)
	}
	var cur any = map[string]any(v.root)
	for _, part := range strings.Split(ref[2:], "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("bad $ref %s", ref)
		}
		if cur, ok = m[part]; !ok {
			return nil, fmt.Errorf("bad $ref %s", ref)
		}
	}
	m, ok := cur.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("bad $ref %s", ref)
	}
	return m, nil
}

func asList(x any) []any { l, _ := x.([]any); return l }

func number(x any) (float64, bool) {
	switch n := x.(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func hasType(x any, name string) bool {
	switch name {
	case "object":
		_, ok := x.(map[string]any)
		return ok
	case "array":
		_, ok := x.([]any)
		return ok
	case "string":
		_, ok := x.(string)
		return ok
	case "boolean":
		_, ok := x.(bool)
		return ok
	case "null":
		return x == nil
	case "number":
		_, ok := number(x)
		return ok
	case "integer":
		f, ok := number(x)
		return ok && f == math.Trunc(f)
	}
	return false
}

func jsonEqual(a, b any) bool {
	fa, oka := number(a)
	fb, okb := number(b)
	if oka || okb {
		return oka && okb && fa == fb
	}
	return fmt.Sprint(a) == fmt.Sprint(b) && show(a) == show(b)
}

func show(x any) string {
	b, _ := json.Marshal(x)
	return string(b)
}
