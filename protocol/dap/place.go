package dap

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/polydbg/polydbg/launch"
)

// placeNative sets a native program's working directory ("cwd") and environment ("env")
// in s. env is VS Code's form, an object whose values are added to polydbg's own
// environment (null removes a variable), or a list of "NAME=value". Other kinds of
// debuggee refuse both rather than ignore them.
func (a launchArgs) placeNative(s *launch.Spec) error {
	if a.Cwd == "" && a.Env == nil {
		return nil
	}
	if s.Kind != launch.Native {
		return fmt.Errorf("cwd and env are for native programs (this is %s)", s.Kind)
	}
	if a.Cwd != "" {
		dir, err := filepath.Abs(a.Cwd)
		if err != nil {
			return fmt.Errorf("cwd: %w", err)
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return fmt.Errorf("cwd %q is not a directory", a.Cwd)
		}
		s.Dir = dir
	}
	if a.Env != nil {
		env, err := mergeEnv(os.Environ(), a.Env)
		if err != nil {
			return err
		}
		s.Env = env
	}
	return nil
}

// mergeEnv applies a launch configuration's env to base.
func mergeEnv(base []string, env any) ([]string, error) {
	vars := map[string]string{}
	for _, kv := range base {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	set := func(k string, v any) error {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fmt.Errorf("env: bad variable name %q", k)
		}
		switch v := v.(type) {
		case nil:
			delete(vars, k)
		case string:
			if strings.ContainsRune(v, 0) {
				return fmt.Errorf("env: the value of %s holds a NUL byte", k)
			}
			vars[k] = v
		default:
			return fmt.Errorf("env: the value of %s must be a string or null", k)
		}
		return nil
	}
	switch e := env.(type) {
	case map[string]any:
		for k, v := range e {
			if err := set(k, v); err != nil {
				return nil, err
			}
		}
	case []any:
		for _, item := range e {
			kv, ok := item.(string)
			k, v, has := strings.Cut(kv, "=")
			if !ok || !has {
				return nil, fmt.Errorf("env: %v is not NAME=value", item)
			}
			if err := set(k, v); err != nil {
				return nil, err
			}
		}
	default:
		return nil, errors.New("env must be an object of NAME: value (or a list of \"NAME=value\")")
	}
	out := make([]string, 0, len(vars))
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out, nil
}
