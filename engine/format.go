package engine

import "unicode/utf8"

// DefaultMaxValueLen bounds the text of one value a front end sends, unless it says
// otherwise: a 1,000,000-element list must not become a megabyte of JSON per stop.
const DefaultMaxValueLen = 4096

// ClipValue shortens text to at most max bytes (DefaultMaxValueLen when max <= 0),
// cutting at a character boundary and marking the cut with "...".
func ClipValue(text string, max int) string {
	if max <= 0 {
		max = DefaultMaxValueLen
	}
	if len(text) <= max {
		return text
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + "..."
}
