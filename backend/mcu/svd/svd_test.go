package svd

import (
	"errors"
	"strings"
	"testing"
)

const tricky = `<device>
  <name>TRICKY</name>
  <size>32</size>
  <access>read-write</access>
  <resetValue>0</resetValue>
  <resetMask>0xFFFFFFFF</resetMask>
  <peripherals>
    <peripheral>
      <name>DMA</name>
      <baseAddress>0x40020000</baseAddress>
      <size>16</size>
      <resetValue>0x1234</resetValue>
      <registers>
        <register>
          <name>ISR</name>
          <addressOffset>0</addressOffset>
          <size>32</size>
          <access>read-only</access>
          <fields>
            <field><name>GIF%s</name><dim>3</dim><dimIncrement>4</dimIncrement><dimIndex>1,2,3</dimIndex><bitOffset>0</bitOffset><bitWidth>1</bitWidth></field>
          </fields>
        </register>
        <cluster>
          <dim>2</dim>
          <dimIncrement>0x20</dimIncrement>
          <name>CH[%s]</name>
          <addressOffset>0x10</addressOffset>
          <access>read-write</access>
          <register>
            <name>CCR</name>
            <addressOffset>0x0</addressOffset>
            <fields>
              <field>
                <name>PL</name><lsb>12</lsb><msb>13</msb>
                <enumeratedValues>
                  <name>Priority</name>
                  <enumeratedValue><name>LOW</name><value>0</value></enumeratedValue>
                  <enumeratedValue><name>HIGH</name><value>#1x</value></enumeratedValue>
                </enumeratedValues>
              </field>
              <field derivedFrom="PL"><name>PL2</name><bitOffset>14</bitOffset><bitWidth>2</bitWidth></field>
            </fields>
          </register>
          <register derivedFrom="CCR">
            <name>CCR_ALT</name>
            <addressOffset>0x4</addressOffset>
          </register>
          <cluster>
            <name>SUB</name>
            <addressOffset>0x8</addressOffset>
            <register><name>X</name><addressOffset>0x2</addressOffset><resetValue>7</resetValue></register>
          </cluster>
        </cluster>
      </registers>
    </peripheral>
    <peripheral derivedFrom="DMA">
      <name>DMA2</name>
      <baseAddress>0x40020400</baseAddress>
      <description>second</description>
    </peripheral>
    <peripheral>
      <dim>2</dim>
      <dimIncrement>0x100</dimIncrement>
      <dimIndex>A-B</dimIndex>
      <name>GPIO%s</name>
      <baseAddress>0x50000000</baseAddress>
      <registers><register><name>ODR</name><addressOffset>0x14</addressOffset></register></registers>
    </peripheral>
  </peripherals>
</device>`

func TestTricky(t *testing.T) {
	d, err := Parse(strings.NewReader(tricky))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range d.Peripherals {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, ","); got != "DMA,DMA2,GPIOA,GPIOB" {
		t.Fatalf("peripherals %s", got)
	}
	type want struct {
		p, r       string
		addr       uint64
		size       int
		access     string
		reset      uint64
		fieldNames string
	}
	for _, w := range []want{
		{"DMA", "ISR", 0x40020000, 32, "read-only", 0x1234, "GIF1,GIF2,GIF3"},
		{"dma", "ch[0].ccr", 0x40020010, 16, "read-write", 0x1234, "PL,PL2"},
		{"DMA", "CH[1].CCR", 0x40020030, 16, "read-write", 0x1234, "PL,PL2"},
		{"DMA", "CH[1].CCR_ALT", 0x40020034, 16, "read-write", 0x1234, "PL,PL2"},
		{"DMA", "CH[1].SUB.X", 0x4002003A, 16, "read-write", 7, ""},
		{"DMA2", "CH[1].SUB.X", 0x4002043A, 16, "read-write", 7, ""},
		{"GPIOB", "ODR", 0x50000114, 32, "read-write", 0, ""},
	} {
		_, r, err := d.Register(w.p, w.r)
		if err != nil {
			t.Errorf("%s.%s: %v", w.p, w.r, err)
			continue
		}
		var fn []string
		for _, f := range r.Fields {
			fn = append(fn, f.Name)
		}
		if r.Address != w.addr || r.Size != w.size || r.Access != w.access || r.ResetValue != w.reset || strings.Join(fn, ",") != w.fieldNames {
			t.Errorf("%s.%s = %#x %d %s %#x %v, want %+v", w.p, w.r, r.Address, r.Size, r.Access, r.ResetValue, fn, w)
		}
	}
	_, isr, _ := d.Register("DMA", "ISR")
	if f, _ := isr.Field("GIF3"); f.BitOffset != 8 {
		t.Errorf("GIF3 at bit %d", f.BitOffset)
	}
	_, ccr, _ := d.Register("DMA", "CH[0].CCR")
	pl2, err := ccr.Field("pl2")
	if err != nil || pl2.BitOffset != 14 || pl2.BitWidth != 2 || len(pl2.Enums) != 2 {
		t.Fatalf("PL2 = %+v, %v", pl2, err)
	}
	for v, name := range map[uint64]string{0: "LOW", 1: "", 2: "HIGH", 3: "HIGH"} {
		if got := pl2.EnumName(v); got != name {
			t.Errorf("EnumName(%d) = %q, want %q", v, got, name)
		}
	}
	if p, _ := d.Peripheral("DMA2"); p.Description != "second" || p.DerivedFrom != "DMA" {
		t.Errorf("DMA2 = %+v", p)
	}
}

