package shuffle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/licorice-dev/licorice/internal/golden"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/traces"
)

// rec is a recorded run: its ops (copied) and their symbols.
type rec struct {
	syms  *traces.Symbols
	ops   []traces.Op
	jsonl []byte
	res   Result
	err   error
}

func (r *rec) name(y traces.Sym) string { return r.syms.String(y) }

// record runs main and checks every op with traces.Validator and the
// exact AsyncClock engine (which rejects traces inconsistent with the
// causality model).
func record(t testing.TB, main func(*Runtime), opts Options) *rec {
	t.Helper()
	var buf bytes.Buffer
	r := &rec{syms: traces.NewSymbols()}
	w, err := traces.NewWriter(&buf, traces.JSONL, &traces.Header{App: "test"}, r.syms)
	if err != nil {
		t.Fatal(err)
	}
	val := traces.NewValidator(r.syms)
	hb := asyncclock.New(r.syms, asyncclock.Config{})
	var verr error
	r.res, r.err = Run(context.Background(), main, opts, r.syms, func(op *traces.Op) error {
		r.ops = append(r.ops, *op)
		if err := val.Check(op, len(r.ops)+1); err != nil && verr == nil {
			verr = err
		}
		if err := hb.Step(op, len(r.ops)+1); err != nil && verr == nil {
			verr = fmt.Errorf("inconsistent with the causality model: %w", err)
		}
		return w.Write(op)
	})
	if err := hb.Finish(); err != nil && verr == nil {
		verr = err
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if verr != nil {
		t.Fatalf("invalid trace: %v", verr)
	}
	r.jsonl = buf.Bytes()
	return r
}

// handlers returns the handlers called directly by events, in order.
func (r *rec) handlers() []string {
	var hs []string
	depth := map[traces.Sym]int{}
	for _, op := range r.ops {
		switch op.Kind {
		case traces.Call:
			if depth[op.Task] == 0 && strings.HasPrefix(r.name(op.Task), "E") {
				hs = append(hs, r.name(op.Name))
			}
			depth[op.Task]++
		case traces.Ret:
			depth[op.Task]--
		}
	}
	return hs
}

// queueProgram is a looper whose handlers log their names.
type queueProgram struct {
	rt  *Runtime
	log []string
}

func (p *queueProgram) a() { p.log = append(p.log, "a") }
func (p *queueProgram) b() { p.log = append(p.log, "b") }
func (p *queueProgram) c() { p.log = append(p.log, "c") }
func (p *queueProgram) d() { p.log = append(p.log, "d") }

// TestQueueOrder checks Android's queue order through the runtime: the
// cases of thesis Fig. 3.4, sync barriers, async messages, removal.
func TestQueueOrder(t *testing.T) {
	tests := []struct {
		name string
		prog func(p *queueProgram)
		want string
	}{
		{"fig 3.4a: same delays keep send order", func(p *queueProgram) {
			p.rt.Main().PostDelayed(p.a, 5*time.Millisecond)
			p.rt.Main().PostDelayed(p.b, 5*time.Millisecond)
		}, "ab"},
		{"fig 3.4b: a greater delay lets the later event go first", func(p *queueProgram) {
			p.rt.Main().PostDelayed(p.a, 6*time.Millisecond)
			p.rt.Main().PostDelayed(p.b, 5*time.Millisecond)
		}, "ba"},
		{"fig 3.4c: at-front sent by an event of the same looper goes first", func(p *queueProgram) {
			p.rt.Main().Post(func() {
				p.rt.Main().Post(p.a)
				p.rt.Main().PostAtFront(p.b)
			})
		}, "ba"},
		{"at-time in time order", func(p *queueProgram) {
			p.rt.Main().PostAtTime(p.a, 30*time.Millisecond)
			p.rt.Main().PostAtTime(p.b, 20*time.Millisecond)
			p.rt.Main().Post(p.c)
		}, "cba"},
		{"fronts are lifo", func(p *queueProgram) {
			p.rt.Main().Post(p.a)
			p.rt.Main().PostAtFront(p.b)
			p.rt.Main().PostAtFront(p.c)
		}, "cba"},
		{"barrier holds sync for good, async passes", func(p *queueProgram) {
			l := p.rt.Main()
			l.PostSyncBarrier()
			l.Post(p.a)
			l.PostAsync(p.b, 0)
			l.PostAsync(p.c, 10*time.Millisecond)
		}, "bc"},
		{"removing the barrier releases sync messages", func(p *queueProgram) {
			l := p.rt.Main()
			tok := l.PostSyncBarrier()
			l.Post(p.a)
			l.PostAsync(p.b, 0)
			l.PostAsync(p.c, 10*time.Millisecond)
			p.rt.Go("w", func() {
				p.rt.Sleep(20 * time.Millisecond)
				l.RemoveSyncBarrier(tok)
				l.Post(p.d)
			})
		}, "bcad"},
		{"removed message never runs", func(p *queueProgram) {
			m := p.rt.Main().PostDelayed(p.a, time.Millisecond)
			p.rt.Main().Post(p.b)
			if !m.Remove() || m.Remove() {
				panic("Remove")
			}
		}, "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &queueProgram{}
			r := record(t, func(rt *Runtime) { p.rt = rt; tt.prog(p) }, Options{Seed: 1, Actions: 1})
			if r.err != nil {
				t.Fatal(r.err)
			}
			if got := strings.Join(p.log, ""); got != tt.want {
				t.Errorf("handlers ran %q, want %q", got, tt.want)
			}
		})
	}
}

