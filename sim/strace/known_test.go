package strace

import (
	"reflect"
	"testing"
)

// withHeader copies every type of Op the fixtures decode to, so that a
// repeated line of any of them is decoded once, and the copy differs
// from the original in its Header alone.
func TestWithHeaderCopiesEveryOp(t *testing.T) {
	seen := map[reflect.Type]bool{}
	for _, path := range fixtures(t) {
		log, err := ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ops, err := Decode(log)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range ops {
			h := Header{Lines: []int{99}, Pid: 7, Syscall: op.Head().Syscall, Result: op.Head().Result}
			cp := withHeader(op, h)
			if cp == nil {
				t.Fatalf("%s: withHeader does not copy a %T", path, op)
			}
			seen[reflect.TypeOf(op)] = true
			if !reflect.DeepEqual(*cp.Head(), h) {
				t.Fatalf("%T copy has header %+v, want %+v", op, *cp.Head(), h)
			}
			*cp.Head() = *op.Head()
			if !reflect.DeepEqual(cp, op) || cp == op {
				t.Fatalf("%T copy %+v is not a copy of %+v", op, cp, op)
			}
		}
	}
	if len(seen) < 10 {
		t.Fatalf("the fixtures decode to only %d types of Op", len(seen))
	}
}
