package elfsym

// The name gdb gives a source file: a unit's own file as the compiler was given it, not the
// absolute path polydbg reads it from. "gcc -g t.c" in /src makes /src/t.c; gdb says "t.c"
// in its frame and breakpoint lines, and "/src/t.c" had the compiler been given that. The
// other files of a unit (its headers) gdb names by their whole path. A unit compiled in a
// relative folder (DW_AT_comp_dir "./stdlib", as glibc's are) is named by both joined
// ("./stdlib/msort.c").

import (
	"path/filepath"
	"sync"
)

type sourceNames struct {
	once  sync.Once
	names map[string]string // a unit's file, absolute -> DW_AT_name
}

// SourceName is path (a file of the program's line tables, absolute) as gdb names it.
func (f *File) SourceName(path string) string {
	sn := &f.sourceNames
	sn.once.Do(func() {
		sn.names = map[string]string{}
		for _, cu := range f.cus {
			if cu.name == "" {
				continue
			}
			abs, name := cu.name, cu.name
			if !filepath.IsAbs(abs) {
				abs = filepath.Join(cu.dir, abs)
				if cu.dir != "" && !filepath.IsAbs(cu.dir) {
					name = cu.dir + "/" + cu.name // built in a relative folder (glibc's ./stdlib): gdb joins them as they are
				}
			}
			sn.names[filepath.Clean(abs)] = name
		}
	})
	if name, ok := sn.names[filepath.Clean(path)]; ok {
		return name
	}
	for _, lf := range f.readLibraries() { // (a library's path came from its DWARF, read already)
		if name := lf.SourceName(path); name != path {
			return name
		}
	}
	return path
}