// TestDeterministic checks that a seed replays a run exactly and that
// seeds differ.
func TestDeterministic(t *testing.T) {
	for _, shuffled := range []bool{false, true} {
		opts := Options{Seed: 7, Actions: 60, Shuffle: shuffled}
		a := record(t, runSink, opts)
		b := record(t, runSink, opts)
		if a.err != nil || b.err != nil {
			t.Fatal(a.err, b.err)
		}
		if !bytes.Equal(a.jsonl, b.jsonl) {
			t.Fatalf("shuffled=%v: the same seed gave two different traces", shuffled)
		}
		opts.Seed = 8
		if c := record(t, runSink, opts); bytes.Equal(a.jsonl, c.jsonl) {
			t.Fatalf("shuffled=%v: seeds 7 and 8 gave the same trace", shuffled)
		}
	}
}

// TestShuffleKeepsModelOrders runs the sink with many seeds, shuffled and
// not, and checks every trace against the rules of the causality model
// that can be checked locally, in their strong form (trace order in the
// premises): PRIORITY (incl. FIFO) and ATFRONT on looper queues, FIFO on
// the binder queue, FORK, JOIN, SIGNAL (a wait comes after a signal of its
// handle), EXTERNAL order of external sends. It also checks that
// shuffling changes the order of events across seeds.
func TestShuffleKeepsModelOrders(t *testing.T) {
	seeds := 40
	if testing.Short() {
		seeds = 8
	}
	orders := map[string]bool{}
	for seed := range seeds {
		for _, shuffled := range []bool{false, true} {
			r := record(t, runSink, Options{Seed: int64(seed), Actions: 40, Shuffle: shuffled, DelayMean: 20 * time.Millisecond})
			if r.err != nil {
				t.Fatal(r.err)
			}
			if err := checkModel(r); err != nil {
				t.Fatalf("seed %d shuffled %v: %v", seed, shuffled, err)
			}
			if shuffled {
				orders[strings.Join(r.handlers(), " ")] = true
			}
		}
	}
	if len(orders) < seeds/2 {
		t.Errorf("%d seeds gave only %d orders of handlers", seeds, len(orders))
	}
}

type evInfo struct {
	q       traces.Sym
	kind    traces.SendKind
	async   bool
	time    int64
	sent    int
	done    bool // ended or removed
	binder  bool
	started bool
}

// cell is Table 3.1: 0 false, 1 true, 2 t1 <= t2; rows and columns
// delayed-async, delayed-sync, attime-async, attime-sync, front-async,
// front-sync.
var cell = [6][6]int{
	{2, 2, 0, 0, 0, 0},
	{0, 2, 0, 0, 0, 0},
	{0, 0, 2, 2, 0, 0},
	{0, 0, 0, 2, 0, 0},
	{1, 1, 1, 1, 0, 0},
	{0, 1, 0, 1, 0, 0},
}

func cellOf(e *evInfo) int {
	i := int(e.kind) * 2
	if !e.async {
		i++
	}
	return i
}

