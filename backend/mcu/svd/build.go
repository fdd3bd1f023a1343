package svd

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

const maxDerive = 16 // derivedFrom chains longer than this are cycles

// resolvePeripheral merges a peripheral with the one it derives from: what it does not
// give, it inherits.
func resolvePeripheral(p *xPeripheral, all map[string]*xPeripheral, depth int) (*xPeripheral, error) {
	if p.DerivedFrom == "" {
		return p, nil
	}
	if depth > maxDerive {
		return nil, fmt.Errorf("svd: derivedFrom cycle at peripheral %s", p.Name)
	}
	base, ok := all[p.DerivedFrom]
	if !ok {
		return nil, fmt.Errorf("svd: peripheral %s derives from unknown %s", p.Name, p.DerivedFrom)
	}
	base, err := resolvePeripheral(base, all, depth+1)
	if err != nil {
		return nil, err
	}
	out := *p
	pick(&out.Description, base.Description)
	pick(&out.GroupName, base.GroupName)
	pick(&out.BaseAddress, base.BaseAddress)
	pick(&out.Size, base.Size)
	pick(&out.Access, base.Access)
	pick(&out.ResetValue, base.ResetValue)
	pick(&out.ResetMask, base.ResetMask)
	if out.Registers == nil {
		out.Registers = base.Registers
	}
	if out.AddressBlocks == nil {
		out.AddressBlocks = base.AddressBlocks
	}
	return &out, nil
}

// Limits of the expansion of dim arrays: a file that asks for more is refused instead of
// taking the parser's time and memory (the largest real SVD files have a few tens of
// thousands of registers; a dim of 4096 nested in a dim of 4096 would be 16 million).
const (
	// MaxDim is the largest dim of one array.
	MaxDim = 4096
	// MaxElements bounds the peripherals, clusters and registers a file expands to.
	MaxElements = 1 << 18
	// maxNesting bounds how deep clusters nest.
	maxNesting = 32
)

type builder struct {
	elems int // peripheral, cluster and register instances so far
}

// count charges n instances to the file's budget.
func (b *builder) count(n int) error {
	b.elems += n
	if b.elems > MaxElements {
		return fmt.Errorf("svd: the file expands to more than %d peripherals, clusters and registers", MaxElements)
	}
	return nil
}

// dims expands a dim group into (name suffix substitution, offset) pairs; a name without
// dim yields itself.
func dims(name string, d xDim) ([]string, []uint64, error) {
	if d.Dim == nil {
		return []string{name}, []uint64{0}, nil
	}
	n, err := parseNum(*d.Dim)
	if err != nil || n == 0 || n > MaxDim {
		return nil, nil, fmt.Errorf("svd: %s: bad dim %q", name, *d.Dim)
	}
	var inc uint64
	if d.DimIncrement != nil {
		if inc, err = parseNum(*d.DimIncrement); err != nil {
			return nil, nil, fmt.Errorf("svd: %s: bad dimIncrement %q", name, *d.DimIncrement)
		}
	}
	idx, err := dimIndex(d.DimIndex, int(n))
	if err != nil {
		return nil, nil, fmt.Errorf("svd: %s: %w", name, err)
	}
	if !strings.Contains(name, "%s") {
		return nil, nil, fmt.Errorf("svd: %s has dim but no %%s in its name", name)
	}
	names := make([]string, n)
	offs := make([]uint64, n)
	for i := range names {
		if strings.Contains(name, "[%s]") {
			names[i] = strings.Replace(name, "[%s]", "["+strconv.Itoa(i)+"]", 1)
		} else {
			names[i] = strings.Replace(name, "%s", idx[i], 1)
		}
		offs[i] = uint64(i) * inc
	}
	return names, offs, nil
}

var (
	numRange    = regexp.MustCompile(`^(\d+)-(\d+)$`)
	letterRange = regexp.MustCompile(`^([A-Z])-([A-Z])$`)
)

func dimIndex(s *string, n int) ([]string, error) {
	var out []string
	if s == nil {
		for i := range n {
			out = append(out, strconv.Itoa(i))
		}
		return out, nil
	}
	v := strings.TrimSpace(*s)
	if m := numRange.FindStringSubmatch(v); m != nil {
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[2])
		for i := a; i <= b && len(out) <= n; i++ {
			out = append(out, strconv.Itoa(i))
		}
	} else if m := letterRange.FindStringSubmatch(v); m != nil {
		for c := m[1][0]; c <= m[2][0]; c++ {
			out = append(out, string(c))
		}
	} else {
		for _, p := range strings.Split(v, ",") {
			out = append(out, strings.TrimSpace(p))
		}
	}
	if len(out) != n {
		return nil, fmt.Errorf("dimIndex %q does not give %d names", v, n)
	}
	return out, nil
}

