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

func (c ctxKey) less(o ctxKey) bool {
	if c.handler != o.handler {
		return c.handler < o.handler
	}
	if c.thread != o.thread {
		return c.thread < o.thread
	}
	return !c.event && o.event
}

// groupKey identifies a group: kind, location name, and the two contexts.
type groupKey struct {
	kind  Kind
	base  traces.Sym // the allocation site, the class, or the object
	how   uint8      // baseClass, baseSite or baseObject
	field traces.Sym
	ctx   [2]ctxKey // in ctxKey order
}

const (
	baseClass uint8 = iota
	baseSite
	baseObject
)

// groupAcc is a group being filled.
type groupAcc struct {
	key      groupKey
	count    int
	inThread int
	races    []*found // the first PerGroup races (all with PerGroup 0)
}

func (d *Detector) ctxOf(a *access) ctxKey {
	if a.handler != traces.NoSym {
		return ctxKey{handler: a.handler}
	}
	return ctxKey{thread: d.threadLabel(a.thread), event: a.flags&fEvent != 0}
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

func (d *Detector) groupKey(f *found) groupKey {
	k := groupKey{kind: f.kind, base: f.loc.Obj, field: f.loc.Field, how: baseClass}
	if !f.loc.Static {
		k.how = baseObject
		if o := int(f.loc.Obj); o < len(d.site) && d.site[o] != traces.NoSym {
			k.base, k.how = d.site[o], baseSite
		}
	}
	c1, c2 := d.ctxOf(&f.first), d.ctxOf(&f.second)
	if c2.less(c1) {
		c1, c2 = c2, c1
	}
	k.ctx = [2]ctxKey{c1, c2}
	return k
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
	key := d.groupKey(f)
	packed := d.groups.pack(&key)
	slot, ok := d.groups.slots[packed]
	if !ok {
		slot = d.newGroup(&key, f, ks)
		d.groups.slots[packed] = slot
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
func (d *Detector) newGroup(key *groupKey, f *found, ks *KindSummary) int32 {
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
	d.order = append(d.order, &groupAcc{key: *key})
	return int32(len(d.order) - 1)
}

// sameLooper reports whether both accesses of f are by events of one
// looper thread: CAFA's filters apply to them.
func (d *Detector) sameLooper(f *found) bool {
	return oneLooper(&f.first, &f.second)
}
