package asyncclock

import (
	"testing"
	"unsafe"
)

// TestEventFieldsShareLines checks the layout event's comment promises:
// what a PRIORITY walk's reference reads of a candidate, and what fold
// reads of an event that aged out of the window, each lie in one cache
// line. Events are 64-byte aligned only while their size class is 384
// bytes (a multiple of 64).
func TestEventFieldsShareLines(t *testing.T) {
	var ev event
	if n := unsafe.Sizeof(ev); n <= 320 || n > 384 {
		t.Fatalf("event is %d bytes: its size class is not 384, so events are not 64-byte aligned", n)
	}
	type field struct {
		name      string
		off, size uintptr
	}
	sendTop := unsafe.Offsetof(ev.send) + unsafe.Offsetof(ev.send.top)
	for _, group := range [][]field{
		{ // walk.reference's usable, and the send's number and epoch
			{"cat", unsafe.Offsetof(ev.cat), unsafe.Sizeof(ev.cat)},
			{"time", unsafe.Offsetof(ev.time), unsafe.Sizeof(ev.time)},
			{"status", unsafe.Offsetof(ev.status), unsafe.Sizeof(ev.status)},
			{"sendSeq", unsafe.Offsetof(ev.sendSeq), unsafe.Sizeof(ev.sendSeq)},
			{"sendEpoch", unsafe.Offsetof(ev.sendEpoch), unsafe.Sizeof(ev.sendEpoch)},
			{"send.top", sendTop, unsafe.Sizeof(ev.send.top)},
		},
		{ // fold
			{"refs", unsafe.Offsetof(ev.refs), unsafe.Sizeof(ev.refs)},
			{"absorbed", unsafe.Offsetof(ev.absorbed), unsafe.Sizeof(ev.absorbed)},
			{"afJoin", unsafe.Offsetof(ev.afJoin), unsafe.Sizeof(ev.afJoin)},
			{"end", unsafe.Offsetof(ev.end), unsafe.Sizeof(ev.end)},
			{"endTS", unsafe.Offsetof(ev.endTS), unsafe.Sizeof(ev.endTS)},
		},
	} {
		line := group[0].off / 64
		for _, f := range group {
			if f.off/64 != line || (f.off+f.size-1)/64 != line {
				t.Errorf("event.%s is at bytes %d to %d, not in the cache line of event.%s (bytes %d to %d)",
					f.name, f.off, f.off+f.size-1, group[0].name, line*64, line*64+63)
			}
		}
	}
}

// TestListHeadSize checks that a list head takes one cache line, as
// listHead's comment says: the walks and collections read heads one after
// another.
func TestListHeadSize(t *testing.T) {
	if n := unsafe.Sizeof(listHead{}); n != 64 {
		t.Errorf("a listHead takes %d bytes, not 64", n)
	}
}

// TestBegunTableLazy: a looper's table of the last events begun costs a
// word per slot until a category and time takes the slot; an app with
// thousands of loopers that each begin one delayed event (MyTracks'
// handler threads) paid 50 KB per looper when every slot was made at
// once.
func TestBegunTableLazy(t *testing.T) {
	if size := unsafe.Sizeof(begunTable{}); size > 8<<begunBits {
		t.Errorf("an empty begunTable is %d bytes, want at most a word per slot", size)
	}
	var tab begunTable
	keys := []catTime{{catDA, 10}, {catDA, 10}, {catDS, 250}}
	for _, k := range keys {
		tab.of(k).add(&event{})
	}
	made := 0
	for _, s := range tab {
		if s != nil {
			made++
		}
	}
	if made > 2 {
		t.Errorf("%d slots made for 2 categories and times", made)
	}
	if r := tab.peek(catTime{catDA, 10}); r == nil || r.latest(1) == nil {
		t.Errorf("the slot of (DA, 10) lost its events: %v", r)
	}
}

// TestQueueSendsSparse checks that a queue keeps a record of the blocks
// of chains that sent to it only, not of every block up to the highest
// (with 16k loopers, each a block of its own, a queue hears from few),
// and forgets a block once none of its chains has a list.
func TestQueueSendsSparse(t *testing.T) {
	var e Engine
	q := &queue{}
	near, far := Chain(5), Chain(700<<chunkBits|3)
	for _, c := range []Chain{near, far, far + 1} {
		if l := e.list(q, c); l.chain != c || q.list(c) != l || e.list(q, c) != l {
			t.Fatalf("the list of chain %d is not found again", c)
		}
	}
	blocks := func() (n int) {
		for _, sb := range q.sends {
			if sb != nil {
				n++
			}
		}
		return n
	}
	if n := blocks(); n != 2 {
		t.Errorf("%d blocks kept for chains of 2 blocks", n)
	}
	if q.list(far+2) != nil || q.list(Chain(300<<chunkBits)) != nil {
		t.Error("a chain that never sent has a list")
	}
	q.unlist(far)
	if q.list(far) != nil || q.list(far+1) == nil || blocks() != 2 {
		t.Errorf("after dropping one of its 2 lists a block keeps %v and %v (%d blocks)", q.list(far), q.list(far+1), blocks())
	}
	q.unlist(far + 1)
	if blocks() != 1 {
		t.Errorf("a block without lists is kept (%d blocks)", blocks())
	}
}