func (b *builder) peripheral(x *xPeripheral, dev props) ([]*Peripheral, error) {
	if x.BaseAddress == nil {
		return nil, fmt.Errorf("svd: peripheral %s has no baseAddress", x.Name)
	}
	base, err := parseNum(*x.BaseAddress)
	if err != nil {
		return nil, fmt.Errorf("svd: peripheral %s: bad baseAddress %q", x.Name, *x.BaseAddress)
	}
	pp, err := dev.with(x.Size, x.Access, x.ResetValue, x.ResetMask)
	if err != nil {
		return nil, fmt.Errorf("svd: peripheral %s: %w", x.Name, err)
	}
	names, offs, err := dims(x.Name, x.xDim)
	if err != nil {
		return nil, err
	}
	if err := b.count(len(names)); err != nil {
		return nil, err
	}
	var out []*Peripheral
	for i, name := range names {
		p := &Peripheral{Name: name, Description: deref(x.Description), GroupName: deref(x.GroupName),
			BaseAddress: base + offs[i], DerivedFrom: x.DerivedFrom, byName: map[string]*Register{}}
		if x.Registers != nil {
			if err := b.items(p, x.Registers.Items, "", 0, pp); err != nil {
				return nil, fmt.Errorf("svd: peripheral %s: %w", name, err)
			}
		}
		sort.SliceStable(p.Registers, func(i, j int) bool {
			if p.Registers[i].Offset != p.Registers[j].Offset {
				return p.Registers[i].Offset < p.Registers[j].Offset
			}
			return p.Registers[i].Name < p.Registers[j].Name
		})
		out = append(out, p)
	}
	return out, nil
}

// resolveItem merges a register or cluster with the one it derives from, found among its
// siblings by name.
func resolveItem(x *xRegOrCluster, siblings []xRegOrCluster, depth int) (*xRegOrCluster, error) {
	if x.DerivedFrom == "" {
		return x, nil
	}
	if depth > maxDerive {
		return nil, fmt.Errorf("derivedFrom cycle at %s", x.Name)
	}
	name := x.DerivedFrom
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:] // a path: we look it up in the same scope by its last element
	}
	var base *xRegOrCluster
	for i := range siblings {
		if siblings[i].Name == name && siblings[i].XMLName.Local == x.XMLName.Local {
			base = &siblings[i]
			break
		}
	}
	if base == nil {
		return nil, fmt.Errorf("%s derives from unknown %s", x.Name, x.DerivedFrom)
	}
	base, err := resolveItem(base, siblings, depth+1)
	if err != nil {
		return nil, err
	}
	out := *x
	pick(&out.DisplayName, base.DisplayName)
	pick(&out.Description, base.Description)
	pick(&out.AddressOffset, base.AddressOffset)
	pick(&out.Size, base.Size)
	pick(&out.Access, base.Access)
	pick(&out.ResetValue, base.ResetValue)
	pick(&out.ResetMask, base.ResetMask)
	if out.Fields == nil {
		out.Fields = base.Fields
	}
	if out.Items == nil {
		out.Items = base.Items
	}
	if out.Dim == nil {
		out.xDim = base.xDim
	}
	return &out, nil
}

// items adds the registers and clusters of a scope to p; prefix is the cluster path and
// off its offset from the peripheral's base.
func (b *builder) items(p *Peripheral, items []xRegOrCluster, prefix string, off uint64, inherited props) error {
	if strings.Count(prefix, ".") > maxNesting {
		return fmt.Errorf("%sclusters nest deeper than %d", prefix, maxNesting)
	}
	for i := range items {
		kind := items[i].XMLName.Local
		if kind != "register" && kind != "cluster" {
			continue
		}
		x, err := resolveItem(&items[i], items, 0)
		if err != nil {
			return err
		}
		if x.AddressOffset == nil {
			return fmt.Errorf("%s%s has no addressOffset", prefix, x.Name)
		}
		ao, err := parseNum(*x.AddressOffset)
		if err != nil {
			return fmt.Errorf("%s%s: bad addressOffset %q", prefix, x.Name, *x.AddressOffset)
		}
		pr, err := inherited.with(x.Size, x.Access, x.ResetValue, x.ResetMask)
		if err != nil {
			return fmt.Errorf("%s%s: %w", prefix, x.Name, err)
		}
		names, offs, err := dims(x.Name, x.xDim)
		if err != nil {
			return err
		}
		if err := b.count(len(names)); err != nil {
			return err
		}
		for j, name := range names {
			at := off + ao + offs[j]
			if x.AlternateGroup != "" && kind == "register" {
				// CMSIS-SVD allows a second register of the same name in an alternate
				// group; name it as svd2rust does, so both can be read.
				name += "_" + x.AlternateGroup
			}
			if kind == "cluster" {
				if err := b.items(p, x.Items, prefix+name+".", at, pr); err != nil {
					return err
				}
				continue
			}
			r := &Register{Name: prefix + name, Description: deref(x.Description), Offset: at,
				Address: p.BaseAddress + at, Size: pr.size, Access: pr.access,
				ResetValue: pr.resetValue, ResetMask: pr.resetMask}
			if x.Fields != nil {
				if r.Fields, err = fields(*x.Fields, r); err != nil {
					return fmt.Errorf("%s: %w", r.Name, err)
				}
			}
			key := strings.ToUpper(r.Name)
			if p.byName[key] != nil {
				return fmt.Errorf("register %s defined twice", r.Name)
			}
			p.byName[key] = r
			p.Registers = append(p.Registers, r)
		}
	}
	return nil
}

