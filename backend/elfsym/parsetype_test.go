package elfsym

import "testing"

// FuzzParseType: any type name a user types (a cast, ptype, sizeof) is parsed without a
// panic or a hang, and a type it gives can be named.
func FuzzParseType(f *testing.F) {
	for _, s := range []string{"int", "unsigned", "long unsigned int *", "int (*)(int, char *)", "char (*)[8]",
		"int (**)(void)", "void (*)(void)", "int (*)(", "(*)", "int (", "int ()()", "char (**)[2][3]", "int[3]",
		"int (*)(int (*)(int))", "const char *", "struct nosuch *"} {
		f.Add(s)
	}
	file := buildNative(f)
	f.Fuzz(func(t *testing.T, s string) {
		if typ, err := file.ParseType(s); err == nil && typ != nil {
			_ = TypeName(typ)
		}
	})
}
