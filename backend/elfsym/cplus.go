package elfsym

// C++ names. A function declared in a namespace or a class is named as gdb names it in a
// frame, with its scopes (geo::Shape::area), and shown with its parameters where gdb shows
// them (`info breakpoints`: geo::Shape::area() const), from its demangled linkage name.
// `break NAME` binds at every function NAME names as gdb's does: a name without scopes
// matches it in any scope (area is geo::Shape::area), one without template arguments every
// instance (twice is twice<int> and twice<long>), one with a parameter list the overload.

import (
	"debug/dwarf"
	"runtime"
	"strings"
	"sync"

	"github.com/ianlancetaylor/demangle"
)

// scopeNames tracks the namespaces and classes around the entries of one unit, to qualify
// the functions declared inside them.
type scopeNames struct {
	stack   []string                // the open entries' scope names ("" for others)
	scopeOf map[dwarf.Offset]string // a subprogram entry's scopes ("geo::Shape")
}

// scopeTag reports whether entries with tag t name a scope for what is declared inside.
func scopeTag(t dwarf.Tag) bool {
	switch t {
	case dwarf.TagNamespace, dwarf.TagClassType, dwarf.TagStructType, dwarf.TagUnionType:
		return true
	}
	return false
}

// open records entry e, whose children come next.
func (s *scopeNames) open(e *dwarf.Entry) {
	name := ""
	if scopeTag(e.Tag) {
		name, _ = e.Val(dwarf.AttrName).(string)
		if name == "" && e.Tag == dwarf.TagNamespace {
			name = "(anonymous namespace)"
		}
	}
	s.stack = append(s.stack, name)
}

func (s *scopeNames) close() { s.stack = s.stack[:len(s.stack)-1] }

// current is the scopes around the next entry ("geo::Shape"), "" at the unit's level.
func (s *scopeNames) current() string {
	var q []string
	for _, n := range s.stack {
		if n != "" {
			q = append(q, n)
		}
	}
	return strings.Join(q, "::")
}

// note remembers the scopes around the subprogram e.
func (s *scopeNames) note(e *dwarf.Entry) { remember(&s.scopeOf, e.Offset, s.current()) }

// noteType remembers the scopes around a type declared inside a namespace or a class.
func (f *File) noteType(s *scopeNames, e *dwarf.Entry) { remember(&f.typeScope, e.Offset, s.current()) }

// noteVar remembers the scopes around a variable declared in a namespace or a class (a
// static member's declaration).
func (f *File) noteVar(s *scopeNames, e *dwarf.Entry) {
	if e.Tag == dwarf.TagMember {
		if decl, _ := e.Val(dwarf.AttrDeclaration).(bool); !decl {
			return
		}
	}
	remember(&f.varScope, e.Offset, s.current())
}

// remember records the scopes q of the entry at off in *m (made on first use), unless
// there are none.
func remember(m *map[dwarf.Offset]string, off dwarf.Offset, q string) {
	if q == "" {
		return
	}
	if *m == nil {
		*m = map[dwarf.Offset]string{}
	}
	(*m)[off] = q
}

// varQualifier is the scope of the variable of entry e, or of the declaration it defines.
func (f *File) varQualifier(e *dwarf.Entry) string {
	if q, ok := f.varScope[e.Offset]; ok {
		return q
	}
	if spec, ok := e.Val(dwarf.AttrSpecification).(dwarf.Offset); ok {
		return f.varScope[spec]
	}
	return ""
}

// qualifier is the scope of the function whose entry is at off: its own, or that of the
// declaration it defines or the abstract function it is an instance of.
func (f *File) qualifier(s *scopeNames, off dwarf.Offset) string {
	for range 4 {
		if q, ok := s.scopeOf[off]; ok {
			return q
		}
		r := f.DWARF.Reader()
		r.Seek(off)
		e, err := r.Next()
		if err != nil || e == nil {
			return ""
		}
		next, ok := e.Val(dwarf.AttrSpecification).(dwarf.Offset)
		if !ok {
			if next, ok = e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset); !ok {
				return ""
			}
		}
		off = next
	}
	return ""
}

