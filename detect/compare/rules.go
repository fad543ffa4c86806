package compare

import (
	"context"
	"strconv"
	"strings"

	"github.com/licorice-dev/licorice/traces"
	"github.com/licorice-dev/licorice/traces/droidracer"
)

// A variant is licorice's model with rules of DroidRacer's it lacks: the
// activity lifecycle (an import option), the unlock→lock order (added to
// the trace). A location only licorice reports is attributed to the first
// variant, in this order, under which licorice no longer reports it.
type variant struct {
	reason    Reason
	lifecycle bool
	lockOrder bool
}

var variants = []variant{
	{Lifecycle, true, false},
	{LockOrder, false, true},
	{LifecycleLockOrder, true, true},
}

// attribute gives each location only licorice reports its reason: a
// database (which DroidRacer does not report), or the rule of DroidRacer's
// that orders it, with the chain that rule completes; base is the trace
// compared.
func attribute(ctx context.Context, l *droidracer.Log, cfg Config, base *trace, locs []*Location) error {
	var open []*Location
	for _, loc := range locs {
		switch {
		case loc.Verdict != LicoriceOnly:
		case strings.HasPrefix(loc.Key.Object, "db:"):
			loc.Reason = Database
		default:
			loc.Reason = Unexplained
			open = append(open, loc)
		}
	}
	for _, v := range variants {
		if len(open) == 0 {
			break
		}
		if v.lifecycle && cfg.Import.Lifecycle && v.reason == Lifecycle {
			continue // compared with the lifecycle orders already
		}
		t := base
		if v.lifecycle && !cfg.Import.Lifecycle {
			opts := cfg.Import
			opts.Lifecycle = true
			var err error
			if t, err = importTrace(ctx, l, cfg.App, opts); err != nil {
				return err
			}
		}
		var add *additions
		if v.lockOrder {
			add = lockOrder(t)
		}
		rep, err := t.detect(ctx, add)
		if err != nil {
			return err
		}
		racy := map[Key]bool{}
		for _, g := range rep.Groups {
			for _, r := range g.Races {
				racy[keyOf(r.Location.Object, r.Location.Field, r.Location.Static)] = true
			}
		}
		var gone []*Location
		var pairs []*Pair
		n := 0
		for _, loc := range open {
			if racy[loc.Key] {
				open[n] = loc
				n++
				continue
			}
			loc.Reason = v.reason
			gone = append(gone, loc)
			pairs = append(pairs, t.pair(t.access[loc.Example.First.src()], t.access[loc.Example.Second.src()]))
		}
		open = open[:n]
		if len(gone) == 0 {
			continue
		}
		g, err := t.graph(ctx, pairs, add)
		if err != nil {
			return err
		}
		for k, loc := range gone {
			if a, b := g.node[pairs[k].First.op], g.node[pairs[k].Second.op]; g.Before(a, b) {
				loc.RuleChain = g.chain(a, b, 0)
			}
		}
	}
	return nil
}

// lockOrder is DroidRacer's rule UNLOCK ≺ the next LOCK of the same lock
// by another thread (processLockOperation in abc.cpp), which licorice
// deliberately lacks (docs/causality.md: locks give mutual exclusion,
// never order): after each unlock a signal, and before each lock a wait
// for the last unlock of its lock by another thread. Threads are
// DroidRacer's: an event is its looper's.
//
// It orders more than DroidRacer does: DroidRacer's transitivity does not
// carry an order from one message of a looper through other threads into
// the middle of another message of the same looper (its conditional
// transitivity, there to keep lock orders from ordering one thread's
// messages), and licorice's does. On Adobe Reader it orders 19 witnesses
// DroidRacer reports; docs/droidracer.md says which.
func lockOrder(t *trace) *additions {
	add := &additions{before: map[int][]traces.Op{}, after: map[int][]traces.Op{}}
	type unlock struct {
		thread, handle traces.Sym
	}
	last := map[traces.Sym]unlock{} // lock -> its last unlock
	for i := range t.ops {
		op := &t.ops[i]
		switch op.Kind {
		case traces.Lock:
			if u, ok := last[op.Name]; ok && u.thread != t.threads[i] {
				add.before[i] = append(add.before[i], traces.Op{Kind: traces.Wait, Task: op.Task, Name: u.handle, Src: op.Src})
			}
		case traces.Unlock:
			h := t.syms.Intern("droidracer-unlock@" + strconv.Itoa(t.lines[i]))
			add.after[i] = append(add.after[i], traces.Op{Kind: traces.Signal, Task: op.Task, Name: h, Src: op.Src})
			last[op.Name] = unlock{t.threads[i], h}
		}
	}
	return add
}
