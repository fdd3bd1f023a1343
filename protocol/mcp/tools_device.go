package mcp

import (
	"context"
	"fmt"
	"sort"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/polydbg/polydbg/engine"
)

// PeriphIn names a peripheral (and a register) to read.
type PeriphIn struct {
	Session    SessionID `json:"session"`
	Peripheral string    `json:"peripheral,omitempty" jsonschema:"peripheral name from the SVD file; empty lists the peripherals"`
	Register   string    `json:"register,omitempty" jsonschema:"one register of it; empty reads all its readable registers"`
}

// PeriphField is a decoded field.
type PeriphField struct {
	Name  string `json:"name"`
	Bits  string `json:"bits" jsonschema:"bit range, high:low"`
	Value string `json:"value"`
	Enum  string `json:"enum,omitempty"`
}

// PeriphReg is a register read and decoded.
type PeriphReg struct {
	Name    string        `json:"name"`
	Address string        `json:"address"`
	Value   string        `json:"value,omitempty"`
	Fields  []PeriphField `json:"fields,omitempty"`
	Error   string        `json:"error,omitempty"`
}

// PeriphOut lists peripherals or a peripheral's registers.
type PeriphOut struct {
	Peripherals []string    `json:"peripherals,omitempty"`
	Registers   []PeriphReg `json:"registers,omitempty"`
}

// DisasmIn asks for instructions.
type DisasmIn struct {
	Session SessionID `json:"session"`
	Address string    `json:"address,omitempty" jsonschema:"where to start (0x... or decimal; a pc on Kite); default: the current pc"`
	Count   int       `json:"count,omitempty" jsonschema:"instructions (default 16, at most 200)"`
}

// Instruction is one disassembled instruction.
type Instruction struct {
	PC      string `json:"pc"`
	Text    string `json:"text"`
	Current bool   `json:"current,omitempty"`
}

// DisasmOut lists instructions.
type DisasmOut struct {
	Instructions []Instruction `json:"instructions"`
}

// RTTOut is what the RTT up-channels held.
type RTTOut struct {
	Channels []RTTChannel `json:"channels"`
}

// RTTChannel is one up-channel's new data.
type RTTChannel struct {
	Index int    `json:"index"`
	Text  string `json:"text"`
}

// TasksOut lists RTOS tasks.
type TasksOut struct {
	Tasks []Task `json:"tasks"`
}

// Task is an RTOS task.
type Task struct {
	Name       string `json:"name"`
	Priority   uint32 `json:"priority"`
	State      string `json:"state"`
	StackUsage uint32 `json:"stackUsage,omitempty"`
	StackSize  uint32 `json:"stackSize,omitempty"`
	Handle     string `json:"handle"`
}

func (s *Server) addMCUTools() {
	addTool(s, "rtt", "What the firmware wrote to its SEGGER RTT up-channels since the last call (the device "+
		"service drains them while the core runs and at every stop).", hints{},
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in SessionIn) (RTTOut, error) {
			g, err := c.get(in.Session)
			if err != nil {
				return RTTOut{}, err
			}
			if g.d.MCU == nil {
				return RTTOut{}, fmt.Errorf("session %s has no device service: RTT needs firmware or a program behind a GDB stub", g.id)
			}
			out := RTTOut{Channels: []RTTChannel{}}
			for ch, data := range g.takeRTT() {
				out.Channels = append(out.Channels, RTTChannel{Index: ch, Text: engine.ClipValue(string(data), 64<<10)})
			}
			sort.Slice(out.Channels, func(i, j int) bool { return out.Channels[i].Index < out.Channels[j].Index })
			return out, nil
		})
	addTool(s, "tasks", "The RTOS (FreeRTOS) tasks of the firmware, or the threads of a native program: name, "+
		"priority, state, stack use.", hints{readOnly: true, idempotent: true},
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in SessionIn) (TasksOut, error) {
			g, err := c.get(in.Session)
			if err != nil {
				return TasksOut{}, err
			}
			ts, err := threadsOf(ctx, g)
			if err != nil {
				return TasksOut{}, err
			}
			out := TasksOut{Tasks: []Task{}}
			for _, t := range ts {
				out.Tasks = append(out.Tasks, Task{Name: t.Name, Priority: t.Priority, State: t.State,
					StackUsage: t.StackUsage, StackSize: t.StackSize, Handle: fmt.Sprintf("%#x", t.ID)})
			}
			return out, nil
		})
}

