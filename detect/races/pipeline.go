package races

import (
	"github.com/licorice-dev/licorice/traces"
)

// A race goes, as soon as it is found, through CAFA's filters (use-free
// races between events of one looper), then into its group, where the
// harmless filter decides for the whole group (its rules only look at what
// the group's key holds) and the first Config.PerGroup races are kept for
// the report. So memory holds the groups and a few races each, not every
// race of a racy trace.

// ctxKey is the context of an access, as groups name it: its handler, or
// else its thread's name and whether an event made it.
type ctxKey struct {
	handler traces.Sym
	thread  traces.Sym
	event   bool
}

// groupAcc is a group being filled.
type groupAcc struct {
	kind     Kind
	count    int
	inThread int
	races    []*found // the first PerGroup races (all with PerGroup 0)
}

// ctxOf returns the number of task t's context in its current handler
// invocation: its handler, or its thread's label and whether it is an
// event. It is computed once per invocation.
func (d *Detector) ctxOf(t *task) uint32 {
	if t.ctx != 0 {
		return t.ctx - 1
	}
	k := ctxKey{handler: t.handler()}
	if k.handler == traces.NoSym {
		k = ctxKey{thread: d.threadLabel(t.thread), event: t.event}
	}
	n := number(d.groups.ctxs, k)
	t.ctx = n + 1
	return n
}

// glocOf returns the number of the group location of loc, whose shadow
// is li: its allocation site (or its object, never seen allocated, or its
// class) and field. It is computed once per shadow, and again after an
// allocation of the object (see alloc).
func (d *Detector) glocOf(li uint32, loc traces.Location) uint32 {
	l := &d.locs[li]
	if l.gloc != 0 {
		return l.gloc - 1
	}
	k := groupLoc{base: loc.Obj, field: loc.Field, how: baseClass}
	if !loc.Static {
		k.how = baseObject
		if o := int(loc.Obj); o < len(d.site) && d.site[o] != traces.NoSym {
			k.base, k.how = d.site[o], baseSite
		}
	}
	n := number(d.groups.locs, k)
	l.gloc = n + 1
	return n
}

// threadLabel names thread th for groups, independently of the execution:
// its name (or id), with every run of digits replaced by *, as thread
// names count instances ("AsyncTask #12", "Binder:0_3", "pool-2-thread-1").
func (d *Detector) threadLabel(th traces.Sym) traces.Sym {
	if l, ok := d.labels[th]; ok {
		return l
	}
	name := th
	if info, ok := d.threads[th]; ok && info.name != traces.NoSym {
		name = info.name
	}
	b := threadPattern(d.syms.String(name))
	l := d.syms.Intern(b)
	d.labels[th] = l
	return l
}

// process files a race just found.
func (d *Detector) process(f *found) {
	ks := &d.kinds[f.kind]
	ks.Found++
	in := d.sameLooper(f)
	if f.kind == UseFree && in && !d.cfg.Unfiltered {
		use, free := &f.first, &f.second
		if use.write {
			use, free = free, use
		}
		switch {
		case use.flags&fGuarded != 0:
			ks.IfGuard++
			return
		case use.flags&fAllocated != 0 || d.realloc[free.line]:
			ks.IntraAlloc++
			return
		}
	}
	gs := d.groups
	w := gs.word(f.kind, f.gloc, f.first.ctx, f.second.ctx)
	slot := int32(slotCounted)
	if i, ok := gs.words.find(w); !ok {
		slot = d.newGroup(f, ks)
		if slot != slotCounted {
			gs.slots[w] = slot
			gs.words.add(i, w|wordSlotted)
		} else {
			gs.words.add(i, w)
		}
	} else if gs.words.table[i]&wordSlotted != 0 {
		slot = gs.slots[w]
	}
	if slot <= slotHarmless {
		rule := slotHarmless - slot
		ks.Harmless++
		d.hits[rule]++
		return
	}
	ks.Races++
	if in {
		ks.InThread++
	}
	if slot == slotCounted {
		return
	}
	g := d.order[slot]
	g.count++
	if in {
		g.inThread++
	}
	if d.cfg.PerGroup == 0 || len(g.races) < d.cfg.PerGroup {
		l := &d.listed[f.kind]
		r := &found{kind: f.kind, loc: f.loc, first: f.first, second: f.second}
		r.cover = l.cover(d, f)
		l.add(r)
		g.races = append(g.races, r)
	}
}

// newGroup files the group of race f, found for the first time, and
// returns its slot: a harmless rule's, counted only, or listed (with a
// groupAcc) while the kind has fewer than Config.Groups listed groups and
// races are listed at all.
func (d *Detector) newGroup(f *found, ks *KindSummary) int32 {
	if d.cfg.Harmless != nil {
		if rule := d.cfg.Harmless.match(d.reportRace(f)); rule >= 0 {
			return slotHarmless - int32(rule)
		}
	}
	ks.Groups++
	if d.cfg.PerGroup < 0 || d.cfg.Groups > 0 && ks.ListedGroups >= d.cfg.Groups {
		return slotCounted
	}
	ks.ListedGroups++
	d.order = append(d.order, &groupAcc{kind: f.kind})
	return int32(len(d.order) - 1)
}

// sameLooper reports whether both accesses of f are by events of one
// looper thread: CAFA's filters apply to them.
func (d *Detector) sameLooper(f *found) bool {
	return oneLooper(&f.first, &f.second)
}
