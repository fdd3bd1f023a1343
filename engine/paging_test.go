package engine

import (
	"reflect"
	"testing"
)

func TestPage(t *testing.T) {
	list := []int{0, 1, 2, 3, 4}
	for _, tt := range []struct {
		start, count int
		want         []int
	}{
		{0, 0, list}, {2, 0, []int{2, 3, 4}}, {1, 2, []int{1, 2}}, {4, 10, []int{4}}, {5, 1, nil}, {9, 0, nil},
	} {
		if got := Page(list, tt.start, tt.count); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Page(%d, %d) = %v, want %v", tt.start, tt.count, got, tt.want)
		}
	}
}