// threadsOf lists a session's threads or RTOS tasks through the device service or the
// target, whichever lists them.
func threadsOf(ctx context.Context, g *debuggee) ([]engine.Thread, error) {
	if g.d.MCU != nil {
		return g.d.MCU.Threads(ctx)
	}
	if tl, ok := g.d.Target().(engine.ThreadLister); ok {
		return tl.Threads(ctx)
	}
	return nil, fmt.Errorf("session %s lists no threads or tasks: %w", g.id, engine.ErrUnsupported)
}

func (s *Server) addDeviceTools() {
	s.addMCUTools()
	addTool(s, "disassemble", "Disassemble instructions from an address or the current pc: the Kite VM's bytecode, "+
		"or the program's machine code (objdump) for native and firmware targets.", hints{readOnly: true, idempotent: true},
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in DisasmIn) (DisasmOut, error) {
			return withSession(c, in.Session, func(g *debuggee) (DisasmOut, error) {
				var cur uint64
				if fr, err := g.d.Stack(); err == nil && len(fr) > 0 {
					cur = fr[0].Location.PC
				}
				at := cur
				if in.Address != "" {
					var err error
					if at, err = engine.ParseAddress(in.Address); err != nil {
						return DisasmOut{}, err
					}
				} else if g.d.State() != engine.Stopped {
					return DisasmOut{}, fmt.Errorf("the program is %s: give an address, or stop it first", g.d.State())
				}
				n := in.Count
				if n <= 0 {
					n = 16
				}
				ins, err := g.d.Disassemble(ctx, at, min(n, 200))
				if err != nil {
					return DisasmOut{}, err
				}
				out := DisasmOut{Instructions: []Instruction{}}
				for _, i := range ins {
					l := s.location(g, engine.Location{PC: i.PC, HasPC: true})
					out.Instructions = append(out.Instructions, Instruction{PC: l.PC, Text: i.Text, Current: i.PC == cur})
				}
				return out, nil
			})
		})

	addTool(s, "peripherals", "Microcontroller peripherals by the SVD file given to start (svd): with no peripheral, "+
		"their names; with one, its registers read from the stopped device and decoded into fields (enumerated "+
		"names included). Reading a register can change the device (a UART's data register pops a byte): name "+
		"the register to read only it.", hints{},
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in PeriphIn) (PeriphOut, error) {
			return withSession(c, in.Session, func(g *debuggee) (PeriphOut, error) {
				if g.d.MCU == nil || g.d.MCU.Device() == nil {
					return PeriphOut{}, fmt.Errorf("session %s has no SVD file: give svd to start", g.id)
				}
				dev := g.d.MCU.Device()
				if in.Peripheral == "" {
					out := PeriphOut{Peripherals: []string{}}
					for _, p := range dev.Peripherals {
						out.Peripherals = append(out.Peripherals, p.Name)
					}
					return out, nil
				}
				names := []string{in.Register}
				if in.Register == "" {
					p, err := dev.Peripheral(in.Peripheral)
					if err != nil {
						return PeriphOut{}, err
					}
					names = names[:0]
					for _, r := range p.Registers {
						if r.Readable() {
							names = append(names, r.Name)
						}
					}
				}
				out := PeriphOut{Registers: []PeriphReg{}}
				for _, name := range names {
					v, err := g.d.MCU.ReadPeripheral(in.Peripheral, name)
					if err != nil {
						if in.Register != "" {
							return PeriphOut{}, err
						}
						out.Registers = append(out.Registers, PeriphReg{Name: name, Error: err.Error()})
						continue
					}
					pr := PeriphReg{Name: name, Address: fmt.Sprintf("%#x", v.Address), Value: fmt.Sprintf("%#x", v.Value)}
					for _, f := range v.Fields {
						pr.Fields = append(pr.Fields, PeriphField{Name: f.Name, Bits: fmt.Sprintf("%d:%d", f.BitOffset+f.BitWidth-1, f.BitOffset),
							Value: fmt.Sprintf("%#x", f.Value), Enum: f.Enum})
					}
					out.Registers = append(out.Registers, pr)
				}
				return out, nil
			})
		})
}
