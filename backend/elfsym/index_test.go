package elfsym

import "testing"

// An element's key is [N] whole: a bracket missing on either side is refused.
func TestIndexKey(t *testing.T) {
	for key, want := range map[string]int{"[0]": 0, "[ 7 ]": 7, "[0x10]": 16, "5]": -1, "[5": -1, "5": -1, "[-1]": -1, "[x]": -1} {
		i, err := index(key)
		if want < 0 && err == nil || want >= 0 && (err != nil || i != want) {
			t.Errorf("index(%q) = %d, %v; want %d", key, i, err, want)
		}
	}
}
