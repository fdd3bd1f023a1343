package elfsym

import "testing"

// FuzzParseType: any type name a user types (a cast, ptype, sizeof) is parsed without a
// panic or a hang, and a type it gives can be named.
func FuzzParseType(f *testing.F) {
	for _, s := range []string{"int", "unsigned", "long unsigned int *", "int (*)(int, char *)", "char (*)[8]",
		"int (**)(void)", "void (*)(void)", "int (*)(", "(*)", "int (", "int ()()", "char (**)[2][3]", "int[3]",
		"int (*)(int (*)(int))", "const char *", "struct nosuch *", "int (*[2])(int, int)", "int (*(*)[2])(int, int)",
		"char (*[2])[4]", "int (*)[]", "int ((*))", "int (*(*(*)[2])(int))[3]", "int (*)[-1]", "int ()[", "void [2]"} {
		f.Add(s)
	}
	file := buildNative(f)
	f.Fuzz(func(t *testing.T, s string) {
		if typ, err := file.ParseType(s); err == nil && typ != nil {
			_ = TypeName(typ)
		}
	})
}

// C's declarators nest: a type parsed is named back as written, as gdb names it.
func TestParseTypeNamesBack(t *testing.T) {
	file := buildNative(t)
	for _, s := range []string{"int (*[2])(int, int)", "int (*(*)[2])(int, int)", "char (*[2])[4]", "int (*)[]",
		"int (**[3])(void)", "char *(*)[3]", "int (*(*)(int))[3]", "int (*(*)(int (*)(int)))(char)", "int [2][3]"} {
		typ, err := file.ParseType(s)
		if err != nil {
			t.Errorf("%s: %v", s, err)
			continue
		}
		if got := TypeName(typ); got != s {
			t.Errorf("%s named %s", s, got)
		}
	}
}