var bitRangeRE = regexp.MustCompile(`^\[(\d+):(\d+)\]$`)

func fields(xs []xField, r *Register) ([]*Field, error) {
	var out []*Field
	byName := map[string]*xField{}
	for i := range xs {
		byName[xs[i].Name] = &xs[i]
	}
	for i := range xs {
		x := &xs[i]
		for depth := 0; x.DerivedFrom != ""; depth++ {
			base := byName[x.DerivedFrom]
			if base == nil || depth > maxDerive {
				return nil, fmt.Errorf("field %s derives from unknown %s", x.Name, x.DerivedFrom)
			}
			m := *x
			if m.Description == nil {
				m.Description = base.Description
			}
			if m.BitOffset == nil && m.LSB == nil && m.BitRange == nil {
				m.BitOffset, m.BitWidth, m.LSB, m.MSB, m.BitRange = base.BitOffset, base.BitWidth, base.LSB, base.MSB, base.BitRange
			}
			if m.Access == nil {
				m.Access = base.Access
			}
			if m.EnumeratedValues == nil {
				m.EnumeratedValues = base.EnumeratedValues
			}
			m.DerivedFrom = base.DerivedFrom
			x = &m
		}
		var lsb, width uint64
		var err error
		switch {
		case x.BitOffset != nil:
			if lsb, err = parseNum(*x.BitOffset); err != nil {
				return nil, fmt.Errorf("field %s: bad bitOffset", x.Name)
			}
			width = 1
			if x.BitWidth != nil {
				if width, err = parseNum(*x.BitWidth); err != nil {
					return nil, fmt.Errorf("field %s: bad bitWidth", x.Name)
				}
			}
		case x.LSB != nil && x.MSB != nil:
			msb, err1 := parseNum(*x.MSB)
			l, err2 := parseNum(*x.LSB)
			if err1 != nil || err2 != nil || msb < l {
				return nil, fmt.Errorf("field %s: bad lsb/msb", x.Name)
			}
			lsb, width = l, msb-l+1
		case x.BitRange != nil:
			m := bitRangeRE.FindStringSubmatch(strings.TrimSpace(*x.BitRange))
			if m == nil {
				return nil, fmt.Errorf("field %s: bad bitRange %q", x.Name, *x.BitRange)
			}
			msb, _ := strconv.ParseUint(m[1], 10, 64)
			l, _ := strconv.ParseUint(m[2], 10, 64)
			if msb < l {
				return nil, fmt.Errorf("field %s: bad bitRange %q", x.Name, *x.BitRange)
			}
			lsb, width = l, msb-l+1
		default:
			return nil, fmt.Errorf("field %s has no bit position", x.Name)
		}
		if width == 0 || lsb+width > uint64(r.Size) {
			return nil, fmt.Errorf("field %s [%d+%d] is outside the %d-bit register", x.Name, lsb, width, r.Size)
		}
		access := r.Access
		if x.Access != nil {
			access = strings.TrimSpace(*x.Access)
		}
		names, offs, err := dims(x.Name, x.xDim)
		if err != nil {
			return nil, err
		}
		for j, name := range names {
			f := &Field{Name: name, Description: deref(x.Description), BitOffset: int(lsb + offs[j]), BitWidth: int(width), Access: access}
			if f.BitOffset+f.BitWidth > r.Size {
				return nil, fmt.Errorf("field %s is outside the register", name)
			}
			for _, ev := range enumsOf(x.EnumeratedValues, xs) {
				for _, v := range ev.Values {
					e := EnumValue{Name: v.Name, Description: clean(v.Description)}
					if strings.TrimSpace(v.IsDefault) == "true" {
						e.IsDefault = true
					} else {
						if e.Value, e.Mask, err = parseEnumValue(v.Value); err != nil {
							return nil, fmt.Errorf("field %s, value %s: %w", name, v.Name, err)
						}
						if width < 64 {
							e.Mask &= 1<<width - 1
						}
					}
					f.Enums = append(f.Enums, e)
				}
			}
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].BitOffset < out[j].BitOffset })
	return out, nil
}

// enumsOf resolves enumeratedValues that derive from another set of the same register
// (by the set's name, or a path whose last element is that name).
func enumsOf(evs []xEnums, siblings []xField) []xEnums {
	var out []xEnums
	for _, ev := range evs {
		if ev.DerivedFrom != "" && len(ev.Values) == 0 {
			name := ev.DerivedFrom
			if i := strings.LastIndexByte(name, '.'); i >= 0 {
				name = name[i+1:]
			}
		find:
			for _, f := range siblings {
				for _, b := range f.EnumeratedValues {
					if b.Name == name && len(b.Values) > 0 {
						ev.Values = b.Values
						break find
					}
				}
			}
		}
		if ev.Usage == "write" && len(evs) > 1 {
			continue // a read view is what decoding needs; write-only sets are kept when alone
		}
		out = append(out, ev)
	}
	return out
}

// pick fills a property the element leaves unset with its base's (derivedFrom).
func pick(dst **string, b *string) {
	if *dst == nil {
		*dst = b
	}
}
