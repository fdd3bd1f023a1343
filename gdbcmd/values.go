package gdbcmd

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/cxxname"
)

// print, call, whatis and ptype as gdb has them: the values printed are numbered in the
// engine's value history ($1, $2, $, $$, $$N) and shown in print formats (/x /d /u /o /t /c).

// splitFormat takes a leading /F off print's arguments.
func splitFormat(args string) (format byte, rest string, err error) {
	if !strings.HasPrefix(args, "/") {
		return 0, args, nil
	}
	spec, rest, _ := strings.Cut(args[1:], " ")
	if len(spec) != 1 || !engine.ValidFormat(spec[0]) {
		return 0, strings.TrimSpace(rest), &badFormat{spec}
	}
	return spec[0], strings.TrimSpace(rest), nil
}

// rawFormat takes gdb's r (raw: no library printers) off a print format ("/rx " is "/x ",
// "/r " nothing), reporting whether it had one.
func rawFormat(format string) (string, bool) {
	f := strings.TrimSpace(format)
	if len(f) < 2 || !strings.Contains(f[1:], "r") {
		return format, false
	}
	if f = strings.Replace(f, "r", "", 1); f == "/" {
		return "", true
	}
	return f + " ", true
}

// badFormat is a print format gdb does not have; as gdb, it is told where the value would
// have been printed.
type badFormat struct{ spec string }

func (b *badFormat) Error() string { return fmt.Sprintf("Undefined output format %q.", b.spec) }

// cmdPrint is gdb's print: a function call in the expression runs (unless the debugger may
// not run the program's code), and so do assignments, increments and decrements.
func cmdPrint(d *Debugger, args string) bool {
	format := ""
	if strings.HasPrefix(args, "/") { // print/x -pretty -- v: the format first
		format, args, _ = strings.Cut(args, " ")
		format += " "
	}
	sets, expr, err := parsePrintOptions(args)
	if err != nil {
		d.fail("%v\n", err)
		return false
	}
	if f, raw := rawFormat(format); raw { // (without options, expr is all of args)
		format, sets = f, append(sets, "print raw-values on")
	}
	if sets == nil {
		d.evaluate(format+args, d.cfg.ReadOnly, false)
		return false
	}
	return d.withSet(sets, func() bool { d.evaluate(format+expr, d.cfg.ReadOnly, false); return false })
}

func cmdCall(d *Debugger, args string) bool { d.evaluate(args, false, true); return false }

// evaluate prints the value of the expression of args (pure: without running the program's
// code); as gdb's call, isCall prints nothing for a function that returns nothing.
func (d *Debugger) evaluate(args string, pure, isCall bool) {
	format, expr, err := splitFormat(args)
	var bad *badFormat
	if err != nil && (!errors.As(err, &bad) || expr == "") {
		d.fail("%v\n", err)
		return
	}
	if expr == "" {
		if len(d.values.Values()) == 0 { // gdb: a bare print shows the last value again
			d.fail("Argument required (expression to evaluate).\n")
			return
		}
		expr = "$"
	}
	var old engine.Variable
	se, effect := parseSideEffect(expr)
	se.lvalue = historyPlace(se.lvalue)
	if effect {
		if se.old {
			var err error
			if old, err = d.eval(se.lvalue, true); err != nil {
				d.fail("%s\n", explain(err))
				return
			}
		}
		if !d.apply(se) {
			return
		}
		expr = se.lvalue
	}
	v, err := d.eval(expr, pure)
	if err != nil {
		d.fail("%s\n", explain(err))
		return
	}
	if se.old {
		v = old
	}
	if format != 0 && strings.HasPrefix(v.Value, "[ ") { // flags: [ IF ] is 0x202 under a format, as gdb's
		if n, err := d.eval("(unsigned int)("+expr+")", true); err == nil {
			v.Value = n.Value
		}
	}
	if bad != nil || format == 'a' && strings.HasPrefix(v.Value, "{") { // as gdb: the value is numbered, then refused
		d.printf("$%d = ", d.values.Record(v))
		if bad == nil {
			d.fail("Value can't be converted to integer.\n")
		} else {
			d.fail("%v\n", bad)
		}
		return
	}
	if isCall && v.Type == "void" { // call of a function that returns nothing: gdb prints nothing
		return
	}
	prefix := pointerPrefix(v, format)
	record := func(v engine.Variable) int { return d.values.Record(v) }
	if o, ok := d.values.LookupObject(expr); ok && format == 0 { // a history value recorded with its object's class
		static := v
		record = func(engine.Variable) int { return d.values.RecordObject(static, o) }
		if d.limits.Object {
			v, prefix = o.Value, "("+o.Class+") "
		}
	} else if d.limits.Object {
		static := v
		var class string
		v, prefix, class = d.dynamicObject(expr, v, prefix, format)
		if class != "" { // recorded by its static type too, as gdb's history keeps it
			record = func(engine.Variable) int {
				return d.values.RecordObject(static, engine.HistoryObject{Class: class, Value: v})
			}
		} else { // a pointer: as declared (the whole object's address is what print shows)
			record = func(engine.Variable) int { return d.values.Record(static) }
		}
	}
	d.printf("$%d = %s%s\n", record(v), prefix, d.fileText(d.layoutValue(d.s.FormatValue(v, format), expr, v.Type)))
}

