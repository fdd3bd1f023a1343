package elfsym

import (
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// libraryGlobals declares one of each standard library type polydbg prints as libstdc++'s
// printers do.
const libraryGlobals = `#include <string>
#include <string_view>
#include <vector>
#include <deque>
#include <list>
#include <forward_list>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <memory>
#include <optional>
#include <variant>
#include <tuple>
#include <array>
#include <bitset>
#include <stack>
#include <queue>
#include <atomic>
#include <any>
#include <span>
#include <filesystem>
std::string s; std::string_view sv; std::vector<int> v; std::deque<int> dq; std::list<int> l;
std::forward_list<int> fl; std::map<int, std::string> m; std::set<int> st;
std::unordered_map<int, int> um; std::unordered_set<int> us; std::unique_ptr<int> up;
std::shared_ptr<int> sp; std::optional<int> o; std::variant<int, std::string> va;
std::tuple<int, double, std::string> tp; std::pair<int, std::string> pr; std::array<int, 4> ar;
std::bitset<100> bs; std::stack<int> stk; std::queue<int> q; std::priority_queue<int> pq;
std::atomic<int> at; std::any an; std::span<int> spn; std::unique_ptr<int[]> ua; std::deque<std::string> dqs;
std::vector<bool> vb; std::filesystem::path pa; std::vector<int>::iterator vi; std::list<int>::iterator li;
std::map<int, int>::iterator mi; std::deque<int>::iterator di; std::forward_list<int>::iterator fi;
std::vector<bool>::iterator bi;
int main() { return 0; }
`

// garbageMemory answers every read from its bytes, repeated: a container whose pointers
// lead anywhere.
type garbageMemory []byte

func (g garbageMemory) ReadMemory(addr uint64, n int) ([]byte, error) {
	out := make([]byte, n)
	for i := range out {
		out[i] = g[(addr+uint64(i))%uint64(len(g))]
	}
	return out, nil
}

// The library's printers and element readers read any bytes of a container and any memory
// behind its pointers without a panic and in bounded time: a corrupt deque, list or tuple
// cannot hang the debugger.
func FuzzLibraryPrinters(f *testing.F) {
	realparts.Need(f, "g++")
	_, exe := realparts.BuildCXX(f, "globals", libraryGlobals, "-std=c++20")
	file, err := Open(exe)
	if err != nil {
		f.Fatal(err)
	}
	var vars []*Var
	for _, v := range file.Globals() {
		if v.Type != nil && v.Type.Size() > 0 && len(v.Name) <= 3 {
			vars = append(vars, v)
		}
	}
	if len(vars) < 20 {
		f.Fatalf("only %d of the library's globals read", len(vars))
	}
	f.Add([]byte{0}, []byte{0})
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, []byte{0x10, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte(strings.Repeat("\xff", 64)), []byte(strings.Repeat("\x08\x00\x00\x00\x00\x00\x00\x00", 8)))
	f.Fuzz(func(t *testing.T, object, memory []byte) {
		if len(object) == 0 || len(memory) == 0 {
			return
		}
		mem := garbageMemory(memory)
		for _, v := range vars {
			b := garbageMemory(object).mustRead(0, int(v.Type.Size()))
			val := file.FormatValue(v.Type, b, 0x1000, true, mem, 0)
			if _, counted := val.Elements(); counted || strings.HasPrefix(v.Name, "ar") || v.Name == "vb" {
				_, _ = file.Element(val, 5, mem)
				_, _ = file.ElementAt(val, 300, mem)
			}
		}
	})
}

func (g garbageMemory) mustRead(addr uint64, n int) []byte { b, _ := g.ReadMemory(addr, n); return b }