func checkModel(r *rec) error {
	events := map[traces.Sym]*evInfo{}
	byQueue := map[traces.Sym][]traces.Sym{}
	binderQ := map[traces.Sym]bool{}
	kinds := map[traces.Sym]traces.ThreadKind{}
	forked := map[traces.Sym]bool{}
	ended := map[traces.Sym]bool{}
	signaled := map[traces.Sym]bool{}
	lastBinder := map[traces.Sym]int{}
	lastExternal := -1.0
	for i, op := range r.ops {
		switch op.Kind {
		case traces.Fork:
			forked[op.Thread] = true
		case traces.ThreadBegin:
			kinds[op.Task] = op.ThreadKind
			if op.ThreadKind == traces.Worker && !forked[op.Task] {
				return errorf(i, "worker %s began without a fork before", r.name(op.Task))
			}
		case traces.ThreadEnd:
			ended[op.Task] = true
		case traces.Join:
			if !ended[op.Thread] {
				return errorf(i, "join of %s before it ended", r.name(op.Thread))
			}
		case traces.Signal:
			signaled[op.Name] = true
		case traces.Wait:
			if !signaled[op.Name] {
				return errorf(i, "wait on %s before any signal of it", r.name(op.Name))
			}
		case traces.Attach:
			binderQ[op.Queue] = kinds[op.Task] == traces.Binder
		case traces.Send:
			if op.External {
				if op.TS < lastExternal {
					return errorf(i, "external sends out of time order")
				}
				lastExternal = op.TS
			}
			events[op.Event] = &evInfo{q: op.Queue, kind: op.SendKind, async: op.Async, time: op.Time, sent: i, binder: binderQ[op.Queue]}
			byQueue[op.Queue] = append(byQueue[op.Queue], op.Event)
		case traces.Remove:
			events[op.Event].done = true
		case traces.End:
			events[op.Task].done = true
		case traces.Begin:
			e2 := events[op.Task]
			e2.started = true
			if e2.binder {
				if last, ok := lastBinder[e2.q]; ok && last > e2.sent {
					return errorf(i, "binder event %s begins before an event sent earlier", r.name(op.Task))
				}
				lastBinder[e2.q] = e2.sent
				continue
			}
			for _, id1 := range byQueue[e2.q] {
				e1 := events[id1]
				if id1 == op.Task || e1.done || e1.started {
					continue
				}
				c := cell[cellOf(e1)][cellOf(e2)]
				if e1.sent < e2.sent && (c == 1 || c == 2 && e1.time <= e2.time) {
					return errorf(i, "%s begins while %s, which Table 3.1 puts first, is pending", r.name(op.Task), r.name(id1))
				}
				if e1.kind == traces.AtFront && e1.sent > e2.sent {
					return errorf(i, "%s begins while %s, sent at front after it, is pending", r.name(op.Task), r.name(id1))
				}
			}
		}
	}
	return nil
}

// errorf is an error about op i (its line in the trace is i+2).
func errorf(i int, format string, args ...any) error {
	return fmt.Errorf("line %d: %s", i+2, fmt.Sprintf(format, args...))
}

type crasher struct {
	Object
	rt   *Runtime
	lock *Mutex
	p    Ptr[crasher]
}

func (c *crasher) boom() {
	c.lock.Lock()
	c.p.Use()
}

// TestCrash checks that a null dereference records an error, unwinds the
// event (unlock, ret, end) and ends the run.
func TestCrash(t *testing.T) {
	r := record(t, func(rt *Runtime) {
		c := New(rt, &crasher{rt: rt})
		c.lock = NewMutex(c)
		rt.Main().Post(c.boom)
		rt.Main().PostDelayed(c.boom, time.Second)
	}, Options{Seed: 1})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !strings.HasPrefix(r.res.Crash, "NullPointerException: Crasher.p") {
		t.Errorf("Crash = %q", r.res.Crash)
	}
	var tail []string
	for _, op := range r.ops[len(r.ops)-5:] {
		tail = append(tail, op.Kind.String())
	}
	if want := []string{"read", "error", "unlock", "ret", "end"}; !slices.Equal(tail, want) {
		t.Errorf("trace ends with %v, want %v", tail, want)
	}
}

// TestAppPanic checks that a bug in the app's Go code is an error of Run.
func TestAppPanic(t *testing.T) {
	r := record(t, func(rt *Runtime) {
		rt.Main().Post(func() { panic("a bug in the app") })
	}, Options{Seed: 1})
	if r.err == nil || !strings.Contains(r.err.Error(), "panicked") {
		t.Fatalf("err = %v, want a panic", r.err)
	}
}

