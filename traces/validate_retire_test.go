package traces

import (
	"errors"
	"fmt"
	"strconv"
	"testing"
)

// retireFixture runs a looper through n events (every tenth removed
// instead of run) and a worker thread through its life, and returns the
// validator with the lines where E1 ended, E9 was removed and w ended.
// With shared, the table held the trace's ids before the validator began,
// as a table shared with earlier traces does.
func retireFixture(t *testing.T, n int, shared bool) (v *Validator, syms *Symbols, line, e1End, e9Removed, wEnd int) {
	t.Helper()
	syms = NewSymbols()
	if shared {
		for _, s := range []string{"main", "q", "w"} {
			syms.Intern(s)
		}
		for i := range n {
			syms.Intern("E" + strconv.Itoa(i))
		}
	}
	v = NewValidator(syms)
	step := func(op Op) {
		t.Helper()
		line++
		if err := v.Check(&op, line); err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
	}
	main, q, w := syms.Intern("main"), syms.Intern("q"), syms.Intern("w")
	step(Op{Kind: ThreadBegin, Task: main, ThreadKind: Looper})
	step(Op{Kind: Attach, Task: main, Queue: q})
	for i := 0; i < n; i++ {
		e := syms.Intern("E" + strconv.Itoa(i))
		step(Op{Kind: Send, Task: main, Queue: q, Event: e})
		if i%10 == 9 {
			step(Op{Kind: Remove, Task: main, Event: e})
			if i == 9 {
				e9Removed = line
			}
			continue
		}
		step(Op{Kind: Begin, Task: e, Thread: main})
		step(Op{Kind: End, Task: e})
		if i == 1 {
			e1End = line
		}
	}
	step(Op{Kind: Fork, Task: main, Thread: w})
	step(Op{Kind: ThreadBegin, Task: w})
	step(Op{Kind: ThreadEnd, Task: w})
	wEnd = line
	return v, syms, line, e1End, e9Removed, wEnd
}

// TestValidatorRetiresFinishedTasks checks that a long trace does not keep
// a full record per finished task: ended and removed events and ended
// threads move to the compact record, and the rules about them still hold.
func TestValidatorRetiresFinishedTasks(t *testing.T) {
	const n = 5000
	v, _, _, _, _, _ := retireFixture(t, n, false)
	live, finished := 0, 0
	count := func(p uint64) {
		switch {
		case p == 0:
		case p&presentMark == 0:
			live++
		default:
			finished++
		}
	}
	for p := range v.tasks.vals.All() {
		count(*p)
	}
	if live != 1 {
		t.Errorf("%d live task records after %d finished events; want 1 (the running looper)", live, n)
	}
	if finished != n+1 {
		t.Errorf("%d compact records, want %d (every event and the worker)", finished, n+1)
	}
	if got := len(v.live); got > 4 {
		t.Errorf("%d live records allocated for %d events run one after another; want a few, reused", got, n)
	}

	tests := []struct {
		name string
		op   func(s *Symbols) Op
		want func(e1End, e9Removed, wEnd int) string
	}{
		{"op of an ended event",
			func(s *Symbols) Op {
				return Op{Kind: Write, Task: s.Intern("E1"), Loc: Location{Obj: s.Intern("o"), Field: s.Intern("f")}}
			},
			func(e1, _, _ int) string { return fmt.Sprintf("event E1 is not running: it ended at line %d", e1) }},
		{"begin of an ended event",
			func(s *Symbols) Op { return Op{Kind: Begin, Task: s.Intern("E1"), Thread: s.Intern("main")} },
			func(e1, _, _ int) string { return fmt.Sprintf("event E1 began twice (first at line %d)", e1) }},
		{"resend of a removed event",
			func(s *Symbols) Op {
				return Op{Kind: Send, Task: s.Intern("main"), Queue: s.Intern("q"), Event: s.Intern("E9")}
			},
			func(_, e9, _ int) string { return fmt.Sprintf("event E9 was sent twice (first at line %d)", e9) }},
		{"remove of a removed event",
			func(s *Symbols) Op { return Op{Kind: Remove, Task: s.Intern("main"), Event: s.Intern("E9")} },
			func(_, e9, _ int) string {
				return fmt.Sprintf("remove of event E9, which was removed at line %d", e9)
			}},
		{"op of an ended thread",
			func(s *Symbols) Op { return Op{Kind: Signal, Task: s.Intern("w"), Name: s.Intern("m")} },
			func(_, _, w int) string { return fmt.Sprintf("thread w has ended at line %d", w) }},
		{"thread begins again",
			func(s *Symbols) Op { return Op{Kind: ThreadBegin, Task: s.Intern("w")} },
			func(_, _, w int) string { return fmt.Sprintf("thread w began twice (first at line %d)", w) }},
		{"join of an ended thread is fine",
			func(s *Symbols) Op { return Op{Kind: Join, Task: s.Intern("main"), Thread: s.Intern("w")} },
			func(int, int, int) string { return "" }},
	}
	for _, tt := range tests {
		for _, shared := range []bool{false, true} {
			name := tt.name
			if shared {
				name += "/shared table"
			}
			t.Run(name, func(t *testing.T) {
				v, syms, line, e1, e9, w := retireFixture(t, 20, shared)
				op := tt.op(syms)
				err := v.Check(&op, line+1)
				want := tt.want(e1, e9, w)
				var le *LineError
				switch {
				case want == "" && err != nil:
					t.Fatalf("unexpected error: %v", err)
				case want == "":
				case err == nil:
					t.Fatalf("no error; want %q", want)
				case !errors.As(err, &le) || le.Msg != want || le.Line != line+1:
					t.Fatalf("got %v\nwant line %d: %s", err, line+1, want)
				}
			})
		}
	}
}
