package engine

import "testing"

func TestSignalText(t *testing.T) {
	for sig, want := range map[string]string{
		"SIGSEGV": "SIGSEGV, Segmentation fault", "SIGUSR1": "SIGUSR1, User defined signal 1",
		"SIGRTMIN": "SIGRTMIN", "": "",
	} {
		if got := SignalText(sig); got != want {
			t.Errorf("SignalText(%q) = %q, want %q", sig, got, want)
		}
	}
}