// TestStopsOnContext checks that a cancelled run returns the context's
// error.
func TestStopsOnContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, runSink, Options{Seed: 1}, traces.NewSymbols(), func(*traces.Op) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestWriteError checks that a failing output ends the run with its error.
func TestWriteError(t *testing.T) {
	boom := errors.New("disk full")
	n := 0
	_, err := Run(context.Background(), runSink, Options{Seed: 1}, traces.NewSymbols(), func(*traces.Op) error {
		if n++; n == 100 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want %v", err, boom)
	}
}

// TestGolden pins the trace of a small run, so that any change of what
// the runtime records shows up in review.
func TestGolden(t *testing.T) {
	r := record(t, runSink, Options{Seed: 3, Actions: 6})
	if r.err != nil {
		t.Fatal(r.err)
	}
	path := filepath.Join("testdata", "sink.golden.jsonl")
	golden.Check(t, path, r.jsonl)
}

func TestJavaName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"github.com/x/apps.(*trackDetailActivity).onPause-fm", "TrackDetailActivity.onPause"},
		{"github.com/x/apps.(*trackDetailActivity).OnPause", "TrackDetailActivity.onPause"},
		{"github.com/x/apps.serviceConnection.connected-fm", "ServiceConnection.connected"},
		{"github.com/x/apps.runMyTracks.func1", "runMyTracks.func1"},
		{"github.com/x/apps.runMyTracks.func12", "runMyTracks.func12"},
		{"github.com/x/apps.T.funcs", "T.funcs"},
		{"github.com/x/apps.(serviceConnection).connected-fm", "ServiceConnection.connected"},
		{"github.com/x/apps.(*hub).start.func1", "Hub.start.func1"},
		{"github.com/x/apps.runMyTracks", "runMyTracks"},
		{"main.main", "main"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := JavaName(tt.in); got != tt.want {
			t.Errorf("JavaName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzJavaName(f *testing.F) {
	f.Add("github.com/x/apps.(*trackDetailActivity).onPause-fm")
	f.Add("a.(*)")
	f.Fuzz(func(t *testing.T, s string) {
		JavaName(s)
	})
}

// TestSource checks that ops point at the app's code.
func TestSource(t *testing.T) {
	r := record(t, runSink, Options{Seed: 1, Actions: 20})
	seen := map[traces.Kind]bool{}
	for _, op := range r.ops {
		src := r.name(op.Src)
		if src == "" {
			continue
		}
		if !strings.HasPrefix(src, "sink_test.go:") {
			t.Fatalf("op %v has src %q, want a line of sink_test.go", op.Kind, src)
		}
		seen[op.Kind] = true
	}
	for _, k := range []traces.Kind{traces.Read, traces.Write, traces.Alloc, traces.Send, traces.Relate, traces.Branch, traces.Lock, traces.Fork} {
		if !seen[k] {
			t.Errorf("no %v op has a source location", k)
		}
	}
}

// TestCheckModelCatches makes sure the model check above can fail.
func TestCheckModelCatches(t *testing.T) {
	type o = traces.Op
	syms := traces.NewSymbols()
	y := syms.Intern
	prologue := []o{
		{Kind: traces.ThreadBegin, Task: y("main"), ThreadKind: traces.Looper},
		{Kind: traces.Attach, Task: y("main"), Queue: y("q")},
	}
	tests := []struct {
		name string
		ops  []o
	}{
		{"fifo", []o{
			{Kind: traces.Send, Task: y("main"), Queue: y("q"), Event: y("E1")},
			{Kind: traces.Send, Task: y("main"), Queue: y("q"), Event: y("E2")},
			{Kind: traces.Begin, Task: y("E2"), Thread: y("main")},
		}},
		{"at front", []o{
			{Kind: traces.Send, Task: y("main"), Queue: y("q"), Event: y("E1")},
			{Kind: traces.Send, Task: y("main"), Queue: y("q"), Event: y("E2"), SendKind: traces.AtFront},
			{Kind: traces.Begin, Task: y("E1"), Thread: y("main")},
		}},
		{"wait before signal", []o{{Kind: traces.Wait, Task: y("main"), Name: y("m1")}}},
		{"join before end", []o{
			{Kind: traces.Fork, Task: y("main"), Thread: y("w")},
			{Kind: traces.ThreadBegin, Task: y("w")},
			{Kind: traces.Join, Task: y("main"), Thread: y("w")},
		}},
		{"worker without fork", []o{{Kind: traces.ThreadBegin, Task: y("w")}}},
	}
	for _, tt := range tests {
		r := &rec{syms: syms, ops: append(slices.Clone(prologue), tt.ops...)}
		if err := checkModel(r); err == nil {
			t.Errorf("%s: checkModel found nothing wrong", tt.name)
		}
	}
}

// TestNoGoroutineLeak checks that a run ends every goroutine it started,
// also after a crash.
func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	for seed := range int64(5) {
		record(t, runSink, Options{Seed: seed, Actions: 20, Shuffle: true})
	}
	record(t, func(rt *Runtime) {
		c := New(rt, &crasher{rt: rt})
		c.lock = NewMutex(c)
		rt.Go("w", func() { rt.Sleep(time.Hour) })
		rt.Main().Post(c.boom)
	}, Options{Seed: 1})
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines before the runs, %d after", before, n)
	}
}

