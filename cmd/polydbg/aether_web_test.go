package main

import (
	"bufio"
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/credentials/insecure"

	"github.com/polydbg/polydbg/internal/realparts"
	pb "github.com/polydbg/polydbg/protocol/aether/aetherpb"
)

// TestAetherServeWeb: `aether serve --web ADDR` lists the firmware session that gRPC clients
// drive, with its device telemetry: once a client resumes the core, the page's stream
// carries the firmware's RTT plot line.
func TestAetherServeWeb(t *testing.T) {
	realparts.Need(t, "qemu-system-arm")
	fw := buildAetherFirmware(t)
	addr, printed := aetherServeLog(t, "--elf", fw, "--qemu", "lm3s6965evb", "--web", "127.0.0.1:0")
	m := regexp.MustCompile(`web view: (http://\S+)/`).FindStringSubmatch(printed())
	if m == nil {
		t.Fatalf("no web view announced:\n%s", printed())
	}
	base := m[1]
	var list []sessionRow
	getJSON(t, base+"/api/sessions", &list)
	if len(list) != 1 || list[0].Owner != "aether" || list[0].Kind != "qemu" {
		t.Fatalf("sessions %+v", list)
	}
	var info struct {
		MCU   bool
		Token string
	}
	getJSON(t, base+"/api/s/"+list[0].ID+"/info", &info)
	if !info.MCU || info.Token == "" {
		t.Fatalf("info %+v: a firmware session with controls on loopback", info)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/s/"+list[0].ID+"/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := aetherClient(t, addr, insecure.NewCredentials()).Resume(ctx, &pb.Empty{}); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 4<<20)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		if e, ok := strings.CutPrefix(line, "event: "); ok {
			event = e
		}
		if event == "plot" && strings.HasPrefix(line, "data: ") && strings.Contains(line, `"wave":[[`) {
			return
		}
	}
	t.Fatalf("no plot of the wave in the page's stream: %v", sc.Err())
}
