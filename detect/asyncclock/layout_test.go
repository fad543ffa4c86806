package asyncclock

import (
	"testing"
	"unsafe"
)

// TestEventFoldFieldsShareLines checks the layout event's comment
// promises: what fold reads of an event that aged out of the window lies
// in two cache lines, refs, absorbed and afJoin in one and end and endTS
// in the next. Events are 64-byte aligned only while their size class is
// 384 bytes (a multiple of 64).
func TestEventFoldFieldsShareLines(t *testing.T) {
	var ev event
	if n := unsafe.Sizeof(ev); n <= 320 || n > 384 {
		t.Fatalf("event is %d bytes: its size class is not 384, so events are not 64-byte aligned", n)
	}
	line := func(off uintptr) uintptr { return off / 64 }
	for _, group := range [][]struct {
		name      string
		off, size uintptr
	}{
		{
			{"refs", unsafe.Offsetof(ev.refs), unsafe.Sizeof(ev.refs)},
			{"absorbed", unsafe.Offsetof(ev.absorbed), unsafe.Sizeof(ev.absorbed)},
			{"afJoin", unsafe.Offsetof(ev.afJoin), unsafe.Sizeof(ev.afJoin)},
		},
		{
			{"end", unsafe.Offsetof(ev.end), unsafe.Sizeof(ev.end)},
			{"endTS", unsafe.Offsetof(ev.endTS), unsafe.Sizeof(ev.endTS)},
		},
	} {
		want := line(group[0].off)
		for _, f := range group {
			if line(f.off) != want || line(f.off+f.size-1) != want {
				t.Errorf("event.%s is at bytes %d to %d, not in the cache line of event.%s (bytes %d to %d)",
					f.name, f.off, f.off+f.size-1, group[0].name, want*64, want*64+63)
			}
		}
	}
}
