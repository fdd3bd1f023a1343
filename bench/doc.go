// Package bench holds polydbg's benchmarks against its peers. It has its own go.mod so that
// the peers (gopher-lua, Starlark, goja, ...) never enter the main module's dependencies.
//
//	cd bench && go test -run '^$' -bench . -benchmem
package bench
