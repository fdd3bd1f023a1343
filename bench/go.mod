module github.com/polydbg/polydbg/bench

go 1.26

require github.com/polydbg/polydbg v0.0.0

replace github.com/polydbg/polydbg => ../
