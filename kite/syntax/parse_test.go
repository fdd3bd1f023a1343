package syntax

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mustParse(t *testing.T, src string) *File {
	t.Helper()
	f, err := Parse("t.kite", []byte(src))
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	if err := checkPositions([]byte(src), stmtNodes(f.Stmts)...); err != nil {
		t.Errorf("Parse(%q): %v", src, err)
	}
	return f
}

func stmtNodes(list []Stmt) []Node {
	var nodes []Node
	for _, s := range list {
		nodes = append(nodes, s)
	}
	return nodes
}

func TestParseStmts(t *testing.T) {
	tests := []struct{ src, want string }{
		{"", ""},
		{"\n\n;;\n", ""},
		{"let x = 1", "(let x 1)"},
		{"const X = 2", "(const X 2)"},
		{"let x = 1; let y = x\n", "(let x 1) (let y x)"},
		{"x = 1", "(= x 1)"},
		{"x += 1\nx -= 2\nx *= 3\nx /= 4\nx %= 5", "(+= x 1) (-= x 2) (*= x 3) (/= x 4) (%= x 5)"},
		{"xs[i] = e", "(= (index xs i) e)"},
		{"m.key = e", "(= (dot m key) e)"},
		{"m.a.b[0].c += 1", "(+= (dot (index (dot (dot m a) b) 0) c) 1)"},
		{"f(x)", "(expr (call f x))"},
		{"x", "(expr x)"},
		{"fn f() {}", "(fnstmt (fn f () (block)))"},
		{"fn add(a, b) { return a + b }", "(fnstmt (fn add (a b) (block (return (+ a b)))))"},
		{"fn f(a, b,) {\n}", "(fnstmt (fn f (a b) (block)))"},
		{"fn f(\n  a,\n  b\n) {\n  return\n}", "(fnstmt (fn f (a b) (block (return))))"},
		{"fn() { return 1 }()", "(expr (call (fn () (block (return 1)))))"},
		{"fn(x) {}", "(expr (fn (x) (block)))"},
		{"let f = fn(x) { return x * 2 }", "(let f (fn (x) (block (return (* x 2)))))"},
		{"{}", "(block)"},
		{"{ let x = 1 }", "(block (let x 1))"},
		{"{\n  { x }\n}", "(block (block (expr x)))"},
		{"if c { a }", "(if c (block (expr a)))"},
		{"if c { a } else { b }", "(if c (block (expr a)) (block (expr b)))"},
		{"if a { } else if b { } else { }", "(if a (block) (if b (block) (block)))"},
		{"if a {\n} else if b {\n} else if c {\n}\n", "(if a (block) (if b (block) (if c (block))))"},
		{"while i < 10 { i += 1 }", "(while (< i 10) (block (+= i 1)))"},
		{"while true {\n  break\n  continue\n}", "(while true (block break continue))"},
		{"for x in xs { print(x) }", "(for x xs (block (expr (call print x))))"},
		{"for k, v in m {}", "(for k v m (block))"},
		{"for i in range(0, 10) {}", "(for i (call range 0 10) (block))"},
		{"for x in (m) {}", "(for x (paren m) (block))"},
		{"for x in ({\"a\": 1}) {}", `(for x (paren (map ("a" 1))) (block))`},
		{"if f(fn() { return {} }) {}", "(if (call f (fn () (block (return (map))))) (block))"},
		{"if xs[0] {}", "(if (index xs 0) (block))"},
		{"if (m) {}", "(if (paren m) (block))"},
		{"return", "(return)"},
		{"return x", "(return x)"},
		{"return\nx", "(return) (expr x)"},
		{"fn f() { return }", "(fnstmt (fn f () (block (return))))"},
		{"fn f() { return; }", "(fnstmt (fn f () (block (return))))"},
		{"fn f() { if x { return 1 }; return 2 }", "(fnstmt (fn f () (block (if x (block (return 1))) (return 2))))"},
		{"break; continue", "break continue"},
		{"f(\n  1,\n  2,\n)", "(expr (call f 1 2))"},
		{"let xs = [\n  1,\n  2\n]", "(let xs (list 1 2))"},
		{"let m = {\n  a: 1,\n\n  \"b\": 2,\n}", `(let m (map ("a" 1) ("b" 2)))`},
		{"let x = (1\n + 2\n)", "(let x (paren (+ 1 2)))"},
		{"let x = a[\n 0\n]", "(let x (index a 0))"},
		{"let f = fn(x) {\n  return x\n}\nf(1)", "(let f (fn (x) (block (return x)))) (expr (call f 1))"},
		{"map(xs, fn(x) {\n  return x\n}\n, 2)", "(expr (call map xs (fn (x) (block (return x))) 2))"},
		{"print(\"sum: ${total}\")", `(expr (call print (interp "sum: " total)))`},
		{"x = 1 // comment\n// another\ny = 2", "(= x 1) (= y 2)"},
		{"let x =\n  1", "(let x 1)"},
		{"let x = a +\n  b *\n  c", "(let x (+ a (* b c)))"},
	}
	for _, tt := range tests {
		f := mustParse(t, tt.src)
		if got := dumpStmts(f.Stmts); got != tt.want {
			t.Errorf("Parse(%q):\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

func TestParseExprs(t *testing.T) {
	tests := []struct{ src, want string }{
		// Precedence and associativity.
		{"a or b and c", "(or a (and b c))"},
		{"a and b or c", "(or (and a b) c)"},
		{"a or b or c", "(or (or a b) c)"},
		{"not a and b", "(and (not a) b)"},
		{"not a == b", "(not (== a b))"},
		{"not not a", "(not (not a))"},
		{"a == b and c != d", "(and (== a b) (!= c d))"},
		{"a < b + c", "(< a (+ b c))"},
		{"a + b < c * d", "(< (+ a b) (* c d))"},
		{"a <= b", "(<= a b)"},
		{"a > b", "(> a b)"},
		{"a >= b", "(>= a b)"},
		{"a - b - c", "(- (- a b) c)"},
		{"a + b * c", "(+ a (* b c))"},
		{"a * b + c", "(+ (* a b) c)"},
		{"a / b % c * d", "(* (% (/ a b) c) d)"},
		{"-a * b", "(* (- a) b)"},
		{"-a.b", "(- (dot a b))"},
		{"- -a", "(- (- a))"},
		{"--a", "(- (- a))"},
		{"-f(x)[0]", "(- (index (call f x) 0))"},
		{"(a + b) * c", "(* (paren (+ a b)) c)"},
		{"(-a).b", "(dot (paren (- a)) b)"},
		{"a - -1", "(- a (- 1))"},
		// Postfix.
		{"f()", "(call f)"},
		{"f(a, b)", "(call f a b)"},
		{"f(a, b,)", "(call f a b)"},
		{"f(a)(b)", "(call (call f a) b)"},
		{"a[i][j]", "(index (index a i) j)"},
		{"m.a.b", "(dot (dot m a) b)"},
		{"m.f(x).y[0]", "(index (dot (call (dot m f) x) y) 0)"},
		{"xs[i + 1]", "(index xs (+ i 1))"},
		{"xs[{\"a\": 1}[\"a\"]]", `(index xs (index (map ("a" 1)) "a"))`},
		// Literals.
		{"12", "12"},
		{"0x1f", "31"},
		{"1_000", "1000"},
		{"3.5", "3.5f"},
		{"1e9", "1e+09f"},
		{`"text\n"`, `"text\n"`},
		{"true", "true"},
		{"false", "false"},
		{"nil", "nil"},
		{"[]", "(list)"},
		{"[1, 2]", "(list 1 2)"},
		{"[1, 2,]", "(list 1 2)"},
		{"[[1], [2, [3]]]", "(list (list 1) (list 2 (list 3)))"},
		{"{}", "(map)"},
		{`{"k": 1, k2: 2}`, `(map ("k" 1) ("k2" 2))`},
		{`{(k): 1}`, `(map ((paren k) 1))`},
		{`{1: "a", true: "b", 2.5: nil, k + "x": 3,}`, `(map (1 "a") (true "b") (2.5f nil) ((+ k "x") 3))`},
		{`{a: {b: [1]}}`, `(map ("a" (map ("b" (list 1)))))`},
		{"fn() {}", "(fn () (block))"},
		{"fn(a, b) { return a }", "(fn (a b) (block (return a)))"},
		{"fn(a,) { }", "(fn (a) (block))"},
		// Interpolation.
		{`"a${x}b"`, `(interp "a" x "b")`},
		{`"${x}"`, `(interp x)`},
		{`"${x}${y}"`, `(interp x y)`},
		{`"\t${x}\n"`, `(interp "\t" x "\n")`},
		{`"${m["k"]}"`, `(interp (index m "k"))`},
		{`"${ {"a": 1}["a"] }"`, `(interp (index (map ("a" 1)) "a"))`},
		{`"${"inner ${x + 1}!"} end"`, `(interp (interp "inner " (+ x 1) "!") " end")`},
		{`"${""}"`, `(interp "")`},
		{`"${fn() { return 1 }()}"`, `(interp (call (fn () (block (return 1)))))`},
		{`"a\${x}"`, `"a${x}"`},
		{"f(\"${a}\",\n \"${b}\")", `(call f (interp a) (interp b))`},
	}
	for _, tt := range tests {
		x, err := ParseExpr("t.kite", []byte(tt.src))
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", tt.src, err)
			continue
		}
		if got := dump(x); got != tt.want {
			t.Errorf("ParseExpr(%q):\n got %s\nwant %s", tt.src, got, tt.want)
		}
		if err := checkPositions([]byte(tt.src), x); err != nil {
			t.Errorf("ParseExpr(%q): %v", tt.src, err)
		}
		// The expression statement parses the same way.
		if !strings.HasPrefix(tt.src, "{") && !strings.HasPrefix(tt.src, "fn") {
			f, err := Parse("t.kite", []byte(tt.src))
			if err != nil {
				t.Errorf("Parse(%q): %v", tt.src, err)
			} else if got := dumpStmts(f.Stmts); got != "(expr "+tt.want+")" {
				t.Errorf("Parse(%q):\n got %s\nwant (expr %s)", tt.src, got, tt.want)
			}
		}
	}
}

func TestLiteralFields(t *testing.T) {
	tests := []struct {
		src   string
		kind  Token
		raw   string
		value any
	}{
		{"12", INT, "12", int64(12)},
		{"0x1f", INT, "0x1f", int64(31)},
		{"1_000", INT, "1_000", int64(1000)},
		{"9223372036854775807", INT, "9223372036854775807", int64(9223372036854775807)},
		{"3.5", FLOAT, "3.5", 3.5},
		{"1e9", FLOAT, "1e9", 1e9},
		{`"a\tb"`, STRING, `"a\tb"`, "a\tb"},
		{`"\u{1F600}"`, STRING, `"\u{1F600}"`, "😀"},
		{`""`, STRING, `""`, ""},
		{"true", TRUE, "true", true},
		{"false", FALSE, "false", false},
		{"nil", NIL, "nil", nil},
	}
	for _, tt := range tests {
		x, err := ParseExpr("t", []byte(tt.src))
		if err != nil {
			t.Fatalf("%q: %v", tt.src, err)
		}
		l, ok := x.(*Literal)
		if !ok {
			t.Fatalf("%q: %T", tt.src, x)
		}
		if l.Kind != tt.kind || l.Raw != tt.raw || l.Value != tt.value || l.ValuePos != (Pos{1, 1}) {
			t.Errorf("%q: got %+v, want kind %v raw %q value %#v", tt.src, *l, tt.kind, tt.raw, tt.value)
		}
	}
}

func TestInterpParts(t *testing.T) {
	src := `  "ab${x}c\n${ m["k"] }"`
	x, err := ParseExpr("t", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	s, ok := x.(*InterpString)
	if !ok || s.QuotePos != (Pos{1, 3}) || len(s.Parts) != 4 {
		t.Fatalf("got %s at %v", dump(x), x.Pos())
	}
	type part struct {
		pos  Pos
		dump string
		raw  string
	}
	want := []part{{Pos{1, 4}, `"ab"`, "ab"}, {Pos{1, 8}, "x", ""}, {Pos{1, 10}, `"c\n"`, `c\n`}, {Pos{1, 16}, `(index m "k")`, ""}}
	for i, w := range want {
		p := s.Parts[i]
		if p.Pos() != w.pos || dump(p) != w.dump {
			t.Errorf("part %d: %s at %v, want %s at %v", i, dump(p), p.Pos(), w.dump, w.pos)
		}
		if l, ok := p.(*Literal); ok && w.raw != "" && l.Raw != w.raw {
			t.Errorf("part %d: raw %q, want %q", i, l.Raw, w.raw)
		}
	}
	ix := s.Parts[3].(*IndexExpr)
	if ix.Index.Pos() != (Pos{1, 18}) || ix.Lbrack != (Pos{1, 17}) {
		t.Errorf("index positions %v %v", ix.Lbrack, ix.Index.Pos())
	}
	// Nested interpolations have positions in the file.
	x, err = ParseExpr("t", []byte(`"${"${"${deep}"}"}"`))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		x = x.(*InterpString).Parts[0]
	}
	if id, ok := x.(*Ident); !ok || id.Name != "deep" || id.NamePos != (Pos{1, 10}) {
		t.Errorf("innermost: %s at %v", dump(x), x.Pos())
	}
}

// positions lists "Type@line:col" for every node of a file in source order.
func positions(f *File) string {
	var out []string
	for _, s := range f.Stmts {
		inspect(s, func(n Node) {
			name := strings.TrimPrefix(strings.TrimPrefix(typeName(n), "*syntax."), "syntax.")
			out = append(out, name+"@"+n.Pos().String())
		})
	}
	return strings.Join(out, " ")
}

func typeName(n Node) string {
	switch n.(type) {
	case *Ident:
		return "Ident"
	case *Literal:
		return "Literal"
	case *InterpString:
		return "InterpString"
	case *ListExpr:
		return "List"
	case *MapExpr:
		return "Map"
	case *FuncLit:
		return "FuncLit"
	case *UnaryExpr:
		return "Unary"
	case *BinaryExpr:
		return "Binary"
	case *CallExpr:
		return "Call"
	case *IndexExpr:
		return "Index"
	case *DotExpr:
		return "Dot"
	case *ParenExpr:
		return "Paren"
	}
	return StmtKind(n.(Stmt))
}

func TestPositions(t *testing.T) {
	src := "fn f(a) {\n" + // 1
		"  let x = -a[1] + g(2).k\n" + // 2
		"  if not x { return } else if x { x = [1, {k: 2}] }\n" + // 3
		"\tfor i, v in xs { break }\n" + // 4
		"  while (x) { continue }\n" + // 5
		"  const C = \"s${x}\"\n" + // 6
		"}\n" +
		"{ f(fn() {}) }\n"
	f := mustParse(t, src)
	want := "Fn@1:1 FuncLit@1:1 Ident@1:6 Block@1:9 " +
		"Let@2:3 Ident@2:7 Binary@2:11 Unary@2:11 Index@2:12 Ident@2:12 Literal@2:14 Dot@2:19 Call@2:19 Ident@2:19 Literal@2:21 Ident@2:24 " +
		"If@3:3 Unary@3:6 Ident@3:10 Block@3:12 Return@3:14 If@3:28 Ident@3:31 Block@3:33 Assign@3:35 Ident@3:35 List@3:39 Literal@3:40 Map@3:43 Literal@3:44 Literal@3:47 " +
		"For@4:2 Ident@4:6 Ident@4:9 Ident@4:14 Block@4:17 Break@4:19 " +
		"While@5:3 Paren@5:9 Ident@5:10 Block@5:13 Continue@5:15 " +
		"Const@6:3 Ident@6:9 InterpString@6:13 Literal@6:14 Ident@6:17 " +
		"Block@8:1 ExprStmt@8:3 Call@8:3 Ident@8:3 FuncLit@8:5 Block@8:10"
	if got := positions(f); got != want {
		t.Errorf("positions:\n got %s\nwant %s", got, want)
	}
	fs := f.Stmts[0].(*FnStmt)
	if fs.Name.NamePos != (Pos{1, 4}) || fs.Func.Name != "f" || fs.Func.Body.Rbrace != (Pos{7, 1}) {
		t.Errorf("fn stmt: name at %v, func name %q, rbrace %v", fs.Name.NamePos, fs.Func.Name, fs.Func.Body.Rbrace)
	}
	let := fs.Func.Body.Stmts[0].(*LetStmt)
	bin := let.Value.(*BinaryExpr)
	if bin.OpPos != (Pos{2, 17}) || bin.X.(*UnaryExpr).X.(*IndexExpr).Lbrack != (Pos{2, 13}) {
		t.Errorf("binary op at %v", bin.OpPos)
	}
	dot := bin.Y.(*DotExpr)
	if dot.Dot != (Pos{2, 23}) || dot.X.(*CallExpr).Lparen != (Pos{2, 20}) {
		t.Errorf("dot at %v, lparen at %v", dot.Dot, dot.X.(*CallExpr).Lparen)
	}
	if as := fs.Func.Body.Stmts[1].(*IfStmt).Else.(*IfStmt).Then.Stmts[0].(*AssignStmt); as.OpPos != (Pos{3, 37}) || as.Op != EQ {
		t.Errorf("assign op at %v", as.OpPos)
	}
}

func TestStmtKinds(t *testing.T) {
	f := mustParse(t, "let a = 1\nconst B = 2\nfn f() {}\na = 2\nf()\nif a {}\nwhile a {}\nfor x in a {}\nwhile a { break; continue }\nreturn\n{}")
	var kinds []string
	for _, s := range f.Stmts {
		kinds = append(kinds, StmtKind(s))
	}
	kinds = append(kinds, StmtKind(f.Stmts[8].(*WhileStmt).Body.Stmts[0]), StmtKind(f.Stmts[8].(*WhileStmt).Body.Stmts[1]))
	want := "Let Const Fn Assign ExprStmt If While For While Return Block Break Continue"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("kinds %s, want %s", got, want)
	}
}

// errorsOf parses src and returns its errors, one "line:col: msg" per line.
func errorsOf(t *testing.T, src string) string {
	t.Helper()
	_, err := Parse("t.kite", []byte(src))
	return errorLines(t, err)
}

func errorLines(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error %T is not an ErrorList", err)
	}
	var lines []string
	for _, e := range list {
		if e.File != "t.kite" {
			t.Errorf("error file %q", e.File)
		}
		lines = append(lines, e.Pos.String()+": "+e.Msg)
	}
	return strings.Join(lines, "\n")
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"let = 5", "1:5: expected name after let, found '='"},
		{"let x 5", "1:7: expected '=' after let x, found number 5"},
		{"let x", "1:6: expected '=' after let x, found end of file"},
		{"const = 1", "1:7: expected name after const, found '='"},
		{"let x = ", "1:9: expected expression, found end of file"},
		{")", "1:1: unexpected ')'"},
		{"f(1, 2))", "1:8: unexpected ')' at end of statement"},
		{"x = = 1", "1:5: unexpected '='"},
		{"x + 1 = 2", "1:1: cannot assign to x + 1"},
		{"f() = 2", "1:1: cannot assign to f()"},
		{"(x) = 2", "1:1: cannot assign to (x)"},
		{"1 = 2", "1:1: cannot assign to 1"},
		{"a = b = c", "1:7: unexpected '=' at end of statement"},
		{"x y", "1:3: unexpected identifier y at end of statement"},
		{"let x = 1 2", "1:11: unexpected number 2 at end of statement"},
		{"a < b < c", "1:7: comparisons cannot be chained (write a < b and b < c)"},
		{"a == b != c", "1:8: comparisons cannot be chained (write a == b and b != c)"},
		{"a == not b", "1:6: expected expression, found 'not'"},
		{"+a", "1:1: expected expression, found '+'"},
		{"f(", "1:3: expected expression, found end of file"},
		{"f(1", "1:4: expected ')' to close argument list opened at 1:2, found end of file"},
		{"f(1 2)", "1:5: expected ',' or ')' in argument list, found number 2"},
		{"f(1,,2)", "1:5: unexpected ','"},
		{"f(,)", "1:3: unexpected ','"},
		{"[1, 2", "1:6: expected ']' to close list opened at 1:1, found end of file"},
		{"let a = [1, 2)", "1:14: expected ']' to close list opened at 1:9, found ')'"},
		{"let m = {a: 1, b 2}", "1:18: expected ':' after map key, found number 2"},
		{"let m = {a: 1 b: 2}", "1:15: expected ',' or '}' in map literal, found identifier b"},
		{"let m = {a: 1", "1:14: expected '}' to close map literal opened at 1:9, found end of file"},
		{"(1 + 2", "1:7: expected ')' to close '(' opened at 1:1, found end of file"},
		{"x = (1 + 2]", "1:11: expected ')' to close '(' opened at 1:5, found ']'"},
		{"xs[]", "1:4: missing index in []"},
		{"xs[1", "1:5: expected ']' to close index opened at 1:3, found end of file"},
		{"xs[1, 2]", "1:5: expected ']' to close index opened at 1:3, found ','"},
		{"m.1", "1:3: expected name after '.', found number 1"},
		{"m.if", "1:3: expected name after '.', found 'if'"},
		{"fn (a) {}", ""},
		{"fn f {}", "1:6: expected '(' after fn, found '{'"},
		{"fn f(1) {}", "1:6: expected parameter name, found number 1"},
		{"fn f(a b) {}", "1:8: expected ',' or ')' in parameter list, found identifier b"},
		{"fn f(a, b {\n}", "1:11: expected ')' to close parameter list opened at 1:5, found '{'"},
		{"fn f()", "1:7: expected '{' to begin the function body, found end of file"},
		{"fn f() return 1", "1:8: expected '{' to begin the function body, found 'return'"},
		{"let g = fn h() {}", "1:12: unexpected name h: a function literal has no name"},
		{"fn f() {", "1:9: expected '}' to close block opened at 1:8, found end of file"},
		{"fn f() {\n  let x = 1\n", "3:1: expected '}' to close block opened at 1:8, found end of file"},
		{"{", "1:2: expected '}' to close block opened at 1:1, found end of file"},
		{"}", "1:1: unexpected '}'"},
		{"if x", "1:5: expected '{' after if condition, found end of file"},
		{"if x\n{}", "1:5: expected '{' after if condition, found newline"},
		{"if {}", "1:4: missing condition in if statement"},
		{"while {}", "1:7: missing condition in while statement"},
		{"if x == {} {}", "1:9: unexpected '{' (put a map literal here in parentheses)"},
		{"if x {} else", "1:13: expected 'if' or '{' after else, found end of file"},
		{"if x {} else x", "1:14: expected 'if' or '{' after else, found identifier x"},
		{"if x {}\nelse {}", "2:1: unexpected 'else' (else must be on the same line as the '}' before it)"},
		{"while x {} else {}", "1:12: unexpected 'else' (else must follow the '}' of an if block)"},
		{"for in xs {}", "1:5: expected loop variable after for, found 'in'"},
		{"for x xs {}", "1:7: expected 'in' after the loop variables, found identifier xs"},
		{"for x, in xs {}", "1:8: expected second loop variable after ',', found 'in'"},
		{"for x in {}", "1:10: missing expression after 'in'"},
		{"for x in xs", "1:12: expected '{' after for ... in expression, found end of file"},
		{"return return", "1:8: expected expression, found 'return'"},
		{"break 1", "1:7: unexpected number 1 at end of statement"},
		{"else", "1:1: unexpected 'else' (else must be on the same line as the '}' before it)"},
		{"let in = 1", "1:5: expected name after let, found 'in'"},
		{"x = 1 +", "1:8: expected expression, found end of file"},
		{"x = @", "1:5: invalid character '@'"},
		{"x = a && b", "1:7: invalid operator && (use 'and')"},
		{"x = !a", "1:5: invalid character '!' (use 'not')"},
		{"print('hi')", `1:7: invalid character '\'' (strings are written in double quotes)`},
		{`print("${}")`, "1:10: empty expression in '${}'"},
		{`print("${a b}")`, "1:12: expected '}' to close '${' opened at 1:8, found identifier b"},
		{`print("${a +}")`, "1:13: unexpected '}'"},
		{"print(\"${x)\nlet y = 1", "1:11: expected '}' to close '${' opened at 1:8, found ')'"},
		{"print(\"${x + \")\nlet y = 1", "1:14: unterminated string (is a '}' missing to close the '${' at 1:8?)"},
		{"print(\"abc\nlet y = 1", "1:7: unterminated string"},
		{"print(\"${x}abc\nlet y = 1", "1:7: unterminated string"},
		{"print(\"${x\nlet y = 1", "1:11: expected '}' to close '${' opened at 1:8, found newline"},
		{`print("abc`, "1:7: unterminated string"},
		{`x = "a\qb"`, `1:7: invalid escape \q`},
		{"x = 0x", "1:5: invalid number literal 0x"},
		{"x = 99999999999999999999", "1:5: integer literal 99999999999999999999 overflows int64"},
		{"x = 1 +\n\nlet y = 2", "3:1: expected expression, found 'let'"},
		{"x := 1", "1:3: unexpected ':=' (declare a variable with let x = ...)"},
		{"x : 1", "1:3: unexpected ':' at end of statement"},
		{"if x = 1 {}", "1:6: unexpected '=' in if condition (compare with ==)"},
		{"while x = 1 {}", "1:9: unexpected '=' in while condition (compare with ==)"},
		{"x++", "1:3: expected expression, found '+'"},
		{"if x: y", "1:5: expected '{' after if condition, found ':'"},
	}
	for _, tt := range tests {
		got := errorsOf(t, tt.src)
		if got != tt.want {
			t.Errorf("Parse(%q) errors:\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

func TestErrorFormat(t *testing.T) {
	_, err := Parse("prog.kite", []byte("let x = 1\nlet = 2\nx = )\n"))
	want := "prog.kite:2:5: error: expected name after let, found '='\nprog.kite:3:5: error: unexpected ')'"
	if err == nil || err.Error() != want {
		t.Errorf("error:\n%v\nwant\n%s", err, want)
	}
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 2 || list[0].Pos != (Pos{2, 5}) {
		t.Errorf("error list %#v", err)
	}
}

// TestRecovery checks that a file with many errors reports each of them once, with no
// errors that only follow from an earlier one, and keeps the statements in between.
func TestRecovery(t *testing.T) {
	tests := []struct {
		name, src, errs, stmts string
	}{
		{
			name: "several statements",
			src: `let a = 1
let = 2
let b = a +
let c = 3
f(1, 2 3)
let d = "x\q"
g(
  1,
  2 2,
  3
)
let e = 5
`,
			errs:  "2:5: expected name after let, found '='\n4:1: expected expression, found 'let'\n5:8: expected ',' or ')' in argument list, found number 3\n6:11: invalid escape \\q\n9:5: expected ',' or ')' in argument list, found number 2",
			stmts: `(let a 1) (let c 3) (let d "x") (let e 5)`,
		},
		{
			name: "inside blocks",
			src: `fn f(x) {
  let y = x +* 2
  return y
}
fn g() {
  if x { let = 1 }
  while { }
  return 1
}
let z = f(1)
`,
			errs:  "2:14: expected expression, found '*'\n6:14: expected name after let, found '='\n7:9: missing condition in while statement",
			stmts: "(fnstmt (fn f (x) (block (return y)))) (fnstmt (fn g () (block (if x (block)) (return 1)))) (let z (call f 1))",
		},
		{
			name: "missing closing paren",
			src: `let x = f(1, 2
print(x)
let y = 2
`,
			errs:  "2:1: expected ')' to close argument list opened at 1:10, found identifier print",
			stmts: "(expr (call print x)) (let y 2)",
		},
		{
			name:  "missing closing bracket before a keyword",
			src:   "let xs = [1, 2\nlet y = 2\n",
			errs:  "2:1: expected ']' to close list opened at 1:10, found 'let'",
			stmts: "(let y 2)",
		},
		{
			name:  "bad parameter list skips the body",
			src:   "fn f(a, b {\n  return a\n}\nlet q = 1\n",
			errs:  "1:11: expected ')' to close parameter list opened at 1:5, found '{'",
			stmts: "(let q 1)",
		},
		{
			name:  "else on its own line skips its block",
			src:   "if x {\n  a()\n}\nelse {\n  b()\n}\nc()\n",
			errs:  "4:1: unexpected 'else' (else must be on the same line as the '}' before it)",
			stmts: "(if x (block (expr (call a)))) (expr (call c))",
		},
		{
			name:  "stray closers",
			src:   "}\n)\nlet a = 1\n]\n",
			errs:  "1:1: unexpected '}'\n2:1: unexpected ')'\n4:1: unexpected ']'",
			stmts: "(let a 1)",
		},
		{
			name: "nested unclosed blocks report once",
			src:  "fn f() {\n  if x {\n    y()\n",
			errs: "4:1: expected '}' to close block opened at 2:8, found end of file",
		},
		{
			name:  "unterminated interpolation",
			src:   "print(\"a ${x + \")\nlet ok = 1\nprint(\"${\")\nlet ok2 = 2\n",
			errs:  "1:16: unterminated string (is a '}' missing to close the '${' at 1:10?)\n3:10: unterminated string (is a '}' missing to close the '${' at 3:8?)",
			stmts: "(let ok 1) (let ok2 2)",
		},
		{
			name: "one error per line",
			src:  "let x = @ # $ )\nx = 1 2 3\n",
			errs: "1:9: invalid character '@'\n2:7: unexpected number 2 at end of statement",
		},
		{
			name:  "semicolons",
			src:   "a = 1; b = ; c = 3\nd = 4",
			errs:  "1:12: unexpected ';'",
			stmts: "(= a 1) (= d 4)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("t.kite", []byte(tt.src))
			if got := errorLines(t, err); got != tt.errs {
				t.Errorf("errors:\n got %s\nwant %s", got, tt.errs)
			}
			if f == nil {
				t.Fatal("nil file")
			}
			if tt.stmts != "" {
				if got := dumpStmts(f.Stmts); got != tt.stmts {
					t.Errorf("statements:\n got %s\nwant %s", got, tt.stmts)
				}
			}
		})
	}
}

func TestMaxErrors(t *testing.T) {
	src := strings.Repeat("let = 1\n", 200)
	_, err := Parse("t.kite", []byte(src))
	var list ErrorList
	if !errors.As(err, &list) || len(list) != MaxErrors {
		t.Fatalf("got %d errors, want %d", len(list), MaxErrors)
	}
	if last := list[len(list)-1]; last.Pos != (Pos{MaxErrors, 5}) {
		t.Errorf("last error at %v", last.Pos)
	}
}

func TestNestingTooDeep(t *testing.T) {
	const n = 20000
	exprs := map[string]string{
		"parens":        strings.Repeat("(", n),
		"brackets":      strings.Repeat("[", n),
		"maps":          strings.Repeat("{a: ", n),
		"minus":         strings.Repeat("-", n) + "x",
		"not":           strings.Repeat("not ", n) + "x",
		"interpolation": strings.Repeat(`"${`, n),
		"calls":         "f" + strings.Repeat("(f", n),
		"fn literals":   strings.Repeat("fn() { return ", n),
		"index":         "a" + strings.Repeat("[a", n),
		"closed parens": strings.Repeat("(", n) + "x" + strings.Repeat(")", n),
	}
	for name, src := range exprs {
		for _, parse := range []string{"Parse", "ParseExpr"} {
			var err error
			if parse == "Parse" {
				_, err = Parse("t.kite", []byte("x = "+src))
			} else {
				_, err = ParseExpr("t.kite", []byte(src))
			}
			if err == nil || !strings.Contains(err.Error(), "nesting too deep (more than 1000 levels)") {
				t.Errorf("%s %s: error %.200v", parse, name, err)
			}
		}
	}
	stmts := map[string]string{
		"blocks":   strings.Repeat("{", n),
		"ifs":      strings.Repeat("if x { ", n),
		"else ifs": strings.Repeat("if x {} else ", n) + "{}",
		"whiles":   strings.Repeat("while x {\n", n),
		"fns":      strings.Repeat("fn f() {\n", n),
	}
	for name, src := range stmts {
		_, err := Parse("t.kite", []byte(src))
		if err == nil || !strings.Contains(err.Error(), "nesting too deep") {
			t.Errorf("%s: error %.200v", name, err)
		}
	}
	// Long chains are not nesting, but they make deep trees.
	chains := map[string]string{
		"sum":   strings.Repeat("a + ", n) + "a",
		"dots":  "a" + strings.Repeat(".b", n),
		"calls": "f" + strings.Repeat("()", n),
	}
	for name, src := range chains {
		_, err := ParseExpr("t.kite", []byte(src))
		if err == nil || !strings.Contains(err.Error(), "expression too deep (more than 10000 levels)") {
			t.Errorf("%s: error %.200v", name, err)
		}
	}
	// At the limits, all is well.
	ok := []string{
		strings.Repeat("(", MaxNesting-1) + "x" + strings.Repeat(")", MaxNesting-1),
		strings.Repeat("a + ", 5000) + "a",
	}
	for _, src := range ok {
		if _, err := ParseExpr("t.kite", []byte(src)); err != nil {
			t.Errorf("%.20s...: %v", src, err)
		}
	}
}

func TestParseExprAPI(t *testing.T) {
	tests := []struct{ src, want, err string }{
		{"x", "x", ""},
		{"  x + 1  \n", "(+ x 1)", ""},
		{"x +\n 1", "(+ x 1)", ""},
		{"f(\n1\n)\n\n", "(call f 1)", ""},
		{"x // a comment", "x", ""},
		{`{"a": 1}["a"]`, `(index (map ("a" 1)) "a")`, ""},
		{"", "", "1:1: expected expression, found end of file"},
		{"   ", "", "1:4: expected expression, found end of file"},
		{"x y", "", "1:3: unexpected identifier y after expression"},
		{"x; y", "", "1:2: unexpected ';' after expression"},
		{"x\ny", "", "2:1: unexpected identifier y after expression"},
		{"x = 1", "", "1:3: unexpected '=' after expression"},
		{"let x = 1", "", "1:1: expected expression, found 'let'"},
		{"a +", "", "1:4: expected expression, found end of file"},
		{")", "", "1:1: unexpected ')'"},
		{"0x", "", "1:1: invalid number literal 0x"},
	}
	for _, tt := range tests {
		x, err := ParseExpr("t.kite", []byte(tt.src))
		if got := errorLines(t, err); got != tt.err {
			t.Errorf("ParseExpr(%q) error:\n got %s\nwant %s", tt.src, got, tt.err)
		}
		if tt.err != "" {
			if x != nil {
				t.Errorf("ParseExpr(%q) = %s with an error", tt.src, dump(x))
			}
			continue
		}
		if got := dump(x); got != tt.want {
			t.Errorf("ParseExpr(%q) = %s, want %s", tt.src, got, tt.want)
		}
	}
}

func TestExprString(t *testing.T) {
	tests := []struct{ src, want string }{
		{"a+b*c", "a + b * c"},
		{"(a+b)*c", "(a + b) * c"},
		{"not a and -b", "not a and -b"},
		{"f(a,b,)[0].k", "f(a, b)[0].k"},
		{`{k: 1, "s": [1,2], 0x1f: 2.50}`, `{k: 1, "s": [1, 2], 0x1f: 2.50}`},
		{`"a\n${x + 1}\u{41}"`, `"a\n${x + 1}\u{41}"`},
		{"fn(a) { let x = a\n return x }", "fn(a) { let x = a; return x }"},
		{"fn() { if a { b() } else if c { } else { d = 1 } }", "fn() { if a { b() } else if c {} else { d = 1 } }"},
		{"fn() { for k, v in m { break }; while x { continue }; { return } }", "fn() { for k, v in m { break }; while x { continue }; { return } }"},
		{"fn() { const X = 1; fn g(a, b) { }; x += 1 }", "fn() { const X = 1; fn g(a, b) {}; x += 1 }"},
	}
	for _, tt := range tests {
		x, err := ParseExpr("t", []byte(tt.src))
		if err != nil {
			t.Fatalf("%q: %v", tt.src, err)
		}
		if got := ExprString(x); got != tt.want {
			t.Errorf("ExprString(%q) = %s, want %s", tt.src, got, tt.want)
		}
	}
	// Trees built by hand get the parentheses they need.
	a, b, c := &Ident{Name: "a"}, &Ident{Name: "b"}, &Ident{Name: "c"}
	built := []struct {
		x    Expr
		want string
	}{
		{&BinaryExpr{X: &BinaryExpr{X: a, Op: PLUS, Y: b}, Op: STAR, Y: c}, "(a + b) * c"},
		{&BinaryExpr{X: a, Op: MINUS, Y: &BinaryExpr{X: b, Op: MINUS, Y: c}}, "a - (b - c)"},
		{&BinaryExpr{X: &BinaryExpr{X: a, Op: LT, Y: b}, Op: EQL, Y: c}, "(a < b) == c"},
		{&UnaryExpr{Op: MINUS, X: &BinaryExpr{X: a, Op: PLUS, Y: b}}, "-(a + b)"},
		{&DotExpr{X: &UnaryExpr{Op: MINUS, X: a}, Name: b}, "(-a).b"},
		{&UnaryExpr{Op: NOT, X: &BinaryExpr{X: a, Op: OR, Y: b}}, "not (a or b)"},
		{&BinaryExpr{X: &UnaryExpr{Op: NOT, X: a}, Op: EQL, Y: b}, "(not a) == b"},
		{&Literal{Kind: STRING, Value: "q\"\\\n${x}\x01"}, `"q\"\\\n\${x}\u{1}"`},
		{&Literal{Kind: FLOAT, Value: 3.0}, "3.0"},
		{&Literal{Kind: FLOAT, Value: 1e21}, "1e+21"},
		{&Literal{Kind: INT, Value: int64(-5)}, "-5"},
		{&Literal{Kind: NIL}, "nil"},
		{&InterpString{Parts: []Expr{&Literal{Kind: STRING, Value: "a\""}, a}}, `"a\"${a}"`},
	}
	for _, tt := range built {
		if got := ExprString(tt.x); got != tt.want {
			t.Errorf("ExprString(%s) = %s, want %s", dump(tt.x), got, tt.want)
		}
	}
}

// TestTestdata parses the programs of testdata, and checks that printing each statement
// and parsing the text again gives the same tree.
func TestTestdata(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.kite")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f := mustParse(t, string(src))
		if len(f.Stmts) == 0 {
			t.Errorf("%s: no statements", name)
		}
		if err := roundTrip(f); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func roundTrip(f *File) error {
	var lines []string
	for _, s := range f.Stmts {
		lines = append(lines, StmtString(s))
	}
	text := strings.Join(lines, "\n")
	g, err := Parse(f.Name, []byte(text))
	if err != nil {
		return errors.New("reparsing the printed text:\n" + text + "\n" + err.Error())
	}
	if a, b := dumpStmts(f.Stmts), dumpStmts(g.Stmts); a != b {
		return errors.New("printed text parses differently:\n" + text + "\n" + a + "\n" + b)
	}
	return nil
}

func BenchmarkParse(b *testing.B) {
	files, _ := filepath.Glob("testdata/*.kite")
	var src []byte
	for _, name := range files {
		data, _ := os.ReadFile(name)
		src = append(src, data...)
		src = append(src, '\n')
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Parse("bench.kite", src); err != nil {
			b.Fatal(err)
		}
	}
}