// TestShuffleReorders checks that shuffling swaps two posts that the
// model leaves unordered (from two threads) for some seeds, never swaps
// two posts of one thread, and that unshuffled runs keep their natural
// order.
func TestShuffleReorders(t *testing.T) {
	orders := func(shuffled bool) map[string]int {
		seen := map[string]int{}
		for seed := range int64(40) {
			p := &queueProgram{}
			record(t, func(rt *Runtime) {
				p.rt = rt
				rt.Main().PostDelayed(p.d, time.Hour) // keeps the queue from being empty
				rt.Go("w1", func() { rt.Sleep(10 * time.Millisecond); rt.Main().Post(p.a) })
				rt.Go("w2", func() { rt.Sleep(11 * time.Millisecond); rt.Main().Post(p.b); rt.Main().Post(p.c) })
			}, Options{Seed: seed, Actions: 1, Shuffle: shuffled, Preempt: -1})
			seen[strings.Join(p.log, "")]++
		}
		return seen
	}
	if got := orders(false); len(got) != 1 || got["abc"] != 40 {
		t.Errorf("unshuffled orders %v, want abc only", got)
	}
	got := orders(true)
	if got["bca"] == 0 || got["abc"] == 0 {
		t.Errorf("shuffled orders %v, want both abc and bca", got)
	}
	for o := range got {
		if strings.Index(o, "b") > strings.Index(o, "c") {
			t.Errorf("shuffled order %s puts c, posted after b by the same thread, first", o)
		}
	}
}

// TestCrashInMain checks that a crash in the app's main function ends the
// run cleanly.
func TestCrashInMain(t *testing.T) {
	r := record(t, func(rt *Runtime) {
		c := New(rt, &crasher{rt: rt})
		c.p.Use()
	}, Options{Seed: 1})
	if r.err != nil || r.res.Crash == "" {
		t.Fatalf("err %v, crash %q; want a crash", r.err, r.res.Crash)
	}
	if last := r.ops[len(r.ops)-1]; last.Kind != traces.Ret {
		t.Errorf("last op %v, want the ret of Application.onCreate", last.Kind)
	}
}

// TestFig34de checks thesis Fig. 3.4d/e: an event sent at front by another
// thread is not ordered with an event sent before it unless its send
// precedes the other's begin, and the runtime produces both orders.
func TestFig34de(t *testing.T) {
	seen := map[string]bool{}
	for seed := range int64(30) {
		p := &queueProgram{}
		record(t, func(rt *Runtime) {
			p.rt = rt
			rt.Main().Post(func() { rt.Sleep(time.Duration(rt.Rand().IntN(5000)) * time.Microsecond) })
			rt.Go("w1", func() { rt.Sleep(2 * time.Millisecond); rt.Main().Post(p.a) })
			rt.Go("w2", func() { rt.Sleep(3 * time.Millisecond); rt.Main().PostAtFront(p.b) })
		}, Options{Seed: seed, Actions: 1})
		seen[strings.Join(p.log, "")] = true
	}
	if !seen["ab"] || !seen["ba"] || len(seen) != 2 {
		t.Errorf("orders %v, want ab and ba", seen)
	}
}

// TestDeadlock checks that a program that hangs for good is not taken for
// a correct execution.
func TestDeadlock(t *testing.T) {
	r := record(t, func(rt *Runtime) {
		m := NewMutex(rt)
		c := NewCond(m)
		m.Lock()
		c.Wait() // nobody will ever notify
	}, Options{Seed: 1})
	if r.err != nil || r.res.Crash != "deadlock: thread main waits forever" {
		t.Fatalf("err %v, crash %q; want the deadlock of main", r.err, r.res.Crash)
	}
}

type binderProgram struct {
	Object
	n Int
}

func (p *binderProgram) reply() { p.Runtime().Main().Post(p.show) }
func (p *binderProgram) show()  { p.n.Add(1) }

