package elfsym

// Reading a compilation unit: its line table (without the sequences of discarded code) and
// its tree of entries (functions, inlined copies, whether it has location lists).

import "debug/dwarf"

// readLines reads the line table of unit cu into f.rows and returns its file table (what
// DW_AT_call_file and DW_AT_decl_file index).
func (f *File) readLines(cu *dwarf.Entry, seenFile map[string]bool) []*dwarf.LineFile {
	lr, err := f.DWARF.LineReader(cu)
	if err != nil || lr == nil {
		return nil
	}
	var le dwarf.LineEntry
	var seq []LineRow
	lineDisc := false // the current line has a non-zero discriminator (LineRow.Merged)
	for {
		if err := lr.Next(&le); err != nil {
			break
		}
		name := ""
		if le.File != nil {
			name = le.File.Name
		}
		if name != "" && !seenFile[name] {
			seenFile[name] = true
			f.files = append(f.files, name)
		}
		merged := false
		if n := len(seq); n > 0 && seq[n-1].Line == le.Line && seq[n-1].File == name {
			lineDisc = lineDisc || le.Discriminator != 0
			merged = lineDisc
		} else {
			lineDisc = le.Discriminator != 0
		}
		seq = append(seq, LineRow{Addr: f.clearThumb(le.Address), File: name, Line: le.Line,
			Column: le.Column, IsStmt: le.IsStmt, End: le.EndSequence, Merged: merged})
		if le.EndSequence {
			// A sequence of code the linker discarded (--gc-sections) keeps its rows,
			// relocated to 0: addr2line and gdb ignore it, and so do we.
			if f.code.has(seq[0].Addr) {
				f.rows = append(f.rows, seq...)
			} else {
				f.dropSpan(seq)
			}
			seq = seq[:0]
		}
	}
	return lr.Files()
}

// walkCU reads the entries of the unit whose first entry r just returned: functions at any
// depth and inlined copies (with their nesting). It reports whether any entry has a
// location list.
func (f *File) walkCU(r *dwarf.Reader, cuOff dwarf.Offset, files []*dwarf.LineFile) (hasLoclist bool, err error) {
	var open []dwarf.Tag // tags of the entries whose children are being read
	var scopes scopeNames
	firstFunc, firstInline := len(f.funcs), len(f.inlines)
	defer func() { f.qualifyUnit(&scopes, firstFunc, firstInline) }()
	inlineDepth := 0
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
			if open[len(open)-1] == dwarf.TagInlinedSubroutine {
				inlineDepth--
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
		case dwarf.TagInlinedSubroutine:
			if in := f.inlineFromEntry(e, files, inlineDepth+1); in != nil {
				f.inlines = append(f.inlines, in)
			}
		}
		if fl := e.AttrField(dwarf.AttrLocation); fl != nil && (fl.Class == dwarf.ClassLocListPtr || fl.Class == dwarf.ClassLocList) {
			hasLoclist = true
		}
		if e.Children {
			open = append(open, e.Tag)
			scopes.open(e)
			if e.Tag == dwarf.TagInlinedSubroutine {
				inlineDepth++
			}
		}
	}
}
