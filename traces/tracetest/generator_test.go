package tracetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/licorice-dev/licorice/traces"
)

// shapes are the configurations the tests run over many seeds: the presets
// and shapes at the edges of what a Config allows.
func shapes(seed int64) map[string]Config {
	small := Small(seed)
	noBinder := small
	noBinder.BinderQueues = 0
	manyQueues := small
	manyQueues.Loopers, manyQueues.LooperQueues, manyQueues.BinderQueues, manyQueues.BinderThreads = 5, 4, 3, 4
	noWorkers := small
	noWorkers.Workers, noWorkers.MaxWorkers = 0, 0
	noExternal := small
	noExternal.ExternalEvery = 0
	onlyOutside := small
	onlyOutside.Send.ExternalTask = 0
	onlyInput := small
	onlyInput.Send.ExternalTask = 1
	noMix := small
	noMix.Mix = Mix{}
	timeless := small
	timeless.OpMicros, timeless.SleepMillis, timeless.Timestamps = 0, 0, 0.5
	errs := small
	errs.Errors, errs.AbsentValues = true, 0
	byOps := small
	byOps.Events, byOps.Ops = 0, 800
	crowded := small
	crowded.Locks, crowded.Handles, crowded.Objects, crowded.Classes = 1, 1, 1, 1
	fronts := small
	fronts.Send.AtFront, fronts.Send.AtTime, fronts.Send.Barrier = 0.6, 0.3, 0.5
	timers := small
	timers.Timers, timers.Send.Delays, timers.ShortLocks = 3, []int{1, 3}, true
	app := App(300, seed)
	app.WorkerActions = 100 // App's workers live the whole trace: 48k ops of theirs in a 300-event trace
	return map[string]Config{
		"small": small, "android": Android(300, seed), "no-binder": noBinder,
		"many-queues": manyQueues, "no-workers": noWorkers, "no-external": noExternal,
		"only-outside": onlyOutside, "only-input": onlyInput, "no-mix": noMix,
		"timeless": timeless, "errors": errs, "by-ops": byOps, "crowded": crowded,
		"fronts": fronts, "timers": timers, "app": app, "zero": {Seed: seed},
	}
}

func seeds(short, long int64) int64 {
	if testing.Short() {
		return short
	}
	return long
}