func TestLM3S6965(t *testing.T) {
	d, err := ParseFile("testdata/lm3s6965.svd")
	if err != nil {
		t.Fatal(err)
	}
	_, dr, err := d.Register("UART1", "DR")
	if err != nil || dr.Address != 0x4000D000 {
		t.Fatalf("UART1.DR = %+v, %v", dr, err)
	}
	_, id, err := d.Register("UART2", "PeriphID3")
	if err != nil || id.Address != 0x4000EFEC || id.Access != "read-only" {
		t.Fatalf("UART2.PeriphID3 = %+v, %v", id, err)
	}
	if _, r, err := d.Register("UART0", "PCellID[3]"); err != nil || r.Address != 0x4000CFFC {
		t.Fatalf("PCellID[3] = %+v, %v", r, err)
	}
	_, fr, _ := d.Register("UART0", "FR")
	got := fr.Decode(0x90)
	var parts []string
	for _, f := range got {
		s := f.Name + "="
		if f.Enum != "" {
			s += f.Enum
		} else {
			s += string(rune('0' + f.Value))
		}
		parts = append(parts, s)
	}
	if s := strings.Join(parts, " "); s != "CTS=0 BUSY=0 RXFE=EMPTY TXFF=0 RXFF=0 TXFE=EMPTY" {
		t.Errorf("decode FR = %s", s)
	}
	_, did0, err := d.Register("SYSCTL", "ID.DID0")
	if err != nil || did0.Address != 0x400FE000 || did0.Access != "read-only" {
		t.Fatalf("DID0 = %+v %v", did0, err)
	}
	cls, _ := did0.Field("CLASS")
	if cls.EnumName(1) != "FURY" || cls.EnumName(9) != "OTHER" {
		t.Errorf("CLASS names %q %q", cls.EnumName(1), cls.EnumName(9))
	}
	if v, ok := cls.EnumValue("dustdevil"); !ok || v != 3 {
		t.Errorf("EnumValue = %d %v", v, ok)
	}
	_, lcrh, _ := d.Register("UART0", "LCRH")
	wlen, _ := lcrh.Field("WLEN")
	v, err := wlen.Insert(0xFFFF_FF1F, 2)
	if err != nil || v != 0xFFFF_FF5F {
		t.Errorf("Insert = %#x %v", v, err)
	}
	if _, err := wlen.Insert(0, 4); err == nil {
		t.Error("Insert of a too wide value succeeded")
	}
	if wlen.Extract(0x60) != 3 {
		t.Error("Extract")
	}
	if _, _, err := d.Register("UART9", "DR"); !errors.Is(err, ErrNoPeripheral) {
		t.Errorf("unknown peripheral: %v", err)
	}
	if _, _, err := d.Register("UART0", "NOPE"); !errors.Is(err, ErrNoRegister) {
		t.Errorf("unknown register: %v", err)
	}
	if _, err := dr.Field("NOPE"); !errors.Is(err, ErrNoField) {
		t.Errorf("unknown field: %v", err)
	}
}

