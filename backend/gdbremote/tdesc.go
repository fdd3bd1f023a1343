package gdbremote

import (
	"context"
	"encoding/binary"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Reg is one register of a target description.
type Reg struct {
	Name    string
	Bitsize int
	Num     int    // the stub's register number (for p/P, T replies, agent expressions)
	Type    string // "int", "code_ptr", "data_ptr", "i387_ext", a vector type...
	Group   string
	Feature string // the feature that declared it, e.g. "org.gnu.gdb.arm.m-profile"
	Offset  int    // byte offset in the 'g' packet, -1 when it is not part of it
}

// TargetDesc is a target description read from qXfer:features:read.
type TargetDesc struct {
	Arch  string // <architecture>, e.g. "i386:x86-64", "arm"
	Regs  []Reg  // ordered by Num
	Types map[string]*RegType
	// pseudos are the registers gdb makes of others (regtypes.go).
	pseudos []Pseudo
	byName  map[string]int
	byNum   map[int]int
}

// RegType is a type a target description declares for its registers: a vector of an
// element type, a union or struct of fields, flags (named bits) or an enum (regtypes.go).
type RegType struct {
	Kind   string // "vector", "union", "struct", "flags", "enum"
	Elem   string // a vector's element type
	Count  int    // a vector's elements
	Size   int    // bytes, when declared (flags, struct, enum)
	Fields []RegField
}

// RegField is a field of a union, struct or flags type, or an enum's value.
type RegField struct {
	Name, Type string
	Start, End int // a bit field's first and last bits; -1 for a whole field
	Value      int // an enum's
}

// Reg finds a register by name.
func (d *TargetDesc) Reg(name string) (Reg, bool) {
	i, ok := d.byName[name]
	if !ok {
		return Reg{}, false
	}
	return d.Regs[i], true
}

// RegByNum finds a register by number.
func (d *TargetDesc) RegByNum(n int) (Reg, bool) {
	i, ok := d.byNum[n]
	if !ok {
		return Reg{}, false
	}
	return d.Regs[i], true
}

// SplitG cuts a 'g' reply into registers by number; registers past its end are absent.
func (d *TargetDesc) SplitG(g []byte) map[int][]byte {
	out := make(map[int][]byte, len(d.Regs))
	for _, r := range d.Regs {
		n := r.Bitsize / 8
		if r.Offset < 0 || r.Offset+n > len(g) {
			continue
		}
		out[r.Num] = g[r.Offset : r.Offset+n]
	}
	return out
}

// PCReg finds the program counter ("pc", "rip", "eip").
func (d *TargetDesc) PCReg() (Reg, bool) {
	for _, n := range []string{"pc", "rip", "eip"} {
		if r, ok := d.Reg(n); ok {
			return r, true
		}
	}
	return Reg{}, false
}

// Order is the target's byte order (big-endian only for architectures known to be).
func (d *TargetDesc) Order() binary.ByteOrder {
	a := strings.ToLower(d.Arch)
	if strings.Contains(a, "armeb") || strings.Contains(a, "mips") && !strings.Contains(a, "el") ||
		strings.HasPrefix(a, "powerpc") || strings.HasPrefix(a, "s390") || strings.HasPrefix(a, "sparc") ||
		strings.HasPrefix(a, "m68k") {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// GSize is the length of a full 'g' packet in bytes.
func (d *TargetDesc) GSize() int {
	n := 0
	for _, r := range d.Regs {
		if r.Offset >= 0 {
			n = max(n, r.Offset+r.Bitsize/8)
		}
	}
	return n
}

// Uint decodes a register value in little- or big-endian order.
func Uint(b []byte, order binary.ByteOrder) uint64 {
	var buf [8]byte
	if len(b) > 8 {
		b = b[:8]
	}
	if order == binary.BigEndian {
		copy(buf[8-len(b):], b)
		return binary.BigEndian.Uint64(buf[:])
	}
	copy(buf[:], b)
	return binary.LittleEndian.Uint64(buf[:])
}

// ReadTargetDesc reads target.xml and its includes.
func (c *Client) ReadTargetDesc(ctx context.Context) (*TargetDesc, error) {
	if !c.Supports("qXfer:features:read") {
		return nil, fmt.Errorf("%w: qXfer:features:read", ErrUnsupported)
	}
	fetch := func(annex string) ([]byte, error) { return c.ReadXfer(ctx, "features", annex) }
	d, err := ParseTargetDesc(fetch)
	if err != nil {
		return nil, err
	}
	c.desc = d
	return d, nil
}

// TargetDesc returns the description ReadTargetDesc read (or SetTargetDesc set), or nil.
func (c *Client) TargetDesc() *TargetDesc { return c.desc }

// SetTargetDesc sets the description for a stub without qXfer:features:read.
func (c *Client) SetTargetDesc(d *TargetDesc) { c.desc = d }

// ParseTargetDesc parses target.xml, fetching it and every included document with fetch.
// Register numbers follow the GDB rules: a reg without regnum gets the previous one plus 1.
func ParseTargetDesc(fetch func(annex string) ([]byte, error)) (*TargetDesc, error) {
	d := &TargetDesc{Types: map[string]*RegType{}, byName: map[string]int{}, byNum: map[int]int{}}
	next := 0
	seen := map[string]bool{}
	var load func(annex string, depth int) error
	load = func(annex string, depth int) error {
		if depth > 8 || seen[annex] {
			return nil
		}
		seen[annex] = true
		data, err := fetch(annex)
		if err != nil {
			return fmt.Errorf("gdbremote: target description %s: %w", annex, err)
		}
		dec := xml.NewDecoder(strings.NewReader(string(data)))
		dec.Strict = false
		dec.Entity = xml.HTMLEntity
		// Walk tokens so that document order of features and includes is kept.
		var feature string
		var composite *RegType // the union, struct, flags or enum whose fields come
		for {
			tok, err := dec.Token()
			if err != nil {
				if err == io.EOF {
					break
				}
				return fmt.Errorf("%w: target description %s: %v", ErrGarbage, annex, err)
			}
			if ee, ok := tok.(xml.EndElement); ok && composite != nil && ee.Name.Local == composite.Kind {
				composite = nil
				continue
			}
			se, ok := tok.(xml.StartElement)
			if !ok {
				continue
			}
			switch se.Name.Local {
			case "vector":
				count, _ := strconv.Atoi(attr(se, "count"))
				count = min(max(count, 0), maxTypeSize)
				d.Types[attr(se, "id")] = &RegType{Kind: "vector", Elem: attr(se, "type"), Count: count}
			case "union", "struct", "flags", "enum":
				size, _ := strconv.Atoi(attr(se, "size"))
				composite = &RegType{Kind: se.Name.Local, Size: size}
				d.Types[attr(se, "id")] = composite
			case "field", "evalue":
				if composite == nil || len(composite.Fields) >= maxTypeFields {
					continue
				}
				f := RegField{Name: attr(se, "name"), Type: attr(se, "type"), Start: -1, End: -1}
				if start, err := strconv.Atoi(attr(se, "start")); err == nil {
					f.Start, f.End = start, start
					if end, err := strconv.Atoi(attr(se, "end")); err == nil {
						f.End = end
					}
				}
				f.Value, _ = strconv.Atoi(attr(se, "value"))
				composite.Fields = append(composite.Fields, f)
			case "architecture":
				var s string
				if err := dec.DecodeElement(&s, &se); err == nil {
					d.Arch = strings.TrimSpace(s)
				}
			case "feature":
				feature = attr(se, "name")
			case "include":
				if err := load(attr(se, "href"), depth+1); err != nil {
					return err
				}
			case "reg":
				r := Reg{Name: attr(se, "name"), Type: attr(se, "type"), Group: attr(se, "group"), Feature: feature, Offset: -1}
				bs, err := strconv.Atoi(attr(se, "bitsize"))
				if err != nil || bs <= 0 {
					return fmt.Errorf("%w: register %q has no bitsize", ErrGarbage, r.Name)
				}
				r.Bitsize = bs
				r.Num = next
				if rn := attr(se, "regnum"); rn != "" {
					n, err := strconv.Atoi(rn)
					if err != nil {
						return fmt.Errorf("%w: register %q regnum %q", ErrGarbage, r.Name, rn)
					}
					r.Num = n
				}
				next = r.Num + 1
				if r.Type == "" {
					r.Type = "int"
				}
				d.Regs = append(d.Regs, r)
			}
		}
		return nil
	}
	if err := load("target.xml", 0); err != nil {
		return nil, err
	}
	if len(d.Regs) == 0 {
		return nil, fmt.Errorf("%w: target description has no registers", ErrGarbage)
	}
	sort.SliceStable(d.Regs, func(i, j int) bool { return d.Regs[i].Num < d.Regs[j].Num })
	off := 0
	for i := range d.Regs {
		r := &d.Regs[i]
		// The 'g' packet holds the registers in number order, packed (gaps in the
		// numbering take no room), as far as the stub sends it.
		r.Offset = off
		off += r.Bitsize / 8
		d.byName[r.Name] = i
		d.byNum[r.Num] = i
	}
	d.x86Pseudos()
	return d, nil
}

// maxTypeFields bounds the fields of one declared type (a stub's description is input).
const maxTypeFields = 256

func attr(se xml.StartElement, name string) string {
	for _, a := range se.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}
