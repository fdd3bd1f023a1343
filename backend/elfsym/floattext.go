package elfsym

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
)

// Floating-point numbers as gdb prints them: %.Ng with the digits that always read back the
// same value (9 for a float, 17 for a double, 5 for a half, 4 for a bfloat16, 21 for x87's
// 80-bit extended), "inf", and a NaN with its mantissa ("-nan(0x8000000000000)").

// FloatFormat is a binary floating-point format: its exponent and stored mantissa bits.
type FloatFormat struct {
	ExpBits, MantBits int
	// IntBit says the mantissa stores its leading 1 (x87's extended format).
	IntBit bool
}

// The formats of the floating-point types targets describe.
var (
	Half     = FloatFormat{ExpBits: 5, MantBits: 10}
	BFloat16 = FloatFormat{ExpBits: 8, MantBits: 7}
	Single   = FloatFormat{ExpBits: 8, MantBits: 23}
	Double   = FloatFormat{ExpBits: 11, MantBits: 52}
	Extended = FloatFormat{ExpBits: 15, MantBits: 64, IntBit: true}
)

// digits is gdb's precision for the format: 2 + the mantissa's bits × log10(2).
func (f FloatFormat) digits() int {
	bits := f.MantBits
	if !f.IntBit {
		bits++
	}
	return int(2 + float64(bits)*0.30103)
}

// FloatText is the number whose bits (the low 1 + ExpBits + MantBits of bits, hi holding
// any above 64) are in format f, as gdb prints it.
func FloatText(f FloatFormat, hi, bits uint64) string {
	mant := bits & (1<<uint(f.MantBits) - 1)
	if f.MantBits == 64 {
		mant = bits
	}
	expAndSign := bits >> uint(f.MantBits)
	if f.MantBits == 64 {
		expAndSign = hi
	}
	exp := int(expAndSign & (1<<uint(f.ExpBits) - 1))
	sign := expAndSign>>uint(f.ExpBits)&1 == 1
	minus := ""
	if sign {
		minus = "-"
	}
	frac := mant
	if f.IntBit {
		frac = mant &^ (1 << 63)
	}
	if exp == 1<<uint(f.ExpBits)-1 {
		if frac == 0 {
			return minus + "inf"
		}
		return fmt.Sprintf("%snan(%#x)", minus, mant)
	}
	if f.IntBit { // x87: more mantissa than a float64 holds
		x := new(big.Float).SetPrec(64).SetMantExp(new(big.Float).SetUint64(mant), exp-16383-63)
		if exp == 0 {
			x.SetMantExp(new(big.Float).SetUint64(mant), -16382-63)
		}
		if sign {
			x.Neg(x)
		}
		return trimFloat(x.Text('g', f.digits()))
	}
	var x float64
	bias := 1<<uint(f.ExpBits-1) - 1
	if exp == 0 { // zero or subnormal
		x = math.Ldexp(float64(mant), 1-bias-f.MantBits)
	} else {
		x = math.Ldexp(float64(mant|1<<uint(f.MantBits)), exp-bias-f.MantBits)
	}
	if sign {
		x = -x
	}
	return strconv.FormatFloat(x, 'g', f.digits(), 64)
}

// trimFloat takes the zeros after the last digit of a fraction away, as C's %g does
// (big.Float's 'g' keeps them): "1.50000" is "1.5", "2.000e+10" is "2e+10".
func trimFloat(s string) string {
	mant, exp := s, ""
	for i := range len(s) {
		if s[i] == 'e' {
			mant, exp = s[:i], s[i:]
			break
		}
	}
	hasDot := false
	for i := range len(mant) {
		hasDot = hasDot || mant[i] == '.'
	}
	if !hasDot {
		return s
	}
	for len(mant) > 0 && mant[len(mant)-1] == '0' {
		mant = mant[:len(mant)-1]
	}
	if len(mant) > 0 && mant[len(mant)-1] == '.' {
		mant = mant[:len(mant)-1]
	}
	return mant + exp
}

// ParseFloatText reads a number as FloatText writes it (or as Go's ParseFloat reads one):
// "inf", "-nan(0x8000000000000)" too.
func ParseFloatText(s string) (float64, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f, nil
	}
	body, minus := s, false
	if len(body) > 0 && body[0] == '-' {
		body, minus = body[1:], true
	}
	var f float64
	switch {
	case body == "inf":
		f = math.Inf(1)
	case len(body) > 5 && body[:4] == "nan(" && body[len(body)-1] == ')':
		f = math.NaN()
	default:
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if minus {
		f = math.Copysign(f, -1)
	}
	return f, nil
}
