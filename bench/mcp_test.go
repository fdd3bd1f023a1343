package bench

import (
	"context"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/polydbg/polydbg/internal/firmware"
	"github.com/polydbg/polydbg/internal/realparts"
	pb "github.com/polydbg/polydbg/protocol/aether/aetherpb"
	"github.com/polydbg/polydbg/protocol/mcp"
)

// An agent's step on firmware in QEMU: what it costs, in calls and wall time, to go one
// line further and know where the program is (location, source lines, stack, frame 0's
// locals). Through polydbg mcp that is one tool call (next) over streamable HTTP on
// loopback; through Aether's gRPC on loopback it is StepOver, GetStack, ReadRegister (sp)
// and ReadMemory (the frame, which the agent must still decode without DWARF), plus reading
// the source file itself. Both step the same firmware's main loop, in rounds.
//
//	cd bench && go test -run '^$' -bench AgentStep
func BenchmarkAgentStep(b *testing.B) {
	realparts.Need(b, "qemu-system-arm", "arm-none-eabi-gcc")
	elf := firmware.Build(b)
	src := firmware.Source()
	busy := firmware.Line(b, "main_busy")

	// MCP: the server in this process, the SDK's client over HTTP.
	srv := mcp.New(mcp.Options{AllowExec: true})
	defer srv.CloseAll()
	hs := httptest.NewServer(srv.HTTPHandler(""))
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "start", Arguments: map[string]any{"kind": "qemu", "machine": "lm3s6965evb",
		"elf": elf, "breakpoints": []any{map[string]any{"file": src, "line": busy}}}})
	if err != nil || res.IsError {
		b.Fatalf("start: %v %v", err, res)
	}
	id := res.StructuredContent.(map[string]any)["session"]
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "clear_breakpoints", Arguments: map[string]any{"session": id}}); err != nil {
		b.Fatal(err)
	}
	mcpStep := func() error {
		r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "next", Arguments: map[string]any{"session": id}})
		if err == nil && (r.IsError || r.StructuredContent.(map[string]any)["state"] != "stopped") {
			b.Fatalf("next: %v", r.Content)
		}
		return err
	}

	// Aether: its gRPC server on the same firmware, stopped at the same line.
	rig := startAether(b, elf, 0)
	defer rig.close()
	loc, err := rig.tgt.ResolveLine(src, busy)
	if err != nil {
		b.Fatal(err)
	}
	cl := rig.cl
	if _, err := cl.SetBreakpoint(ctx, &pb.BreakpointRequest{Address: loc.PC}); err != nil {
		b.Fatal(err)
	}
	events, err := cl.SubscribeEvents(ctx, &pb.Empty{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := cl.Resume(ctx, &pb.Empty{}); err != nil {
		b.Fatal(err)
	}
	for {
		ev, err := events.Recv()
		if err != nil {
			b.Fatal(err)
		}
		if ev.GetHalted() != nil {
			break
		}
	}
	if _, err := cl.ClearBreakpoint(ctx, &pb.BreakpointRequest{Address: loc.PC}); err != nil {
		b.Fatal(err)
	}
	const aetherCalls = 5 // StepOver, GetStack, ReadRegister, ReadMemory, and the source file
	aetherStep := func() error {
		if _, err := cl.StepOver(ctx, &pb.Empty{}); err != nil {
			return err
		}
		st, err := cl.GetStack(ctx, &pb.Empty{})
		if err != nil {
			return err
		}
		sp, err := cl.ReadRegister(ctx, &pb.ReadRegisterRequest{RegisterNumber: 13})
		if err != nil {
			return err
		}
		if _, err := cl.ReadMemory(ctx, &pb.ReadMemoryRequest{Address: sp.Value, Length: 16}); err != nil {
			return err
		}
		if len(st.Frames) > 0 {
			text, err := os.ReadFile(st.Frames[0].File)
			if err != nil {
				return err
			}
			_ = strings.Split(string(text), "\n")
		}
		return nil
	}

	n := max(b.N, 50)
	var tMCP, tAether time.Duration
	const rounds = 10
	b.ResetTimer()
	for range rounds {
		t0 := time.Now()
		for range n / rounds {
			if err := mcpStep(); err != nil {
				b.Fatal(err)
			}
		}
		t1 := time.Now()
		for range n / rounds {
			if err := aetherStep(); err != nil {
				b.Fatal(err)
			}
		}
		tMCP += t1.Sub(t0)
		tAether += time.Since(t1)
	}
	per := float64(n / rounds * rounds)
	b.ReportMetric(1, "mcp-calls/step")
	b.ReportMetric(aetherCalls, "aether-calls/step")
	b.ReportMetric(float64(tMCP.Microseconds())/per, "mcp-µs/step")
	b.ReportMetric(float64(tAether.Microseconds())/per, "aether-µs/step")
	b.ReportMetric(float64(tMCP)/float64(tAether), "mcp/aether")
}
