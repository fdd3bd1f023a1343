package main

import (
	"os"
	"testing"

	"github.com/polydbg/polydbg/internal/testbin"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Remove()
	os.Exit(code)
}
