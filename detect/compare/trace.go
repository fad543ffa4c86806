package compare

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/licorice-dev/licorice/detect/races"
	"github.com/licorice-dev/licorice/traces"
	"github.com/licorice-dev/licorice/traces/droidracer"
)

// trace is an imported log held in memory: its text, and its operations
// with what the comparison needs to know of each.
type trace struct {
	name    string
	text    []byte // the trace as JSON Lines
	events  []byte // the same with its reads and writes blank, for hb: the same lines, a tenth of the parsing
	syms    *traces.Symbols
	ops     []traces.Op
	lines   []int               // lines[i]: the line of ops[i]
	threads []traces.Sym        // threads[i]: the thread that ran ops[i] (the event's thread for an event)
	locks   [][]traces.Sym      // locks[i]: the locks held by the task of ops[i]
	looper  map[traces.Sym]bool // the looper threads
	access  map[string]int      // the src of a read or write ("droidracer:rw70") -> its op
}

// importTrace imports log l with the given options and reads the trace
// back, validated.
func importTrace(ctx context.Context, l *droidracer.Log, app string, opts droidracer.Options) (*trace, error) {
	var buf bytes.Buffer
	syms := traces.NewSymbols()
	w, err := traces.NewWriter(&buf, traces.JSONL, droidracer.Header(app), syms)
	if err != nil {
		return nil, err
	}
	if _, err := l.ImportWith(ctx, w, syms, opts); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	t := &trace{name: l.Name + " (imported)", text: buf.Bytes(), access: map[string]int{}, looper: map[traces.Sym]bool{}}
	r, err := t.reader()
	if err != nil {
		return nil, err
	}
	t.syms = r.Symbols()
	held := map[traces.Sym][]traces.Sym{} // task -> the locks it holds, once per acquisition
	thread := map[traces.Sym]traces.Sym{} // event -> its thread
	err = traces.EachAhead(ctx, r, func(op *traces.Op) error {
		i := len(t.ops)
		th := op.Task
		switch op.Kind {
		case traces.ThreadBegin:
			if op.ThreadKind == traces.Looper {
				t.looper[op.Task] = true
			}
		case traces.Begin:
			thread[op.Task] = op.Thread
		case traces.End:
			delete(thread, op.Task)
		case traces.Lock:
			held[op.Task] = append(slices.Clip(held[op.Task]), op.Name)
		case traces.Unlock:
			h := held[op.Task]
			if j := slices.Index(h, op.Name); j >= 0 {
				held[op.Task] = slices.Delete(slices.Clone(h), j, j+1)
			}
		case traces.Read, traces.Write:
			t.access[t.syms.String(op.Src)] = i
		}
		if e, ok := thread[op.Task]; ok {
			th = e
		}
		t.ops = append(t.ops, *op)
		t.lines = append(t.lines, r.Line())
		t.threads = append(t.threads, th)
		t.locks = append(t.locks, held[op.Task])
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the imported trace back: %w", err)
	}
	t.events = blankAccesses(t.text, t.ops, t.lines)
	return t, nil
}

// blankAccesses returns text with the lines of its reads and writes empty:
// a reader skips blank lines but counts them.
func blankAccesses(text []byte, ops []traces.Op, lines []int) []byte {
	blank := make(map[int]bool, len(ops))
	for i := range ops {
		if k := ops[i].Kind; k == traces.Read || k == traces.Write {
			blank[lines[i]] = true
		}
	}
	out := make([]byte, 0, len(text)/8)
	for n := 1; len(text) > 0; n++ {
		line, rest, _ := bytes.Cut(text, []byte("\n"))
		if !blank[n] {
			out = append(out, line...)
		}
		out = append(out, '\n')
		text = rest
	}
	return out
}

// detect runs licorice's data race detector over the trace, with add
// inserted (nil: none).
func (t *trace) detect(ctx context.Context, add *additions) (*races.Report, error) {
	d := races.NewDetector(t.syms, races.Config{Kind: races.DataRace})
	d.SetFile(t.name)
	step := func(ops []traces.Op, line int) error {
		for k := range ops {
			if err := d.Step(&ops[k], line); err != nil {
				return err
			}
		}
		return nil
	}
	for i := range t.ops {
		if i&0xfff == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if add != nil {
			if err := step(add.before[i], t.lines[i]); err != nil {
				return nil, err
			}
		}
		if err := step(t.ops[i:i+1], t.lines[i]); err != nil {
			return nil, err
		}
		if add != nil {
			if err := step(add.after[i], t.lines[i]); err != nil {
				return nil, err
			}
		}
	}
	return d.Finish()
}

// reader reads the trace again from its text.
func (t *trace) reader() (*traces.Reader, error) {
	return traces.NewReader(bytes.NewReader(t.text), traces.WithName(t.name))
}

// eventReader reads the trace without its reads and writes, on the same
// lines: enough for licorice hb, which orders events.
func (t *trace) eventReader() (*traces.Reader, error) {
	return traces.NewReader(bytes.NewReader(t.events), traces.WithName(t.name))
}

func (t *trace) str(y traces.Sym) string { return t.syms.String(y) }

// isEvent reports whether ops[i] was made by an event.
func (t *trace) isEvent(i int) bool { return t.threads[i] != t.ops[i].Task }

// commonLocks returns the locks both ops i and j were made holding.
func (t *trace) commonLocks(i, j int) []string {
	var out []string
	for _, l := range t.locks[i] {
		if slices.Contains(t.locks[j], l) && !slices.Contains(out, t.str(l)) {
			out = append(out, t.str(l))
		}
	}
	slices.Sort(out)
	return out
}