// pointerType reports whether a C type's name is a pointer's: int *, int (*)(int),
// char (**)[4]; not an array of pointers, int (*[2])(int).
func pointerType(t string) bool {
	if strings.HasSuffix(t, "::*") { // a pointer to a data member: &Outer::b, no address
		return false
	}
	if strings.HasSuffix(t, "*") {
		return true
	}
	i := strings.Index(t, "(*")
	if i < 0 {
		return false
	}
	rest := strings.TrimLeft(t[i+1:], "*")
	return strings.HasPrefix(rest, ")")
}

// pointerPrefix is what gdb's print puts before a C pointer (a value shown as an address,
// of a pointer type or a typedef of one): its type, "(int *) ", "(op_t) ", except for a
// string (char *), which shows its text instead, and under a format letter.
func pointerPrefix(v engine.Variable, format byte) string {
	t := strings.TrimSpace(v.Type)
	if format == 0 && t != "" && strings.HasPrefix(v.Value, "@0x") { // a C++ reference: (int &) @0x7ffe...: 5
		return "(" + t + ") "
	}
	// shown as an address; under print address off, a pointer's text without it keeps the type: (struct rect *)
	address := strings.HasPrefix(v.Value, "0x") || pointerType(t) && !strings.HasPrefix(v.Value, "{")
	if format != 0 || !address || t == "" || strings.HasSuffix(t, "]") && !strings.Contains(t, "(*") { // (a flexible array member shows its address alone)
		return ""
	}
	// gdb leaves it out for a pointer to char alone (const or not), whose string says what
	// it is: not for unsigned char *, a typedef of char or of the pointer
	if base, ok := strings.CutSuffix(t, "*"); ok && !strings.Contains(base, "*") {
		base = strings.TrimSpace(strings.NewReplacer("const ", "", " const", "", "volatile ", "", " volatile", "").Replace(base))
		if base == "char" || base == "wchar_t" || base == "char16_t" || base == "char32_t" { // (their strings say what they are)
			return ""
		}
	}
	return "(" + t + ") "
}

// eval evaluates an expression in the selected frame after substituting history values;
// gdb's $_exitcode alone is the exit code of the program that ended by itself and
// $_exitsignal the number of the signal that ended it (each void otherwise), and a
// history value alone is the value recorded.
func (d *Debugger) eval(expr string, pure bool) (engine.Variable, error) {
	return d.evalWith(expr, engine.EvalMode{Pure: pure})
}

