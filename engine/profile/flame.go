package profile

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"html"
	"io"
	"sort"
	"strconv"
	"strings"
)

// flameNode is one frame of the merged stack tree.
type flameNode struct {
	name     string
	value    int64
	children map[string]*flameNode
}

func (n *flameNode) child(name string) *flameNode {
	if n.children == nil {
		n.children = map[string]*flameNode{}
	}
	c := n.children[name]
	if c == nil {
		c = &flameNode{name: name}
		n.children[name] = c
	}
	return c
}

// ParseFolded reads folded stacks ("a;b;c 123" per line) into a tree; bad lines are skipped.
func parseFolded(folded string) *flameNode {
	root := &flameNode{name: "all"}
	sc := bufio.NewScanner(strings.NewReader(folded))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		i := strings.LastIndexByte(line, ' ')
		if i <= 0 {
			continue
		}
		v, err := strconv.ParseInt(line[i+1:], 10, 64)
		if err != nil || v < 0 {
			continue
		}
		n := root
		n.value += v
		for _, f := range strings.Split(line[:i], ";") {
			n = n.child(f)
			n.value += v
		}
	}
	return root
}

// WriteFlameSVG renders folded stacks as a flame graph: one row per stack depth, each frame
// as wide as its share of the total, the root at the bottom. Hovering a frame shows its
// name, time and share.
func WriteFlameSVG(w io.Writer, folded, title string) error {
	root := parseFolded(folded)
	const width, rowH, pad = 1200.0, 17.0, 10.0
	depth := maxDepth(root)
	height := float64(depth+1)*rowH + 3*pad + 20
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<?xml version="1.0" standalone="no"?>
<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="Verdana" font-size="12">
<rect width="100%%" height="100%%" fill="#f8f8f0"/>
<text x="%.0f" y="24" text-anchor="middle" font-size="16">%s</text>
`, width, height, width, height, width/2, html.EscapeString(title))
	if root.value > 0 {
		scale := (width - 2*pad) / float64(root.value)
		var draw func(n *flameNode, x float64, level int)
		draw = func(n *flameNode, x float64, level int) {
			wd := float64(n.value) * scale
			y := height - pad - float64(level+1)*rowH
			pct := 100 * float64(n.value) / float64(root.value)
			fmt.Fprintf(bw, `<g><title>%s (%d ns, %.2f%%)</title><rect x="%.2f" y="%.1f" width="%.2f" height="%.1f" fill="%s" rx="2"/>`,
				html.EscapeString(n.name), n.value, pct, x, y, wd, rowH-1, flameColor(n.name))
			if wd > 30 {
				label := n.name
				if max := int(wd / 7); len(label) > max {
					label = label[:max-2] + ".."
				}
				fmt.Fprintf(bw, `<text x="%.2f" y="%.1f">%s</text>`, x+3, y+12, html.EscapeString(label))
			}
			bw.WriteString("</g>\n")
			names := make([]string, 0, len(n.children))
			for k := range n.children {
				names = append(names, k)
			}
			sort.Strings(names)
			for _, k := range names {
				c := n.children[k]
				draw(c, x, level+1)
				x += float64(c.value) * scale
			}
		}
		draw(root, pad, 0)
	}
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

func maxDepth(n *flameNode) int {
	d := 0
	for _, c := range n.children {
		d = max(d, 1+maxDepth(c))
	}
	return d
}

// flameColor picks a warm colour from the name, stable across runs.
func flameColor(name string) string {
	h := fnv.New32a()
	h.Write([]byte(name))
	v := h.Sum32()
	return fmt.Sprintf("rgb(%d,%d,%d)", 205+v%50, 80+(v>>8)%130, 30+(v>>16)%50)
}

// FlameSummary lists the hottest stacks of a folded profile, most time first.
func FlameSummary(folded string, n int) []string {
	type row struct {
		stack string
		v     int64
	}
	var rows []row
	var total int64
	for _, line := range strings.Split(folded, "\n") {
		i := strings.LastIndexByte(line, ' ')
		if i <= 0 {
			continue
		}
		v, err := strconv.ParseInt(line[i+1:], 10, 64)
		if err != nil {
			continue
		}
		rows = append(rows, row{line[:i], v})
		total += v
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].v > rows[j].v })
	var out []string
	for i := 0; i < len(rows) && i < n; i++ {
		out = append(out, fmt.Sprintf("%5.1f%%  %s", 100*float64(rows[i].v)/float64(max(total, 1)), rows[i].stack))
	}
	return out
}
