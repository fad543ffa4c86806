package traces

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func summarize(t *testing.T, data []byte) *Summary {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), WithoutValidation())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s, err := Summarize(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSummaryCapped: past SummaryLimit distinct names a count stops
// growing and says it is a lower bound, so memory stays bounded.
func TestSummaryCapped(t *testing.T) {
	syms := NewSymbols()
	T := syms.Intern("T")
	var ops []Op
	for i := range SummaryLimit + 10 {
		ops = append(ops, Op{Kind: Call, Task: T, Name: syms.Intern("h" + strconv.Itoa(i))})
	}
	s := summarize(t, encode(t, LCT, &Header{}, ops, syms))
	if len(s.Handlers) != SummaryLimit || !slices.Equal(s.Capped, []string{"handlers"}) {
		t.Errorf("%d handlers, capped %v; want %d, [handlers]", len(s.Handlers), s.Capped, SummaryLimit)
	}
	if s.Ops != int64(len(ops)) || s.OpsByKind["call"] != int64(len(ops)) {
		t.Errorf("ops %d, calls %d; want %d", s.Ops, s.OpsByKind["call"], len(ops))
	}
	var text bytes.Buffer
	if err := s.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "handlers   65536 or more\n") {
		t.Errorf("text does not say the count is a lower bound:\n%s", text.String())
	}
}

// TestSummaryCounts checks each count on a small trace.
func TestSummaryCounts(t *testing.T) {
	s := summarize(t, []byte(`{"licorice_trace":1}
{"op":"thread_begin","t":"L","kind":"looper"}
{"op":"attach","t":"L","q":"q"}
{"op":"thread_begin","t":"B","kind":"binder"}
{"op":"attach","t":"B","q":"bq"}
{"op":"send","t":"L","q":"q","e":"E1","ts":5}
{"op":"send","q":"q","e":"E2","external":true,"ts":2}
{"op":"send","t":"L","q":"bq","e":"E3"}
{"op":"remove","t":"L","e":"E2"}
{"op":"begin","t":"E1","thread":"L","ts":9.5}
{"op":"call","t":"E1","h":"onClick"}
{"op":"read","t":"E1","class":"C","field":"f"}
{"op":"relate","t":"E1","a":{"obj":"o","field":"g"},"b":{"class":"D","field":"f"},"via":"cmp"}
{"op":"alloc","t":"E1","obj":"o2"}
{"op":"ret","t":"E1","h":"onClick"}
{"op":"end","t":"E1"}
`))
	e := s.Events
	switch {
	case s.Ops != 15:
		t.Errorf("ops %d", s.Ops)
	case s.Threads["looper"] != 1 || s.Threads["binder"] != 1 || s.Threads["worker"] != 0:
		t.Errorf("threads %v", s.Threads)
	case s.Queues != 2:
		t.Errorf("queues %d", s.Queues)
	case e != EventCounts{Sent: 3, External: 1, Run: 1, Removed: 1, Pending: 1}:
		t.Errorf("events %+v", e)
	case len(s.Handlers) != 1 || s.Handlers["onClick"] != 1:
		t.Errorf("handlers %v", s.Handlers)
	case s.Objects != 1 || s.Classes != 2 || s.Fields != 2:
		t.Errorf("objects %d, classes %d, fields %d", s.Objects, s.Classes, s.Fields)
	case s.Time == nil || *s.Time != TimeSpan{First: 5, Last: 9.5, Duration: 7.5, Ops: 3}:
		t.Errorf("time %+v", s.Time)
	}
}

// Any JSON number is a ts; a span past the largest float is capped, so
// that it prints and encodes (JSON has no infinity).
func TestSummarySpanFinite(t *testing.T) {
	s := summarize(t, []byte(`{"licorice_trace":1}
{"op":"thread_begin","t":"main","kind":"looper","ts":1e308}
{"op":"thread_end","t":"main","ts":-1e308}
`))
	if s.Time == nil || s.Time.Duration != math.MaxFloat64 {
		t.Fatalf("time %+v, want a duration of the largest float", s.Time)
	}
	if _, err := json.Marshal(s); err != nil {
		t.Errorf("the summary does not encode: %v", err)
	}
}
