package asyncclock

import (
	"os"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/licorice-dev/licorice/traces"
	"github.com/licorice-dev/licorice/traces/tracetest"
)

func TestDbgStream(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("N"))
	if n == 0 {
		t.Skip()
	}
	cfg := tracetest.Android(n, 1)
	if os.Getenv("REAL") != "" {
		cfg.OpMicros = 200
		cfg.Mix.Fork, cfg.Mix.Join = 0, 0
		cfg.WorkerActions = 1 << 16
	}
	if os.Getenv("APP") != "" {
		cfg.OpMicros = 200
		cfg.Mix.Fork, cfg.Mix.Join = 0, 0
		cfg.WorkerActions = 1 << 16
		cfg.Send.ZeroDelay = 0.9
		cfg.Send.Binder = 0.03
		cfg.Send.Self = 0.8
	}
	g := tracetest.NewGenerator(cfg)
	e := New(g.Symbols(), Config{Window: DefaultWindow})
	var op traces.Op
	start := time.Now()
	var peak uint64
	i := 0
	var gen time.Duration
	for {
		t0 := time.Now()
		ok := g.Next(&op)
		gen += time.Since(t0)
		if !ok {
			break
		}
		i++
		if err := e.Step(&op, i+1); err != nil {
			t.Fatal(err)
		}
		if i%1000000 == 0 {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			t.Logf("%d ops %v heap %dMB %+v", i, time.Since(start), ms.HeapInuse>>20, e.Stats())
		}
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	t.Logf("n=%d ops=%d total %v cpu %v (generator ~%v) peak heap %dMB stats %+v", n, i, time.Since(start), time.Duration(ru.Utime.Nano()+ru.Stime.Nano()), gen, peak>>20, e.Stats())
}

func TestDbgWalk(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("N"))
	if n == 0 {
		t.Skip()
	}
	cfg := tracetest.Android(n, 1)
	cfg.OpMicros = 200
	cfg.Mix.Fork, cfg.Mix.Join = 0, 0
	cfg.WorkerActions = 1 << 16
	g := tracetest.NewGenerator(cfg)
	e := New(g.Symbols(), Config{Window: DefaultWindow})
	var op traces.Op
	i := 0
	nl, vis, begins := 0, 0, 0
	steps0 := int64(0)
	hist := map[int]int{}
	for g.Next(&op) {
		i++
		if op.Kind == traces.Begin && i > 1000000 {
			ev := e.events[op.Task]
			if !ev.q.binder {
				nl += len(ev.q.heads)
				st, _ := e.TaskTime(ev.id)
				_ = st
				for _, h := range ev.q.heads {
					l := h.l
					if len(l.entries) > 0 && ev.send.Get(l.chain) >= l.entries[0].clock {
						vis++
					}
				}
				pj := e.stats.PredsJoined
				defer func() { _ = pj }()
				begins++
				steps0 = e.stats.WalkSteps
			}
		}
		if err := e.Step(&op, i+1); err != nil {
			t.Fatal(err)
		}
		if op.Kind == traces.Begin && i > 1000000 {
			ev := e.events[op.Task]
			if ev != nil && !ev.q.binder {
				d := int(e.stats.WalkSteps - steps0)
				b := 1
				for b < d {
					b *= 2
				}
				hist[b]++
			}
		}
	}
	t.Logf("lists/queue %.1f visited %.1f; steps per begin histogram %v", float64(nl)/float64(begins), float64(vis)/float64(begins), hist)
	cats := map[cat]int{}
	for _, l := range e.lists {
		for _, x := range l.entries {
			cats[x.cat]++
		}
	}
	t.Logf("entries by category %v", cats)
}

func TestDbgReasons2(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("N"))
	if n == 0 {
		t.Skip()
	}
	cfg := tracetest.Android(n, 1)
	cfg.OpMicros = 200
	cfg.Mix.Fork, cfg.Mix.Join = 0, 0
	cfg.WorkerActions = 1 << 16
	cfg.Send.ZeroDelay = 0.9
	cfg.Send.Binder = 0.03
	cfg.Send.Self = 0.8
	g := tracetest.NewGenerator(cfg)
	e := New(g.Symbols(), Config{Window: DefaultWindow})
	var op traces.Op
	i := 0
	reasons := map[string]int{}
	for g.Next(&op) {
		i++
		if op.Kind == traces.Begin && i > 500000 {
			ev := e.events[op.Task]
			if !ev.q.binder {
				b := e.builder()
				th := e.threads[op.Thread]
				b.start(ev.send)
				b.learn(th.own.st)
				b.learn(th.tc)
				for _, h := range ev.q.heads {
					v := ev.send.Get(h.chain)
					switch {
					case h.first == 0 || v < h.first:
						reasons["unknown"]++
					case h.settled == 0:
						reasons["none settled"]++
					case v < h.settled:
						reasons["v<settled"]++
					case h.end == 0:
						reasons["settled removed"]++
					case !priority(h.cat, h.time, ev.cat, ev.time):
						reasons["settled not pred"]++
					case !b.covers(h.end):
						reasons["settled end unknown"]++
					case !(h.time >= ev.time || h.maxTime <= h.time):
						reasons["not dominating"]++
					default:
						reasons["ok"]++
					}
				}
				e.putBuilder(b)
			}
		}
		if err := e.Step(&op, i+1); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%v", reasons)
}

func TestDbgWidth(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("N"))
	if n == 0 {
		t.Skip()
	}
	cfg := tracetest.Android(n, 1)
	cfg.OpMicros = 200
	cfg.Mix.Fork, cfg.Mix.Join = 0, 0
	cfg.WorkerActions = 1 << 16
	cfg.Send.ZeroDelay = 0.9
	cfg.Send.Binder = 0.03
	cfg.Send.Self = 0.8
	if v, _ := strconv.Atoi(os.Getenv("SEND")); v > 0 {
		cfg.Mix.Send = v
	}
	if v, _ := strconv.Atoi(os.Getenv("BURST")); v > 0 {
		cfg.Send.Burst = v
	}
	g := tracetest.NewGenerator(cfg)
	e := New(g.Symbols(), Config{Window: DefaultWindow})
	var op traces.Op
	i := 0
	for g.Next(&op) {
		i++
		if err := e.Step(&op, i+1); err != nil {
			t.Fatal(err)
		}
		if i%300000 == 0 {
			owners := map[string]int{}
			active := map[string]int{}
			for _, c := range e.chains[1:] {
				name := "nil"
				if c.owner != nil {
					name = e.name(c.owner.id)
				}
				if c.own {
					name = "own"
				}
				owners[name]++
				if c.tail != nil && !c.tail.absorbed {
					active[name]++
				}
			}
			pend := 0
			for _, q := range e.queues {
				pend += len(q.pending)
			}
			t.Logf("op %d: chains by owner %v; with tail not absorbed %v; pending %d", i, owners, active, pend)
		}
	}
}