// qualifyUnit gives the functions and inlined copies read from one unit (from the indexes
// given on) their scopes.
func (f *File) qualifyUnit(s *scopeNames, funcs, inlines int) {
	if len(s.scopeOf) == 0 {
		return
	}
	for _, fn := range f.funcs[funcs:] {
		if fn.linkage != "" {
			continue // named from its linkage name
		}
		if q := f.qualifier(s, fn.entry); q != "" {
			fn.Name = q + "::" + fn.Name
		}
	}
	for _, in := range f.inlines[inlines:] {
		if in.linkage != "" {
			continue // named from its linkage name
		}
		if q := f.qualifier(s, in.die); q != "" {
			in.Name = q + "::" + in.Name
		}
	}
}

// nameFromLinkage names the C++ functions and inlined copies that have a linkage name as
// the demangler does (geo::Shape::scaled, twice<long>: scopes, template arguments and
// all), the work shared among the machine's CPUs: demangling is most of a large C++
// program's loading. A name the demangler cannot read keeps its DWARF name, qualified.
func (f *File) nameFromLinkage() {
	type job struct {
		name    *string
		linkage *string
	}
	var jobs []job
	for _, fn := range f.funcs {
		if fn.linkage != "" {
			jobs = append(jobs, job{&fn.Name, &fn.linkage})
		}
	}
	for _, in := range f.inlines {
		if in.linkage != "" {
			jobs = append(jobs, job{&in.Name, &in.linkage})
		}
	}
	workers := min(runtime.GOMAXPROCS(0), 1+len(jobs)/512)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(jobs); i += workers {
				if n, ok := linkageName(*jobs[i].linkage); ok {
					*jobs[i].name = n
				}
			}
		}()
	}
	wg.Wait()
}

// Signature is the function as gdb lists it in `info breakpoints`: a C++ function with its
// parameters (geo::add(int, int), ns::Shape::area() const, twice<long>(long)), from its
// linkage name or, without one (main, a static function), its parameters' types;
// otherwise its name.
func (f *File) Signature(fn *Func) string {
	if o := f.fileOf(fn); o != f {
		return o.Signature(fn)
	}
	if !fn.cplus {
		return fn.Name
	}
	f.sigMu.Lock()
	sig, ok := f.sigs[fn]
	f.sigMu.Unlock()
	if ok {
		return sig
	}
	sig = f.signature(fn)
	f.sigMu.Lock()
	if f.sigs == nil {
		f.sigs = map[*Func]string{}
	}
	f.sigs[fn] = sig
	f.sigMu.Unlock()
	return sig
}

// signature is Signature, worked out.
func (f *File) signature(fn *Func) string {
	if _, sig, ok := linkageNames(fn.linkage); ok {
		return sig
	}
	if !fn.cplus || fn.entry == 0 {
		return fn.Name
	}
	var params []string
	r := f.DWARF.Reader()
	r.Seek(fn.entry)
	if e, err := r.Next(); err == nil && e != nil && e.Children {
		for {
			kid, err := r.Next()
			if err != nil || kid == nil || kid.Tag == 0 {
				break
			}
			if kid.Tag == dwarf.TagFormalParameter {
				if art, _ := kid.Val(dwarf.AttrArtificial).(bool); !art {
					name := "?"
					if t := f.entryType(kid); t != nil {
						name = physTypeName(t)
					}
					params = append(params, name)
				}
			}
			if kid.Children {
				r.SkipChildren()
			}
		}
	}
	return fn.Name + "(" + strings.Join(params, ", ") + ")"
}

// physTypeName is a parameter's type as a demangled C++ name writes it: geo::Point const&.
func physTypeName(t dwarf.Type) string {
	switch tt := t.(type) {
	case *dwarf.QualType:
		return physTypeName(tt.Type) + " " + tt.Qual
	case *dwarf.PtrType:
		if tt.Type == nil {
			return "void*"
		}
		return physTypeName(tt.Type) + "*"
	case *RefType:
		if tt.RValue {
			return physTypeName(tt.Type) + "&&"
		}
		return physTypeName(tt.Type) + "&"
	case *dwarf.StructType:
		return tt.StructName
	case *dwarf.EnumType:
		return tt.EnumName
	}
	return TypeName(t)
}