// evalWith is eval in the mode given.
func (d *Debugger) evalWith(expr string, mode engine.EvalMode) (engine.Variable, error) {
	if e := strings.TrimSpace(expr); e == "$_exitcode" || e == "$_exitsignal" {
		h := d.s.LastHalt()
		switch {
		case h.State != engine.Exited:
		case e == "$_exitcode" && h.Signal == "":
			return engine.Variable{Name: expr, Value: strconv.Itoa(h.ExitCode), Type: "int"}, nil
		case e == "$_exitsignal" && h.Signal != "":
			return engine.Variable{Name: expr, Value: strconv.Itoa(h.ExitCode - 128), Type: "int"}, nil
		}
		return engine.Variable{Name: expr, Value: "void", Type: "void"}, nil
	}
	if v, ok := d.stateVariable(strings.TrimSpace(expr)); ok {
		return v, nil
	}
	if v, ok, err := d.values.Lookup(expr); ok { // $1 as recorded, also once the program has ended
		return v, err
	}
	name, lone := strings.CutPrefix(strings.TrimSpace(expr), "$")
	lone = lone && validName(name)
	if v, ok := d.values.Convenience(name); lone && ok { // as set, also once the program has ended
		return v, nil
	}
	sub, err := d.expandDebuggerFuncs(expr)
	if err == nil {
		sub, err = d.values.Substitute(sub)
	}
	if err != nil {
		return engine.Variable{}, err
	}
	if d.s.State().Ended() && !d.indexedPCs() && !d.cfg.Attach && !d.s.PostMortem() {
		// as gdb: once the program has ended, expressions read the program's file again
		// (a global's first value), in the session of the next run, made now
		if err := d.newSession(); err != nil {
			return engine.Variable{}, err
		}
	}
	v, err := d.s.Evaluate(d.frame, sub, mode)
	if cs := (engine.CallStoppedError{}); errors.As(err, &cs) {
		last, mid := d.lastFrame, d.midLine
		d.report(d.s.LastHalt()) // where the called function stopped, first
		signaled := cs.Stop.Signal != ""
		if signaled && d.settings.unwindOnSignal && d.s.AbandonCall() == nil { // the program back where it was
			d.lastFrame, d.midLine, d.frame = last, mid, 0
			return v, calledStopped{fn: cs.Func, signaled: true, unwound: true}
		}
		return v, calledStopped{fn: cs.Func, signaled: signaled}
	}
	if err != nil && lone && !d.isRegister(name) && name != "_exception" { // a convenience variable never set, as gdb
		return engine.Variable{Name: expr, Value: "void", Type: "void"}, nil
	}
	return v, err
}

// calledStopped is an evaluation's error where a function it called stopped at a
// breakpoint, or received a signal, in gdb's words.
type calledStopped struct {
	fn                string
	signaled, unwound bool
}

func (e calledStopped) Error() string {
	what := "The program being debugged stopped while in a function called from GDB.\n"
	if e.unwound { // (set unwindonsignal on)
		return "The program being debugged was signaled while in a function called from GDB.\n" +
			"GDB has restored the context to what it was before the call.\n" +
			"To change this behavior use \"set unwindonsignal off\".\n" +
			"Evaluation of the expression containing the function\n" +
			"(" + e.fn + ") will be abandoned."
	}
	if e.signaled {
		what = "The program being debugged was signaled while in a function called from GDB.\n" +
			"GDB remains in the frame where the signal was received.\n" +
			"To change this behavior use \"set unwindonsignal on\".\n"
	}
	return what + "Evaluation of the expression containing the function\n" +
		"(" + e.fn + ") will be abandoned.\n" +
		"When the function is done executing, GDB will silently stop."
}

// cmdWhatis prints an expression's type; ptype also lists the fields of a struct or union.
func cmdWhatis(d *Debugger, args string) bool { d.showType(args, false); return false }
func cmdPtype(d *Debugger, args string) bool {
	if rest, ok := strings.CutPrefix(args, "/"); ok { // ptype/o: a struct's offsets, sizes and holes
		flags, expr, _ := strings.Cut(rest, " ")
		if bad := strings.Trim(flags, "rmtoxdMT"); bad != "" { // gdb's flags; o is the one that changes the answer here
			d.fail("unrecognized flag '%c'\n", bad[0])
			return false
		}
		if o, ok := d.s.Target().(engine.OffsetDescriber); ok && strings.Contains(flags, "o") {
			text, err := o.DescribeOffsets(d.frame, strings.TrimSpace(expr))
			if err != nil {
				d.fail("%s\n", explain(err))
				return false
			}
			d.printf("%s\n", text)
			return false
		}
		args = expr
	}
	d.showType(args, true)
	return false
}