// TI's TM4C123 (and MSP432E4, Infineon XMC4x00) SVDs define a register twice, the second
// in an alternateGroup: both load, the second named NAME_<group> as svd2rust names it.
func TestAlternateGroup(t *testing.T) {
	doc := `<device><name>TM4C</name><peripherals><peripheral><name>I2C0</name><baseAddress>0x40020000</baseAddress>
<registers>
<register><name>MCS</name><description>I2C Master Control/Status</description><addressOffset>0x4</addressOffset><size>32</size>
<fields><field><name>BUSY</name><bitOffset>0</bitOffset><bitWidth>1</bitWidth></field></fields></register>
<register><name>MCS</name><alternateGroup>I2C0_ALT</alternateGroup><addressOffset>0x4</addressOffset><size>32</size>
<fields><field><name>RUN</name><bitOffset>0</bitOffset><bitWidth>1</bitWidth></field></fields></register>
</registers></peripheral></peripherals></device>`
	d, err := Parse(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	_, a, err := d.Register("I2C0", "MCS")
	if err != nil || a.Fields[0].Name != "BUSY" || a.Address != 0x40020004 {
		t.Fatalf("MCS: %+v %v", a, err)
	}
	_, b, err := d.Register("I2C0", "MCS_I2C0_ALT")
	if err != nil || b.Fields[0].Name != "RUN" || b.Address != 0x40020004 {
		t.Fatalf("MCS_I2C0_ALT: %+v %v", b, err)
	}
	// without the group the file is still refused: the same name twice
	if _, err := Parse(strings.NewReader(strings.Replace(doc, "<alternateGroup>I2C0_ALT</alternateGroup>", "", 1))); err == nil {
		t.Error("a register defined twice loads")
	}
}

func TestErrors(t *testing.T) {
	for name, doc := range map[string]string{
		"not xml":        "<device><name>x</name>",
		"cycle":          `<device><peripherals><peripheral derivedFrom="B"><name>A</name></peripheral><peripheral derivedFrom="A"><name>B</name></peripheral></peripherals></device>`,
		"unknown base":   `<device><peripherals><peripheral derivedFrom="Z"><name>A</name></peripheral></peripherals></device>`,
		"no base addr":   `<device><peripherals><peripheral><name>A</name></peripheral></peripherals></device>`,
		"field too wide": `<device><peripherals><peripheral><name>A</name><baseAddress>0</baseAddress><registers><register><name>R</name><addressOffset>0</addressOffset><size>8</size><fields><field><name>F</name><bitRange>[8:0]</bitRange></field></fields></register></registers></peripheral></peripherals></device>`,
		"dim no %s":      `<device><peripherals><peripheral><name>A</name><baseAddress>0</baseAddress><registers><register><dim>2</dim><name>R</name><addressOffset>0</addressOffset></register></registers></peripheral></peripherals></device>`,
		"bad dimIndex":   `<device><peripherals><peripheral><name>A</name><baseAddress>0</baseAddress><registers><register><dim>2</dim><dimIndex>0-5</dimIndex><name>R%s</name><addressOffset>0</addressOffset></register></registers></peripheral></peripherals></device>`,
		"reg cycle":      `<device><peripherals><peripheral><name>A</name><baseAddress>0</baseAddress><registers><register derivedFrom="S"><name>R</name></register><register derivedFrom="R"><name>S</name></register></registers></peripheral></peripherals></device>`,
		"bad number":     `<device><peripherals><peripheral><name>A</name><baseAddress>zz</baseAddress></peripheral></peripherals></device>`,
	} {
		if _, err := Parse(strings.NewReader(doc)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(tricky)
	f.Fuzz(func(t *testing.T, doc string) {
		d, err := Parse(strings.NewReader(doc))
		if err != nil {
			return
		}
		for _, p := range d.Peripherals {
			for _, r := range p.Registers {
				r.Decode(^uint64(0))
			}
		}
	})
}

// A file whose dim arrays expand to millions of registers is refused quickly.
func TestDimExpansionLimit(t *testing.T) {
	doc := `<device><name>BIG</name><size>32</size><peripherals><peripheral>
<name>P%s</name><dim>64</dim><dimIncrement>0x10000</dimIncrement><baseAddress>0x40000000</baseAddress><registers>
<cluster><name>A[%s]</name><dim>4096</dim><dimIncrement>0x100</dimIncrement><addressOffset>0</addressOffset>
<cluster><name>B[%s]</name><dim>4096</dim><dimIncrement>4</dimIncrement><addressOffset>0</addressOffset>
<register><name>R</name><addressOffset>0</addressOffset></register>
</cluster></cluster></registers></peripheral></peripherals></device>`
	_, err := Parse(strings.NewReader(doc))
	if err == nil || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("err = %v", err)
	}
	_, err = Parse(strings.NewReader(strings.Replace(doc, "<dim>64</dim>", "<dim>4097</dim>", 1)))
	if err == nil || !strings.Contains(err.Error(), "bad dim") {
		t.Fatalf("dim over MaxDim: err = %v", err)
	}
}
