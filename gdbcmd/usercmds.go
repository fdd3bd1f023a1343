package gdbcmd

// What gdb offers around user commands (define): show user, document and help for them,
// and hooks: user commands named hook-CMD and hookpost-CMD run before and after CMD, and
// hook-stop at each stop before it is told.

import (
	"slices"
	"strings"
)

// showUser is gdb's show user [NAME]: the definition of a user command, or of all of them
// by name, indented by their blocks.
func (d *Debugger) showUser(name string) {
	names := []string{name}
	if name == "" {
		names = slices.Sorted(func(yield func(string) bool) {
			for n := range d.cmds.user {
				if !yield(n) {
					return
				}
			}
		})
	} else if _, ok := d.cmds.user[name]; !ok {
		d.fail("Not a user command.\n")
		return
	}
	for _, n := range names {
		d.printf("User command \"%s\":\n", n)
		depth := 1
		for _, l := range d.cmds.user[n] {
			if l == "end" || l == "else" {
				depth--
			}
			d.printf("%s%s\n", strings.Repeat("  ", max(depth, 1)), l)
			if blockHead(l) || l == "else" {
				depth++
			}
		}
		d.printf("\n")
	}
}

// cmdDocument is gdb's document NAME: the lines up to "end" become the help of user
// command NAME.
func cmdDocument(d *Debugger, args string) bool {
	name := strings.TrimSpace(args)
	if _, ok := d.cmds.user[name]; !ok {
		d.fail("Undefined command: \"%s\".\n", name)
		return false
	}
	if d.cfg.Confirm != nil {
		d.printf("Type documentation for \"%s\".\nEnd with a line saying just \"end\".\n", name)
	}
	d.cmds.documenting, d.cmds.lines = name, nil
	return false
}

// helpOn is help NAME: a user command's documentation (gdb's "User-defined." without
// one), or a built-in command's line.
func (d *Debugger) helpOn(name string) {
	if _, ok := d.cmds.user[name]; ok {
		if doc := d.cmds.docs[name]; len(doc) > 0 {
			d.printf("%s\n", strings.Join(doc, "\n"))
		} else {
			d.printf("User-defined.\n")
		}
		return
	}
	c, err := lookup(name)
	if err != nil {
		d.fail("Undefined command: \"%s\".  Try \"help\".\n", name)
		return
	}
	d.printf("%s\n", c.help)
	if len(c.aliases) > 0 {
		d.printf("Aliases: %s\n", strings.Join(c.aliases, ", "))
	}
}

// runHook runs user command hook-NAME (when) or hookpost-NAME, if there is one; a hook is
// not run again from inside itself.
func (d *Debugger) runHook(when, name string) (quit bool) {
	if len(d.cmds.user) == 0 { // no user command: nothing to look for (a step's path)
		return false
	}
	hook := when + "-" + name
	if _, ok := d.cmds.user[hook]; !ok || d.cmds.inHook[hook] {
		return false
	}
	if d.cmds.inHook == nil {
		d.cmds.inHook = map[string]bool{}
	}
	d.cmds.inHook[hook] = true
	defer delete(d.cmds.inHook, hook)
	_, quit = d.runUser(hook, "")
	return quit
}
