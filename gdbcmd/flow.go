package gdbcmd

// gdb's control flow in command lists and at the prompt: if COND ... [else ...] end,
// while COND ... end, loop_break and loop_continue. A condition is an expression of the
// selected frame, true when not zero (or Kite's true). Ctrl-C ends a while loop.

import (
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// flow is how a run of lines ended.
type flow int

const (
	flowNext     flow = iota // all ran
	flowBreak                // loop_break
	flowContinue             // loop_continue
	flowResumed              // a breakpoint's list ran the program on: the rest is not run
	flowAbort                // an error in a condition ends the whole list, as gdb's error
	flowQuit                 // quit
)

// blockHead says line opens an if or while block.
func blockHead(line string) bool {
	word, _, _ := strings.Cut(line, " ")
	return word == "if" || word == "while"
}

// cmdBlock is if and while typed as a command: the block's lines are read up to its end
// (with gdb's ">" prompt), then it runs.
func cmdBlock(word string) func(*Debugger, string) bool {
	return func(d *Debugger, args string) bool {
		if strings.TrimSpace(args) == "" {
			d.fail("%s command requires an argument (an expression)\n", word)
			return false
		}
		d.cmds.block, d.cmds.lines, d.cmds.nested = word+" "+strings.TrimSpace(args), nil, 0
		return false
	}
}

// blockEnd finds the else (or -1) and the end of the block whose head is lines[i].
func blockEnd(lines []string, i int) (elseAt, end int) {
	elseAt, depth := -1, 0
	for j := i + 1; j < len(lines); j++ {
		switch l := strings.TrimSpace(lines[j]); {
		case blockHead(l):
			depth++
		case l == "end" && depth == 0:
			return elseAt, j
		case l == "end":
			depth--
		case l == "else" && depth == 0:
			elseAt = j
		}
	}
	return elseAt, len(lines)
}

// runLines runs a command list: each line with subst applied (a user command's
// arguments; nil: as it is), its blocks as their conditions say. stopOnResume ends the
// list at a line that runs the program on (a breakpoint's list).
func (d *Debugger) runLines(lines []string, subst func(string) string, stopOnResume bool) flow {
	if subst == nil {
		subst = func(s string) string { return s }
	}
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(subst(lines[i]))
		word, cond, _ := strings.Cut(line, " ")
		switch word {
		case "loop_break":
			return flowBreak
		case "loop_continue":
			return flowContinue
		case "if", "while":
			elseAt, end := blockEnd(lines, i)
			body, other := lines[i+1:end], []string(nil)
			if word == "if" && elseAt >= 0 {
				body, other = lines[i+1:elseAt], lines[elseAt+1:end]
			}
			if f := d.runBlock(word, cond, body, other, subst, stopOnResume); f != flowNext {
				return f
			}
			i = end
		default:
			if d.exec(line) {
				return flowQuit
			}
			if d.failed { // as gdb: an error ends the list, the user command, the loop
				return flowAbort
			}
			if c, err := lookup(word); stopOnResume && err == nil && resumers[c.name] {
				return flowResumed
			}
		}
	}
	return flowNext
}

// runBlock runs an if block (body when cond holds, else other) or a while loop.
func (d *Debugger) runBlock(word, cond string, body, other []string, subst func(string) string, stopOnResume bool) flow {
	for {
		holds, ok := d.holds(cond)
		if !ok {
			return flowAbort
		}
		if word == "if" {
			if !holds {
				body = other
			}
			return d.runLines(body, subst, stopOnResume)
		}
		if !holds {
			return flowNext
		}
		switch f := d.runLines(body, subst, stopOnResume); f {
		case flowBreak:
			return flowNext
		case flowNext, flowContinue:
		default:
			return f
		}
		if d.pendingPause.Swap(false) { // Ctrl-C
			d.printf("Quit\n")
			return flowAbort
		}
	}
}

// holds evaluates a block's condition; false ok when it cannot be (said).
func (d *Debugger) holds(cond string) (holds, ok bool) {
	v, err := d.eval(cond, true)
	if err != nil {
		d.fail("%s\n", explain(err))
		return false, false
	}
	if truth, ok := engine.Truth(v.Value); ok {
		return truth, true
	}
	d.fail("Cannot use %q as a condition: %s is not a number.\n", cond, v.Value)
	return false, false
}
