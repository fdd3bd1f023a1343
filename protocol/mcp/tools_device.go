package mcp

import (
	"context"
	"fmt"

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
	Name  string `json:"name"`
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
	addTool(s, "rtt", "Read what the stopped firmware wrote to its SEGGER RTT up-channels since the last read "+
		"(and mark it read, as an RTT host does).", hints{idempotent: false},
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in SessionIn) (RTTOut, error) {
			return withSession(c, in.Session, func(g *debuggee) (RTTOut, error) {
				chs, err := g.d.ReadRTT()
				if err != nil {
					return RTTOut{}, err
				}
				out := RTTOut{Channels: []RTTChannel{}}
				for _, ch := range chs {
					out.Channels = append(out.Channels, RTTChannel{Index: ch.Index, Name: ch.Name, Text: engine.ClipValue(string(ch.Data), 64<<10)})
				}
				return out, nil
			})
		})
	addTool(s, "tasks", "The FreeRTOS tasks of the stopped firmware: name, priority, state, stack use.",
		hints{readOnly: true, idempotent: true},
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in SessionIn) (TasksOut, error) {
			return withSession(c, in.Session, func(g *debuggee) (TasksOut, error) {
				ts, err := g.d.Tasks()
				if err != nil {
					return TasksOut{}, err
				}
				out := TasksOut{Tasks: []Task{}}
				for _, t := range ts {
					out.Tasks = append(out.Tasks, Task{Name: t.Name, Priority: t.Priority, State: t.State,
						StackUsage: t.StackUsage, StackSize: t.StackSize, Handle: fmt.Sprintf("%#x", t.Handle)})
				}
				return out, nil
			})
		})
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
					if at, err = parseAddr(in.Address); err != nil {
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
				if in.Peripheral == "" {
					names, err := g.d.Peripherals()
					return PeriphOut{Peripherals: names}, err
				}
				regs, err := g.d.ReadPeripheral(in.Peripheral, in.Register)
				if err != nil {
					return PeriphOut{}, err
				}
				out := PeriphOut{Registers: []PeriphReg{}}
				for _, r := range regs {
					pr := PeriphReg{Name: r.Name, Address: fmt.Sprintf("%#x", r.Address), Error: r.Err}
					if r.Err == "" {
						pr.Value = fmt.Sprintf("%#x", r.Value)
					}
					for _, f := range r.Fields {
						pr.Fields = append(pr.Fields, PeriphField{Name: f.Name, Bits: fmt.Sprintf("%d:%d", f.BitOffset+f.BitWidth-1, f.BitOffset),
							Value: fmt.Sprintf("%#x", f.Value), Enum: f.Enum})
					}
					out.Registers = append(out.Registers, pr)
				}
				return out, nil
			})
		})
}
