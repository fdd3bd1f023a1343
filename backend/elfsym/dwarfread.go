package elfsym

// Reading a compilation unit: its line table (without the sequences of discarded code) and
// its tree of entries (functions, inlined copies, whether it has location lists).

import "debug/dwarf"

// readLines reads the line table of unit cu into rows and returns its file table (what
// DW_AT_call_file and DW_AT_decl_file index).
func (f *File) readLines(cu *dwarf.Entry, fileIdx map[string]uint32, rows *rowChunks) []*dwarf.LineFile {
	lr, err := f.DWARF.LineReader(cu)
	if err != nil || lr == nil {
		return nil
	}
	var le dwarf.LineEntry
	var seq []LineRow
	var lastFile *dwarf.LineFile
	file := uint32(0)
	lineDisc := false // the current line has a non-zero discriminator (LineRow.Merged)
	for {
		if err := lr.Next(&le); err != nil {
			break
		}
		if le.File != lastFile {
			name := ""
			if le.File != nil {
				name = le.File.Name
			}
			i, ok := fileIdx[name]
			if !ok {
				i = uint32(len(f.rowFiles))
				fileIdx[name], f.rowFiles, f.files = i, append(f.rowFiles, name), append(f.files, name)
			}
			lastFile, file = le.File, i
		}
		merged := false
		if n := len(seq); n > 0 && seq[n-1].Line == le.Line && seq[n-1].file == file {
			lineDisc = lineDisc || le.Discriminator != 0
			merged = lineDisc
		} else {
			lineDisc = le.Discriminator != 0
		}
		seq = append(seq, LineRow{Addr: f.clearThumb(le.Address), file: file, Line: le.Line,
			Column: le.Column, IsStmt: le.IsStmt, End: le.EndSequence, Merged: merged})
		if le.EndSequence {
			// A sequence of code the linker discarded (--gc-sections) keeps its rows,
			// relocated to 0: addr2line and gdb ignore it, and so do we.
			if f.code.has(seq[0].Addr) {
				rows.add(seq)
			} else {
				f.dropSpan(seq)
			}
			seq = seq[:0]
		}
	}
	return lr.Files()
}

// rowChunks collect the rows of a file's line tables without copying them again as they
// grow (a big library has hundreds of thousands): all of them are copied once, into a
// table of the right size.
type rowChunks struct {
	chunks [][]LineRow
	n      int
}

const rowChunk = 1 << 14

func (c *rowChunks) add(seq []LineRow) {
	last := len(c.chunks) - 1
	if last < 0 || cap(c.chunks[last])-len(c.chunks[last]) < len(seq) {
		c.chunks = append(c.chunks, make([]LineRow, 0, max(rowChunk, len(seq))))
		last++
	}
	c.chunks[last] = append(c.chunks[last], seq...)
	c.n += len(seq)
}

// table returns all the rows added, in order.
func (c *rowChunks) table() []LineRow {
	out := make([]LineRow, 0, c.n)
	for _, ch := range c.chunks {
		out = append(out, ch...)
	}
	return out
}

// walkCU reads the entries of the unit whose first entry r just returned: functions at any
// depth and inlined copies (with their nesting). It reports whether any entry has a
// location list.
func (f *File) walkCU(r *dwarf.Reader, cuOff dwarf.Offset, files []*dwarf.LineFile) (hasLoclist bool, err error) {
	var open []dwarf.Tag      // tags of the entries whose children are being read
	var bodies []dwarf.Offset // the functions whose bodies are being read, innermost last
	var usings []usingFound   // C++'s using directives, declarations and namespace aliases
	var scopes scopeNames
	firstFunc, firstInline := len(f.funcs), len(f.inlines)
	defer func() {
		f.qualifyUnit(&scopes, firstFunc, firstInline)
		f.resolveUsings(usings, scopes.scopeOf)
	}()
	inlineDepth := 0
	flat := f.cus[cuOff] != nil && f.cus[cuOff].lang == "c" // (no scopes: a struct's members are all plain)
	for {
		e, err := r.Next()
		if err != nil {
			return hasLoclist, err
		}
		if e == nil {
			return hasLoclist, nil
		}
		if e.Tag == 0 {
			if len(open) == 0 {
				return hasLoclist, nil
			}
			switch open[len(open)-1] {
			case dwarf.TagInlinedSubroutine:
				inlineDepth--
			case dwarf.TagSubprogram:
				bodies = bodies[:len(bodies)-1]
			}
			open = open[:len(open)-1]
			scopes.close()
			continue
		}
		switch e.Tag {
		case dwarf.TagSubprogram:
			scopes.note(e)
			f.funcs = append(f.funcs, f.funcsFromEntry(e, cuOff)...)
		case dwarf.TagClassType, dwarf.TagStructType, dwarf.TagUnionType, dwarf.TagEnumerationType, dwarf.TagTypedef, dwarf.TagNamespace:
			f.noteType(&scopes, e)
		case dwarf.TagVariable, dwarf.TagMember:
			if len(open) > 0 && open[len(open)-1] != dwarf.TagSubprogram && open[len(open)-1] != dwarf.TagLexDwarfBlock {
				f.noteVar(&scopes, e)
			}
		case dwarf.TagImportedModule, dwarf.TagImportedDeclaration:
			if scopes.current() == "" { // (the ones in a namespace, libstdc++'s many in std, serve code in it)
				var body dwarf.Offset
				if len(bodies) > 0 {
					body = bodies[len(bodies)-1]
				}
				noteUsing(&usings, e, cuOff, body)
			}
		case dwarf.TagInlinedSubroutine:
			if in := f.inlineFromEntry(e, files, inlineDepth+1); in != nil {
				f.inlines = append(f.inlines, in)
			}
		}
		if fl := e.AttrField(dwarf.AttrLocation); fl != nil && (fl.Class == dwarf.ClassLocListPtr || fl.Class == dwarf.ClassLocList) {
			hasLoclist = true
		}
		if e.Children && childrenUnread(e, flat) {
			r.SkipChildren()
			continue
		}
		if e.Children {
			open = append(open, e.Tag)
			scopes.open(e)
			switch e.Tag {
			case dwarf.TagInlinedSubroutine:
				inlineDepth++
			case dwarf.TagSubprogram:
				bodies = append(bodies, e.Offset)
			}
		}
	}
}

// childrenUnread reports whether the children of entry e hold nothing walkCU reads: an
// array's bounds, a function type's or a declared function's parameters, an
// enumeration's values, and in C (flat) a struct's or union's members. They are skipped
// without being decoded (GCC gives such entries DW_AT_sibling): libc's units are mostly
// declarations.
func childrenUnread(e *dwarf.Entry, flat bool) bool {
	switch e.Tag {
	case dwarf.TagArrayType, dwarf.TagSubroutineType, dwarf.TagEnumerationType:
		return true
	case dwarf.TagStructType, dwarf.TagUnionType:
		return flat
	case dwarf.TagSubprogram:
		decl, _ := e.Val(dwarf.AttrDeclaration).(bool)
		return decl
	}
	return false
}
