package main

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/protocol/lantern"
	"github.com/polydbg/polydbg/protocol/web"
)

// TestLanternWebFeeds: with --web, the lantern daemon's programs are listed in the web view
// and a program's page streams its output ring, through the daemon's own protocol.
func TestLanternWebFeeds(t *testing.T) {
	bin := buildLanternProg(t)
	addr := startLanternDaemon(t, lantern.Config{})
	feeds := &lanternFeeds{addr: addr}
	defer feeds.close()
	r, err := web.Listen("127.0.0.1:0", web.Options{Registry: nil, Feeds: feeds})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	id := strings.TrimSpace(mustLantern(t, addr, "push", bin, "--args", "web", "--env", "SLOW=1", "--start"))
	var list []web.FeedInfo
	getJSON(t, "http://"+r.Addr+"/api/feeds", &list)
	if len(list) != 1 || list[0].ID != id || list[0].Owner != "lantern" {
		t.Fatalf("feeds %+v", list)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+r.Addr+"/api/f/"+id+"/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got strings.Builder
	sawStopped := false
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() && !(sawStopped && strings.Contains(got.String(), `work(20) = 41`)) {
		line := sc.Text()
		if strings.HasPrefix(line, "data: ") {
			got.WriteString(line)
			sawStopped = sawStopped || strings.Contains(line, `"state":"STOPPED"`)
		}
	}
	for _, want := range []string{`arg web\n`, `tick 4\n`, `work(20) = 41\n`, `"state":"STOPPED"`} {
		if !strings.Contains(got.String(), want) {
			t.Fatalf("the feed's stream lacks %s:\n%s", want, got.String())
		}
	}
}