func (d *Debugger) showType(expr string, expand bool) {
	if expr == "" {
		d.fail("Argument required (an expression).\n")
		return
	}
	lead := "type = "
	v, err := d.evalWith(expr, engine.EvalMode{Pure: true, TypeOnly: true}) // a call is not run, as gdb's
	if err == nil && d.limits.Object {                                      // a pointer to an object of a derived class: gdb's note first
		if o, derr := d.s.DynamicClass(d.frame, expr); derr == nil && o.Pointer && o.Class != "" &&
			o.Class != strings.TrimSuffix(strings.TrimPrefix(cxxname.ShortType(v.Type), "const "), " *") {
			d.printf("type = /* real type = %s * */\n", o.Class)
			lead = "" // what follows is the type itself, on a line of its own
		}
	}
	if err == nil && expand { // the value's own type, as the program has it
		if sub, serr := d.values.Substitute(expr); serr == nil {
			if text, terr := d.s.DescribeExprType(d.frame, sub, true); terr == nil {
				d.printf("%s%s\n", lead, text)
				return
			}
		}
	}
	if err != nil {
		text, terr := d.s.DescribeType(expr, expand) // a type's name: ptype struct point
		switch {
		case terr == nil:
			d.printf("%s%s\n", lead, text)
		case taggedType(expr) && !errors.Is(terr, engine.ErrUnsupported):
			d.fail("%s\n", explain(terr)) // "No struct type named nosuch."
		default:
			d.fail("%s\n", explain(err))
		}
		return
	}
	typ := v.Type
	if typ == "" {
		typ = "unknown"
	}
	if !expand { // whatis of a value: its type's name as it is (a typedef's too; a C++ library type as libstdc++'s type printers name it)
		d.printf("%s%s\n", lead, cxxname.ShortType(typ))
		return
	}
	if text, err := d.s.DescribeType(typ, true); err == nil { // the program's own types
		d.printf("%s%s\n", lead, text)
		return
	}
	aggregate := strings.HasPrefix(typ, "struct") || strings.HasPrefix(typ, "union")
	if !aggregate || v.Ref == 0 {
		d.printf("%s%s\n", lead, typ)
		return
	}
	kids, err := d.s.Variables(v.Ref)
	if err != nil {
		d.printf("%s%s\n", lead, typ)
		return
	}
	d.printf("type = %s {\n", typ)
	for _, k := range kids {
		d.printf("    %s %s;\n", k.Type, k.Name)
	}
	d.printf("}\n")
}

func cmdShow(d *Debugger, args string) bool {
	what, _, _ := strings.Cut(args, " ")
	switch {
	case d.showQuiet(what):
	case what == "args":
		d.showArgs()
	case what == "user":
		d.showUser(strings.TrimSpace(strings.TrimPrefix(args, what)))
	case what == "directories":
		d.showDirectories()
	case what == "logging":
		d.showLogging()
	case what == "substitute-path":
		d.showSubstitutePath()
	case len(what) >= 3 && strings.HasPrefix("environment", what):
		d.showEnvironment(strings.TrimSpace(strings.TrimPrefix(args, what)))
	case what != "" && strings.HasPrefix("values", what):
		vals := d.values.Values()
		for i := max(0, len(vals)-10); i < len(vals); i++ {
			d.printf("$%d = %s\n", i+1, vals[i].Value)
		}
	case what != "" && strings.HasPrefix("context", what):
		d.printf("The context display after each stop is %s.\n", onOff(d.context))
	case what != "" && strings.HasPrefix("listsize", what):
		d.printf("Number of source lines to list is %d.\n", d.listSize())
	case what == "print" || what == "p":
		opt, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(args, what)), " ")
		switch {
		case len(opt) >= 2 && strings.HasPrefix("elements", opt):
			d.printf("Limit on string chars or array elements to print is %s.\n", limitText(d.limits.Elements))
		case len(opt) >= 2 && strings.HasPrefix("repeats", opt):
			d.printf("Threshold for repeated print elements is %s.\n", limitText(d.limits.Repeats))
		case opt == "array-indexes":
			d.printf("Printing of array indexes is %s.\n", onOff(d.limits.ArrayIndexes))
		case opt == "null-stop":
			d.printf("Printing of char arrays to stop at first null char is %s.\n", onOff(d.limits.NullStop))
		case opt == "frame-arguments" || opt == "frame-info":
			d.showFrameMode(opt)
		case len(opt) >= 2 && strings.HasPrefix("object", opt):
			d.printf("Printing of object's derived type based on vtable info is %s.\n", onOff(d.limits.Object))
		case len(opt) >= 3 && strings.HasPrefix("address", opt):
			d.printf("Printing of addresses is %s.\n", onOff(!d.limits.HideAddresses))
		case len(opt) >= 3 && strings.HasPrefix("symbol", opt):
			d.printf("Printing of symbols when printing pointers is %s.\n", onOff(!d.limits.HideSymbols))
		case len(opt) >= 3 && strings.HasPrefix("union", opt):
			d.printf("Printing of unions interior to structures is %s.\n", onOff(!d.limits.HideUnions))
		default:
			d.printf("Pretty formatting of structures is %s.\n", onOff(d.pretty))
		}
	default:
		d.printf("show args|environment|values|context|listsize|print pretty|print elements|print repeats\n")
	}
	return false
}