// TestBinderThreadPreempted checks that a binder thread preempted in its
// first event runs again: it once stayed "waiting for a message" while it
// ran one, so the scheduler never picked it again and the run went on,
// silently, without it.
func TestBinderThreadPreempted(t *testing.T) {
	const actions = 20
	r := record(t, func(rt *Runtime) {
		p := New(rt, &binderProgram{})
		rt.AddActions(Action{Name: "net", Do: func(w *World) { w.Transact(p.reply) }})
	}, Options{Seed: 1, Actions: actions, Preempt: 1})
	if r.err != nil || r.res.Crash != "" {
		t.Fatalf("err %v, crash %q", r.err, r.res.Crash)
	}
	shown := 0
	for _, op := range r.ops {
		if op.Kind == traces.Call && r.name(op.Name) == "BinderProgram.show" {
			shown++
		}
	}
	if r.res.Actions != actions || shown != actions {
		t.Errorf("%d actions, %d replies shown; want %d of each", r.res.Actions, shown, actions)
	}
}

type hangProgram struct {
	Object
	a, b *Mutex
	n    Int
}

func (p *hangProgram) tap() { p.n.Add(1) }

// lockAB and lockBA take two locks in opposite orders.
func (p *hangProgram) lockAB() { p.lockBoth(p.a, p.b) }
func (p *hangProgram) lockBA() { p.lockBoth(p.b, p.a) }

func (p *hangProgram) lockBoth(first, second *Mutex) {
	first.Lock()
	p.Runtime().Sleep(time.Millisecond)
	second.Lock()
	p.n.Add(1)
	second.Unlock()
	first.Unlock()
}

// waitForever blocks the running event on a condition nobody notifies.
func (p *hangProgram) waitForever() {
	c := NewCond(p.a)
	p.a.Lock()
	c.Wait()
}

// TestHangs checks that a run whose app hangs while the world goes on
// (the monkey keeps sending input) is not taken for a correct execution
// but ends with an error that says what is stuck.
func TestHangs(t *testing.T) {
	for _, c := range []struct {
		name string
		main func(p *hangProgram)
		want string // the crash message's start
	}{
		{"lock cycle", func(p *hangProgram) {
			p.Runtime().Go("A", p.lockAB)
			p.Runtime().Go("B", p.lockBA)
		}, "deadlock: thread "},
		{"main looper stuck", func(p *hangProgram) {
			p.Runtime().Main().PostDelayed(p.waitForever, time.Second)
		}, "ANR: event "},
		{"nothing enabled", func(p *hangProgram) {
			p.Runtime().AddActions(Action{Name: "never", Enabled: func() bool { return false }, Do: func(*World) {}})
		}, "app not responding: no monkey action enabled for 1m0s (0 of 50 done)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := record(t, func(rt *Runtime) {
				p := New(rt, &hangProgram{a: NewMutex(rt), b: NewMutex(rt)})
				c.main(p)
				if c.name != "nothing enabled" {
					rt.AddActions(Action{Name: "tap", Do: func(w *World) { w.Post(rt.Main(), p.tap) }})
				}
			}, Options{Seed: 1, Actions: 50})
			if r.err != nil || !strings.HasPrefix(r.res.Crash, c.want) {
				t.Fatalf("err %v, crash %q; want a crash %q...", r.err, r.res.Crash, c.want)
			}
			if last := r.ops[len(r.ops)-1]; last.Kind != traces.Error || r.name(last.Name) != r.res.Crash {
				t.Errorf("last op %v %q, want the error", last.Kind, r.name(last.Name))
			}
			t.Logf("%s (after %d of 50 actions)", r.res.Crash, r.res.Actions)
		})
	}
}

type quitProgram struct {
	Object
	n Int
}

func (p *quitProgram) work() { p.n.Add(1) }

// TestQuitWhileRunning: a looper that takes one of its messages while
// Quit removes the others (Quit lets other tasks run between removes)
// must not make Quit remove what is no longer pending: it once crashed on
// a nil message.
func TestQuitWhileRunning(t *testing.T) {
	for seed := range int64(40) {
		r := record(t, func(rt *Runtime) {
			p := New(rt, &quitProgram{})
			l := rt.StartLooper("worker")
			for range 6 {
				l.Post(p.work)
			}
			l.Quit()
		}, Options{Seed: seed, Preempt: 0.9})
		if r.err != nil || r.res.Crash != "" {
			t.Fatalf("seed %d: err %v, crash %q", seed, r.err, r.res.Crash)
		}
	}
}
