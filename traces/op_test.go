package traces

import (
	"testing"
	"unsafe"
)

// TestOpHotFieldsShareALine checks the layout Op's comment promises: the
// fields every op has and those of reads and writes end within its first
// 64 bytes, so that stepping through the accesses of a trace touches one
// cache line of each op.
func TestOpHotFieldsShareALine(t *testing.T) {
	var op Op
	for _, f := range []struct {
		name      string
		off, size uintptr
	}{
		{"Kind", unsafe.Offsetof(op.Kind), unsafe.Sizeof(op.Kind)},
		{"HasTS", unsafe.Offsetof(op.HasTS), unsafe.Sizeof(op.HasTS)},
		{"Deref", unsafe.Offsetof(op.Deref), unsafe.Sizeof(op.Deref)},
		{"Task", unsafe.Offsetof(op.Task), unsafe.Sizeof(op.Task)},
		{"TS", unsafe.Offsetof(op.TS), unsafe.Sizeof(op.TS)},
		{"Val", unsafe.Offsetof(op.Val), unsafe.Sizeof(op.Val)},
		{"Loc", unsafe.Offsetof(op.Loc), unsafe.Sizeof(op.Loc)},
		{"Src", unsafe.Offsetof(op.Src), unsafe.Sizeof(op.Src)},
	} {
		if end := f.off + f.size; end > 64 {
			t.Errorf("Op.%s ends at byte %d, past the first cache line", f.name, end)
		}
	}
}