// limitText is a print limit in gdb's words.
func limitText(n int) string {
	if n == 0 {
		return "unlimited"
	}
	return strconv.Itoa(n)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// taggedType reports whether expr names a type with C's struct, union or enum keyword.
func taggedType(expr string) bool {
	kw, _, _ := strings.Cut(strings.TrimSpace(expr), " ")
	return kw == "struct" || kw == "union" || kw == "enum"
}

// dynamicObject is, under set print object on, the value of expr shown by the class of
// the C++ object it is or points to (its vtable says it), with gdb's prefix: (geo::Square
// *) 0x7ffe..., (geo::Square) {...}. Other values come back as they are.
// object is the object's class when v was read as one (not for a pointer).
func (d *Debugger) dynamicObject(expr string, v engine.Variable, prefix string, format byte) (shown engine.Variable, newPrefix, object string) {
	expr, err := d.values.Substitute(expr) // a history value's object ($, $3) as recorded
	if err != nil {
		return v, prefix, ""
	}
	o, err := d.s.DynamicClass(d.frame, expr)
	if err != nil || o.Class == "" || o.Pointer && format != 0 { // p/x of a pointer: its own value
		return v, prefix, ""
	}
	ptr := "(" + expr + ")"
	if !o.Pointer {
		ptr = "&" + ptr
	}
	if o.Top != 0 { // a base inside the object: the whole object's address, as a cast down finds it
		ptr = fmt.Sprintf("(char *)%s + %d", ptr, o.Top)
	}
	ptr = "(" + o.Class + " *)(" + ptr + ")"
	if o.Pointer {
		if o.Top != 0 {
			if dv, err := d.eval(ptr, true); err == nil {
				dv.Name = v.Name
				v = dv
			}
		}
		return v, "(" + o.Class + " *) ", ""
	}
	dv, err := d.eval("*"+ptr, true)
	if err != nil {
		return v, "(" + o.Class + ") ", ""
	}
	dv.Name = v.Name
	return dv, "(" + o.Class + ") ", o.Class
}

// layout is a value as print shows it: as it is, or laid out as gdb's set print pretty on.
func (d *Debugger) layout(text string) string {
	if d.pretty {
		return engine.PrettyValue(text)
	}
	return text
}

// layoutValue is layout for the value of expr, of type typ: a C++ class laid out with
// gdb's "members of CLASS:" after its base classes, the class of a member read from the
// program.
func (d *Debugger) layoutValue(text, expr, typ string) string {
	if !d.pretty {
		return text
	}
	className := func(t string) string {
		t = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t), "&"))
		for _, q := range []string{"const ", "volatile "} {
			t = strings.TrimPrefix(t, q)
		}
		return t
	}
	return engine.PrettyValueOf(text, func(path string) string {
		if path == "" {
			return className(typ)
		}
		v, err := d.eval("("+expr+")"+path, true)
		if err != nil {
			return "?"
		}
		return className(v.Type)
	})
}

// stateVariable is one of gdb's convenience variables of the debugger's state: $_thread
// (the selected thread's number, 0 without a live program), $_inferior (the process's, 1 until a fork's child is followed), and
// $_gdb_major, $_gdb_minor: the gdb whose behaviour polydbg's terminal follows (13.1), for
// scripts that test it.
func (d *Debugger) stateVariable(name string) (engine.Variable, bool) {
	n := 0
	switch name {
	case "$_thread":
		if d.live() {
			n = d.s.ThreadNum(d.s.SelectedThread())
		}
	case "$_inferior":
		n = d.s.Inferior()
	case "$_gdb_major":
		n = 13
	case "$_gdb_minor":
		n = 1
	default:
		return engine.Variable{}, false
	}
	return engine.Variable{Name: name, Value: strconv.Itoa(n), Type: "int"}, true
}
