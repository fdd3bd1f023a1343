package svd

import "encoding/xml"

// The raw XML model: every optional element is a pointer (or a nil slice) so that
// derivedFrom can tell "absent, inherit it" from "given".

type xDevice struct {
	XMLName     xml.Name      `xml:"device"`
	Name        string        `xml:"name"`
	Description string        `xml:"description"`
	Width       *string       `xml:"width"`
	Size        *string       `xml:"size"`
	Access      *string       `xml:"access"`
	ResetValue  *string       `xml:"resetValue"`
	ResetMask   *string       `xml:"resetMask"`
	Peripherals []xPeripheral `xml:"peripherals>peripheral"`
}

type xDim struct {
	Dim          *string `xml:"dim"`
	DimIncrement *string `xml:"dimIncrement"`
	DimIndex     *string `xml:"dimIndex"`
}

type xPeripheral struct {
	DerivedFrom string `xml:"derivedFrom,attr"`
	xDim
	Name          string       `xml:"name"`
	Description   *string      `xml:"description"`
	GroupName     *string      `xml:"groupName"`
	BaseAddress   *string      `xml:"baseAddress"`
	Size          *string      `xml:"size"`
	Access        *string      `xml:"access"`
	ResetValue    *string      `xml:"resetValue"`
	ResetMask     *string      `xml:"resetMask"`
	Registers     *xRegisters  `xml:"registers"`
	AddressBlocks []xAddrBlock `xml:"addressBlock"`
}

type xAddrBlock struct {
	Offset string `xml:"offset"`
	Size   string `xml:"size"`
	Usage  string `xml:"usage"`
}

type xRegisters struct {
	Items []xRegOrCluster `xml:",any"`
}

// xRegOrCluster is a <register> or a <cluster>, in document order.
type xRegOrCluster struct {
	XMLName     xml.Name
	DerivedFrom string `xml:"derivedFrom,attr"`
	xDim
	Name          string          `xml:"name"`
	DisplayName   *string         `xml:"displayName"`
	Description   *string         `xml:"description"`
	AddressOffset *string         `xml:"addressOffset"`
	Size          *string         `xml:"size"`
	Access        *string         `xml:"access"`
	ResetValue    *string         `xml:"resetValue"`
	ResetMask     *string         `xml:"resetMask"`
	Fields        *[]xField       `xml:"fields>field"`
	Items         []xRegOrCluster `xml:",any"` // a cluster's registers and clusters
	// AlternateGroup names the group of a register that shares its name (and usually its
	// address) with another register of the peripheral: the same register read another way.
	AlternateGroup string `xml:"alternateGroup"`
}

type xField struct {
	DerivedFrom string `xml:"derivedFrom,attr"`
	xDim
	Name             string   `xml:"name"`
	Description      *string  `xml:"description"`
	BitOffset        *string  `xml:"bitOffset"`
	BitWidth         *string  `xml:"bitWidth"`
	LSB              *string  `xml:"lsb"`
	MSB              *string  `xml:"msb"`
	BitRange         *string  `xml:"bitRange"`
	Access           *string  `xml:"access"`
	EnumeratedValues []xEnums `xml:"enumeratedValues"`
}

type xEnums struct {
	DerivedFrom string   `xml:"derivedFrom,attr"`
	Name        string   `xml:"name"`
	Usage       string   `xml:"usage"`
	Values      []xEnumV `xml:"enumeratedValue"`
}

type xEnumV struct {
	Name        string `xml:"name"`
	Description string `xml:"description"`
	Value       string `xml:"value"`
	IsDefault   string `xml:"isDefault"`
}