// check validates tr, decodes its text form with the strict reader and
// checks the properties every generated trace has.
func check(t *testing.T, tr *Trace) {
	t.Helper()
	v := traces.NewValidator(tr.Symbols)
	for i := range tr.Ops {
		if err := v.Check(&tr.Ops[i], i+2); err != nil {
			t.Fatalf("invalid: %v", err)
		}
	}
	var text bytes.Buffer
	if err := tr.Encode(&text, traces.JSONL); err != nil {
		t.Fatal(err)
	}
	r, err := traces.NewReader(bytes.NewReader(text.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var (
		op     traces.Op
		n      int
		lastTS float64
		line   []byte
	)
	for {
		err := r.Next(&op)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the reader rejects the trace: %v", err)
		}
		// The op reads back as it was made.
		want := traces.AppendCanonical(nil, &tr.Ops[n], tr.Symbols)
		if line = traces.AppendCanonical(line[:0], &op, r.Symbols()); !bytes.Equal(line, want) {
			t.Fatalf("op %d reads back as\n%s, want\n%s", n+1, line, want)
		}
		n++
		if op.HasTS {
			if op.TS < lastTS {
				t.Fatalf("line %d: ts %v goes back from %v", n+1, op.TS, lastTS)
			}
			lastTS = op.TS
		}
	}
	if n != len(tr.Ops) {
		t.Fatalf("read %d ops, generated %d", n, len(tr.Ops))
	}
}

func TestValid(t *testing.T) {
	n := seeds(8, 60)
	for name := range shapes(0) {
		t.Run(name, func(t *testing.T) {
			for seed := range n {
				cfg := shapes(seed)[name]
				tr := Generate(cfg)
				t.Run(fmt.Sprint(seed), func(t *testing.T) { check(t, tr) })
				if t.Failed() {
					return
				}
			}
		})
	}
}

// TestConsistent checks that the simulation obeys the queue rules of the
// causality model in their strong form, with trace order (<) in place of
// happens-before (≺) in the premises: since ≺ implies < in a consistent
// trace, these imply that no PRIORITY or ATFRONT edge between real ops
// points backwards. It also checks that binder threads take events in
// FIFO order.
func TestConsistent(t *testing.T) {
	n := seeds(20, 200)
	for _, name := range []string{"small", "many-queues", "fronts", "android", "timeless"} {
		t.Run(name, func(t *testing.T) {
			for seed := range n {
				tr := Generate(shapes(seed)[name])
				if err := consistent(tr); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
			}
		})
	}
}

type evState struct {
	q        traces.Sym
	kind     traces.SendKind
	async    bool
	time     int64
	sent     int // op index
	resolved int // op index of its end or remove; -1 while it is pending or running
	binder   bool
}

func consistent(tr *Trace) error {
	binderQ := make(map[traces.Sym]bool)
	threadKind := make(map[traces.Sym]traces.ThreadKind)
	events := make(map[traces.Sym]*evState)
	byQueue := make(map[traces.Sym][]traces.Sym)
	lastBinderSend := make(map[traces.Sym]int) // queue: send index of the last event begun
	name := tr.Symbols.String
	for i := range tr.Ops {
		op := &tr.Ops[i]
		switch op.Kind {
		case traces.ThreadBegin:
			threadKind[op.Task] = op.ThreadKind
		case traces.Attach:
			binderQ[op.Queue] = threadKind[op.Task] == traces.Binder
		case traces.Send:
			events[op.Event] = &evState{q: op.Queue, kind: op.SendKind, async: op.Async, time: op.Time,
				sent: i, resolved: -1, binder: binderQ[op.Queue]}
			byQueue[op.Queue] = append(byQueue[op.Queue], op.Event)
		case traces.Remove:
			events[op.Event].resolved = i
		case traces.End:
			events[op.Task].resolved = i
		case traces.Begin:
			e2 := events[op.Task]
			if e2.binder {
				if last, ok := lastBinderSend[e2.q]; ok && last > e2.sent {
					return fmt.Errorf("op %d: binder event %s begins before an event sent earlier", i+1, name(op.Task))
				}
				lastBinderSend[e2.q] = e2.sent
				continue
			}
			for _, id1 := range byQueue[e2.q] {
				e1 := events[id1]
				if id1 == op.Task || e1.resolved >= 0 {
					continue
				}
				// e1 is pending or running: nothing may order it before e2.
				if e1.sent < e2.sent && priority(&sendInfo{e1.kind, e1.async, e1.time}, &sendInfo{e2.kind, e2.async, e2.time}) {
					return fmt.Errorf("op %d: %s begins while %s (%v async=%v t=%d), which Table 3.1 puts first, is pending (%v async=%v t=%d)",
						i+1, name(op.Task), name(id1), e1.kind, e1.async, e1.time, e2.kind, e2.async, e2.time)
				}
				if e1.kind == traces.AtFront && e1.sent > e2.sent {
					return fmt.Errorf("op %d: %s begins while %s, sent at front after it, is pending (ATFRONT)", i+1, name(op.Task), name(id1))
				}
			}
		}
	}
	return nil
}

func encode(t testing.TB, tr *Trace) []byte {
	var b bytes.Buffer
	if err := tr.Encode(&b, traces.JSONL); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestDeterministic(t *testing.T) {
	for name, cfg := range shapes(7) {
		t.Run(name, func(t *testing.T) {
			a, b := encode(t, Generate(cfg)), encode(t, Generate(cfg))
			if !bytes.Equal(a, b) {
				t.Fatal("two runs of one config differ")
			}
			var s bytes.Buffer
			n, err := Write(context.Background(), &s, traces.JSONL, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, s.Bytes()) {
				t.Fatal("Write streams another trace than Generate makes")
			}
			if lines := int64(bytes.Count(a, []byte("\n")) - 1); n != lines {
				t.Fatalf("Write says %d ops, wrote %d", n, lines)
			}
			cfg.Seed++
			if c := encode(t, Generate(cfg)); bytes.Equal(a, c) && name != "zero" {
				t.Fatal("another seed gives the same trace")
			}
		})
	}
}

// TestRecycleSymbols checks that emptying the symbol table between ops
// changes nothing in the text, and keeps the table small.
func TestRecycleSymbols(t *testing.T) {
	cfg := Android(2000, 3)
	want := encode(t, Generate(cfg))
	g := NewGenerator(cfg)
	const limit = 100
	g.RecycleSymbols(limit)
	var got []byte
	got = traces.AppendCanonicalHeader(got, g.Header())
	var op traces.Op
	most := 0
	for g.Next(&op) {
		got = traces.AppendCanonical(got, &op, g.Symbols())
		most = max(most, g.Symbols().Len())
	}
	if !bytes.Equal(got, want) {
		t.Fatal("recycling symbols changes the trace")
	}
	// One op interns a dozen strings at most.
	if most > limit+16 {
		t.Fatalf("the table grew to %d symbols, limit %d", most, limit)
	}
}

// TestWriteForms streams a trace in every form, emptying the symbol table
// often, and reads it back: it is the trace Generate makes.
func TestWriteForms(t *testing.T) {
	cfg := Android(1000, 9)
	want := encode(t, Generate(cfg))
	for _, f := range []traces.Format{traces.JSONL, traces.JSONLZstd, traces.LCT} {
		t.Run(f.String(), func(t *testing.T) {
			var b bytes.Buffer
			if _, err := write(context.Background(), &b, f, cfg, 100); err != nil {
				t.Fatal(err)
			}
			r, err := traces.NewReader(&b)
			if err != nil {
				t.Fatal(err)
			}
			got := traces.AppendCanonicalHeader(nil, r.Header())
			var op traces.Op
			for {
				err := r.Next(&op)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = traces.AppendCanonical(got, &op, r.Symbols())
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%v reads back as another trace", f)
			}
		})
	}
}

func TestSize(t *testing.T) {
	for _, events := range []int{1, 10, 500} {
		tr := Generate(Android(events, 1))
		if got := countKind(tr, traces.Send); got != events {
			t.Errorf("Android(%d): %d events sent", events, got)
		}
	}
	// The size in ops is approximate: what the events already sent emit
	// once the generation winds down is a guess.
	for _, tt := range []struct{ ops, percent int }{{2000, 35}, {30000, 12}} {
		for seed := range int64(3) {
			cfg := Small(seed)
			cfg.Events, cfg.Ops = 0, tt.ops
			got := len(Generate(cfg).Ops)
			if diff := got - tt.ops; diff*100 > tt.ops*tt.percent || -diff*100 > tt.ops*tt.percent {
				t.Errorf("Ops %d, seed %d: %d ops, more than %d%% off", tt.ops, seed, got, tt.percent)
			}
		}
	}
}

// TestFullQueues runs Small long enough that its queues fill up and sends
// are refused (the input thread once looped forever on a refused send).
func TestFullQueues(t *testing.T) {
	if testing.Short() {
		t.Skip("150k ops")
	}
	cfg := Small(1)
	cfg.Events = 20_000
	g := NewGenerator(cfg)
	var op traces.Op
	full := false
	for g.Next(&op) {
		full = full || len(g.pending) >= len(g.lqueues)*maxPending-4
	}
	if !full {
		t.Fatal("the queues never filled up: the test tests nothing")
	}
}

func countKind(tr *Trace, k traces.Kind) int {
	n := 0
	for i := range tr.Ops {
		if tr.Ops[i].Kind == k {
			n++
		}
	}
	return n
}

// TestAndroidShape checks what the Android preset promises: about 20
// memory accesses per event, and most events run.
func TestAndroidShape(t *testing.T) {
	tr := Generate(Android(3000, 5))
	running := make(map[traces.Sym]bool)
	accesses, begins := 0, 0
	for i := range tr.Ops {
		op := &tr.Ops[i]
		switch op.Kind {
		case traces.Begin:
			running[op.Task] = true
			begins++
		case traces.End:
			delete(running, op.Task)
		case traces.Read, traces.Write:
			if running[op.Task] {
				accesses++
			}
		}
	}
	if per := float64(accesses) / float64(begins); per < 17 || per > 23 {
		t.Errorf("%.1f accesses per event, want about 20", per)
	}
	if begins < 3000*8/10 {
		t.Errorf("%d of 3000 events ran", begins)
	}
}

// TestAppShape checks what the App preset promises: about 20 memory
// accesses per event, a few hundred events per second of trace time,
// loopers that keep up (short queues, whatever the trace's length),
// timers that tick all along, and only the preset's few delays.
func TestAppShape(t *testing.T) {
	events := 20000
	if testing.Short() {
		events = 4000
	}
	cfg := App(events, 5)
	g := NewGenerator(cfg)
	delays := map[int64]bool{0: true}
	for _, d := range cfg.Send.Delays {
		delays[int64(d)] = true
	}
	running := make(map[traces.Sym]bool)
	accesses, begins, mostPending := 0, 0, 0
	var op traces.Op
	var last float64
	for g.Next(&op) {
		switch op.Kind {
		case traces.Begin:
			running[op.Task] = true
			begins++
		case traces.End:
			delete(running, op.Task)
		case traces.Read, traces.Write:
			if running[op.Task] {
				accesses++
			}
		case traces.Send:
			if op.SendKind == traces.Delayed && !delays[op.Time] {
				t.Errorf("a delay of %d ms, not one of %v", op.Time, cfg.Send.Delays)
			}
		}
		if !g.stopping {
			mostPending = max(mostPending, len(g.pending))
		}
		last = op.TS
	}
	if per := float64(accesses) / float64(begins); per < 18 || per > 24 {
		t.Errorf("%.1f accesses per event, want about 20", per)
	}
	if rate := float64(begins) / (last / 1000); rate < 100 || rate > 500 {
		t.Errorf("%.0f events per second of trace time, want a few hundred", rate)
	}
	if mostPending > 100 {
		t.Errorf("up to %d events pending at once: the loopers fall behind", mostPending)
	}
	if begins < events*9/10 {
		t.Errorf("%d of %d events ran", begins, events)
	}
}

// TestTimers checks that a timer ticks with its period until the trace
// winds down, and is never removed.
func TestTimers(t *testing.T) {
	cfg := Small(3)
	cfg.Events = 2000
	cfg.Timers, cfg.Send.Delays = 1, []int{7}
	cfg.Send.ZeroDelay, cfg.Send.Barrier = 1, 0 // other delayed sends have no delay: every delay of 7 ms is a tick
	cfg.Mix.Remove = 20
	tr := Generate(cfg)
	var ticks []float64 // when each tick was sent
	timer := map[traces.Sym]bool{}
	removed := 0
	for i := range tr.Ops {
		op := &tr.Ops[i]
		switch op.Kind {
		case traces.Send:
			if op.SendKind == traces.Delayed && op.Time == 7 {
				if len(ticks) > 0 && !timer[op.Task] {
					t.Fatalf("line %d: a delay of 7 ms sent by %s, not by a tick", i+2, tr.Symbols.String(op.Task))
				}
				timer[op.Event] = true
				ticks = append(ticks, op.TS)
			}
		case traces.Remove:
			removed++
			if timer[op.Event] {
				t.Errorf("line %d: tick %s removed", i+2, tr.Symbols.String(op.Event))
			}
		}
	}
	if removed == 0 {
		t.Fatal("no event removed: the test shows nothing")
	}
	if want := tr.Ops[len(tr.Ops)-1].TS / 7 / 2; float64(len(ticks)) < want {
		t.Fatalf("%d ticks of the timer, want at least %.0f", len(ticks), want)
	}
	for i := 1; i < len(ticks); i++ {
		// A tick is due its period after the ms its predecessor was sent in.
		if gap := ticks[i] - ticks[i-1]; gap < 6 {
			t.Fatalf("ticks %d and %d %.1f ms apart, want about the period (7 ms)", i-1, i, gap)
		}
	}
}

func TestWriteCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n, err := Write(ctx, io.Discard, traces.JSONL, Android(10000, 1))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n > 4096 {
		t.Fatalf("wrote %d ops after the context was done", n)
	}
}

// TestBoundedState streams a long trace and checks that what the
// generator keeps does not grow with it.
func TestBoundedState(t *testing.T) {
	if testing.Short() {
		t.Skip("streams a million ops")
	}
	g := NewGenerator(Android(40000, 2))
	g.RecycleSymbols(1 << 12)
	var op traces.Op
	most := struct{ threads, pending, events, syms int }{}
	for g.Next(&op) {
		most.threads = max(most.threads, len(g.threads))
		most.pending = max(most.pending, len(g.pending))
		most.events = max(most.events, len(g.events))
		most.syms = max(most.syms, g.Symbols().Len())
	}
	if g.Count() < 1_000_000 {
		t.Fatalf("only %d ops", g.Count())
	}
	if most.threads > 64 || most.pending > 4*maxPending || most.events > 4*maxPending || most.syms > 1<<12+16 {
		t.Fatalf("state grew: %+v", most)
	}
}
