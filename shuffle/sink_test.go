package shuffle

import "time"

// The sink's code is the subject of testdata/sink.golden.jsonl, source
// lines included: editing this file changes the golden trace.

// sink is a program that uses every feature of the runtime: loopers,
// workers, delays, at-time and at-front posts, async messages, barriers,
// removal, locks, wait/notify, handles, system calls, an activity, and
// monkey input.
type sink struct {
	Object
	rt     *Runtime
	bg     *Looper
	lock   *Mutex
	cond   *Cond
	listen *Handle
	pend   *Message

	count Int
	ready Bool
	name  String
	ratio Float
	peer  Ptr[sink]
	items *Array[int64]
	refs  *PtrArray[sink]
	cache *Map[string]
}

func runSink(rt *Runtime) {
	s := New(rt, &sink{rt: rt})
	s.lock = NewMutex(s)
	s.cond = NewCond(s.lock)
	s.items = NewArray[int64](s, 4)
	s.refs = NewPtrArray[sink](s, 2)
	s.cache = NewMap[string](s)
	s.listen = rt.NewHandle()
	s.listen.Signal()
	s.bg = rt.StartLooper("bg")
	consumer := rt.Go("consumer", s.consume)
	rt.Go("producer", s.produce)
	s.pend = rt.Main().PostDelayed(s.tick, 50*time.Millisecond)
	rt.StartActivity(func() any { return s })
	rt.AddActions(
		Action{Name: "tap", Weight: 3, Do: func(w *World) { w.Post(rt.Main(), s.tap) }},
		Action{Name: "net", Weight: 2, Do: func(w *World) { w.Transact(s.reply) }},
		Action{Name: "front", Weight: 1, Do: func(w *World) { w.Post(s.bg, s.front) }},
	)
	_ = consumer
	s.everything()
}

// statics is a class's static fields.
type statics struct {
	lang  String
	count Int
	on    Bool
	ratio Float
	next  Ptr[sink]
}

// everything calls every helper once, so that tests see each op's source.
func (s *sink) everything() {
	st := Static(s, "Config", &statics{})
	st.lang.Set("en")
	st.lang.Equal(&s.name)
	st.count.Add(1)
	st.on.Test()
	st.ratio.Get()
	st.next.Get()
	s.count.Compare(&s.count)
	s.count.Equal(&s.count)
	s.count.Minus(&s.count)
	s.count.Plus(&s.count)
	s.ratio.Less(&s.ratio)
	s.ratio.Minus(&s.ratio)
	s.ready.Get()
	s.ready.Test()
	s.peer.IsNull()
	s.peer.Set(s)
	s.peer.Get()
	s.items.Get(0)
	s.refs.Set(1, s)
	s.refs.Use(1)
	s.cache.Get("k")
	s.cache.Delete("k")
	Table[int64](s, "Rows").Put("1", 1)
	s.cond.Broadcast()
	th := s.rt.Go("short", func() { s.count.Get() })
	th.Join()
	l := s.rt.StartLooper("short-lived")
	l.PostDelayed(s.paint, time.Hour)
	l.Quit()
	s.peer.Set(nil)
}

func (s *sink) OnResume() { s.ready.Set(true); s.rt.CallSystem(3*time.Millisecond, s.connected) }
func (s *sink) OnPause()  { s.ready.Set(false) }

func (s *sink) connected() { s.rt.Main().Post(s.tap) }

func (s *sink) tap() {
	s.count.Add(1)
	s.name.Set("tap")
	s.items.Set(int(s.count.Get()%4), s.count.Get())
	if s.peer.NotNull() {
		s.peer.Use().count.Get()
	}
	s.bg.Post(s.work)
	s.bg.PostDelayed(s.work, 2*time.Millisecond)
	s.bg.PostAtTime(s.work, s.rt.Now()+3*time.Millisecond)
	s.rt.Main().PostAsync(s.paint, time.Millisecond)
	s.rt.Call(s.paint)
}

func (s *sink) work() {
	s.lock.Lock()
	s.ready.Get()
	s.cond.Signal()
	s.lock.Unlock()
	s.rt.Sleep(time.Millisecond)
	s.cache.Put("k", "v")
	s.rt.Main().Post(s.paint)
}

func (s *sink) front() {
	s.bg.Post(s.work)
	s.bg.PostAtFront(s.work)
	tok := s.bg.PostSyncBarrier()
	s.bg.PostAsync(s.work, 0)
	s.bg.RemoveSyncBarrier(tok)
}

func (s *sink) paint() {
	s.count.Less(&s.count)
	s.ratio.Set(s.ratio.Plus(&s.ratio) + 0.5)
	s.refs.Set(0, s)
	s.refs.Get(1)
}

func (s *sink) tick() {
	s.pend.Remove()
	s.pend = s.rt.Main().PostDelayed(s.tick, 50*time.Millisecond)
	if s.rt.Rand().IntN(2) == 0 {
		s.pend.Remove()
		s.pend = s.rt.Main().PostDelayed(s.tick, 40*time.Millisecond)
	}
}

func (s *sink) reply() {
	s.listen.Wait()
	s.rt.Main().Post(s.tap)
	s.bg.Post(s.work)
}

func (s *sink) produce() {
	for i := 0; i < 20; i++ {
		s.rt.Sleep(30 * time.Millisecond)
		s.bg.Post(s.work)
		s.bg.Post(s.paint)
		s.rt.Main().Post(s.paint)
	}
}

func (s *sink) consume() {
	s.lock.Lock()
	for i := 0; i < 5; i++ {
		s.cond.Wait()
	}
	s.lock.Unlock()
}
