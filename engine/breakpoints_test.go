package engine

import (
	"reflect"
	"testing"
)

func TestHitConditions(t *testing.T) {
	tests := []struct {
		cond string
		hits []int // hit counts 1..6 that satisfy it
	}{
		{"", []int{1, 2, 3, 4, 5, 6}},
		{">= 3", []int{3, 4, 5, 6}},
		{"3", []int{3, 4, 5, 6}},
		{"> 4", []int{5, 6}},
		{"== 2", []int{2}},
		{"< 3", []int{1, 2}},
		{"<= 1", []int{1}},
		{"% 2", []int{2, 4, 6}},
		{" %3 ", []int{3, 6}},
	}
	for _, tt := range tests {
		h, err := parseHitCondition(tt.cond)
		if err != nil {
			t.Fatalf("%q: %v", tt.cond, err)
		}
		var got []int
		for i := 1; i <= 6; i++ {
			if h.met(i) {
				got = append(got, i)
			}
		}
		if !reflect.DeepEqual(got, tt.hits) {
			t.Errorf("%q: met at %v, want %v", tt.cond, got, tt.hits)
		}
	}
	for _, bad := range []string{"x", ">= ", "% 0", "== -1", "3 4"} {
		if _, err := parseHitCondition(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestLogMessageParts(t *testing.T) {
	parts, err := parseLogMessage(`n=${n} m=${m["k"]} ${ {"a": 1}["a"] }!`)
	if err != nil {
		t.Fatal(err)
	}
	want := []logPart{{text: "n="}, {text: "n", expr: true}, {text: " m="}, {text: `m["k"]`, expr: true},
		{text: " "}, {text: ` {"a": 1}["a"] `, expr: true}, {text: "!"}}
	if !reflect.DeepEqual(parts, want) {
		t.Fatalf("got %+v", parts)
	}
	if _, err := parseLogMessage("oops ${x"); err == nil {
		t.Fatal("unclosed ${ accepted")
	}
}

func TestSubscriptionKeepsOrderAndDrains(t *testing.T) {
	sub := newSubscription(SubscribeOptions{})
	for i := 0; i < 1000; i++ {
		sub.push(Event{Kind: EventOutput, ExitCode: i})
	}
	sub.finish()
	n := 0
	for e := range sub.Events() {
		if e.ExitCode != n {
			t.Fatalf("event %d out of order (got %d)", n, e.ExitCode)
		}
		n++
	}
	if n != 1000 {
		t.Fatalf("got %d events", n)
	}
}

func TestClosedSubscriptionDropsAndEnds(t *testing.T) {
	sub := newSubscription(SubscribeOptions{})
	sub.push(Event{Kind: EventOutput})
	sub.Close()
	sub.Close()                        // twice is fine
	sub.push(Event{Kind: EventOutput}) // after close: dropped, no panic
	n := 0
	for range sub.Events() { // ends: the channel is closed
		n++
	}
	if n != 0 {
		t.Fatalf("a closed subscription delivered %d events", n)
	}
	if _, ok, ended := sub.TryNext(); ok || !ended {
		t.Fatalf("TryNext after Close: ok=%v ended=%v", ok, ended)
	}
}
