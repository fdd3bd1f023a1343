module github.com/polydbg/polydbg

go 1.26