// linkageNames are the names gdb gives a C++ function from its linkage name: in frames
// (geo::Shape::scaled, twice<long>) and with its parameters (geo::Shape::scaled(int)
// const, twice<long>(long): a template's return type left out).
func linkageNames(linkage string) (name, signature string, ok bool) {
	if name, ok = linkageName(linkage); !ok {
		return "", "", false
	}
	full, err := demangle.ToString(linkage, demangle.NoClones, demangle.NoRust)
	if err != nil || full == "" {
		return "", "", false
	}
	if i := strings.Index(full, name+"("); i > 0 {
		full = full[i:]
	}
	return name, full, true
}

// linkageName is linkageNames' first: the name a frame shows, all a program's loading
// needs (the signature is read when asked for).
func linkageName(linkage string) (string, bool) {
	if !strings.HasPrefix(linkage, "_Z") { // (C++'s, not another language's)
		return "", false
	}
	name, err := demangle.ToString(linkage, demangle.NoClones, demangle.NoParams, demangle.NoRust)
	if err != nil || name == "" {
		return "", false
	}
	if strings.Contains(name, "[abi:") { // gdb names one with an ABI tag with its parameters: label[abi:cxx11](int)
		if full, err := demangle.ToString(linkage, demangle.NoClones, demangle.NoRust); err == nil {
			if i := strings.Index(full, name+"("); i >= 0 {
				return full[i:], true
			}
		}
	}
	return name, true
}

// nameMatches reports whether `break query` binds at the function with this name and
// signature (see Signature), as gdb matches it.
func nameMatches(name string, signature func() string, query string) bool {
	if name == query {
		return true
	}
	tagged := strings.Contains(query, "[abi:") // else label[abi:cxx11] is label, as gdb takes it
	if strings.Contains(query, "(") {
		sig, q := withoutSpaces(signature()), withoutSpaces(query)
		if !tagged {
			sig = withoutABITags(sig)
		}
		return sig == q || strings.HasSuffix(sig, "::"+q)
	}
	if !tagged {
		name = plainName(name)
	}
	if !strings.Contains(query, "<") {
		name = withoutTemplateArgs(name)
	}
	return name == query || strings.HasSuffix(name, "::"+query)
}

func withoutSpaces(s string) string { return strings.ReplaceAll(s, " ", "") }

// plainName is a function's name without its ABI tags and the parameters gdb names a
// tagged one with: label[abi:cxx11](int) is label.
func plainName(name string) string {
	name = withoutABITags(name)
	if i := strings.IndexByte(name, '('); i > 0 && !strings.Contains(name, "operator") {
		name = name[:i]
	}
	return name
}

// withoutABITags drops the ABI tags of a name: label[abi:cxx11] (a function returning a
// std::string) is label.
func withoutABITags(name string) string {
	for {
		i := strings.Index(name, "[abi:")
		if i < 0 {
			return name
		}
		j := strings.IndexByte(name[i:], ']')
		if j < 0 {
			return name
		}
		name = name[:i] + name[i+j+1:]
	}
}

// withoutTemplateArgs drops the template arguments of each scope of a name:
// ns::Box<int>::get<long> is ns::Box::get.
func withoutTemplateArgs(name string) string {
	if !strings.Contains(name, "<") || strings.HasPrefix(name, "operator") || strings.Contains(name, "::operator") {
		return name
	}
	var b strings.Builder
	depth := 0
	for _, r := range name {
		switch {
		case r == '<':
			depth++
		case r == '>' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// CXXAt reports whether the code at the run-time pc is C++ (a program with no function
// there: whether it has any C++ at all).
func (f *File) CXXAt(pc uint64) bool {
	if lf := f.debugLibraryAt(pc); lf != nil {
		return lf.CXXAt(pc)
	}
	if !f.cplus {
		return false
	}
	if fn := f.FuncAt(pc); fn != nil && fn.entry != 0 {
		return fn.cplus
	}
	return true
}
