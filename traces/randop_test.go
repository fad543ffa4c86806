package traces

import (
	"math"
	"math/rand/v2"
	"strings"
)

// randOps generates n random ops whose fields are each valid (so every
// form can write them) but which together make no sense as a trace: the
// codecs do not care, and random field combinations exercise every branch
// of every encoder and decoder.
type randOps struct {
	rng  *rand.Rand
	syms *Symbols
	ids  []Sym // a pool of ids, so that ops repeat them as real traces do
}

func newRandOps(seed uint64, syms *Symbols) *randOps {
	g := &randOps{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), syms: syms}
	for range 40 {
		g.ids = append(g.ids, syms.Intern(g.str()))
	}
	return g
}

// strs are strings chosen to exercise escaping: quotes, backslashes,
// control characters, multi-byte UTF-8, U+2028, U+FFFD, and ordinary ids.
var strs = []string{
	"T1", "main", "E5", "q", "o17", "dataHub", "[3]", "db:Users", "2",
	"TrackDetailActivity.java:233", "MyTracks.onCreate:120",
	`quote " inside`, `back\slash`, "tab\there", "new\nline", "cr\rret",
	"\b\f\x00\x01\x1f\x7f", "ünïcödé", "日本語", "emoji 😀", "\u2028\u2029",
	"\uFFFD", "</script>", "a/b", " ", "{}", `{"ref":"x"}`,
}

func (g *randOps) str() string {
	switch g.rng.IntN(8) {
	case 0: // random printable and not
		b := make([]byte, g.rng.IntN(12)+1)
		for i := range b {
			b[i] = byte(g.rng.IntN(0x80))
		}
		return string(b)
	case 1:
		return strings.Repeat("x", g.rng.IntN(300)+1)
	}
	return strs[g.rng.IntN(len(strs))]
}

func (g *randOps) id() Sym {
	if g.rng.IntN(10) == 0 {
		return g.syms.Intern(g.str())
	}
	return g.ids[g.rng.IntN(len(g.ids))]
}

// text is an optional string: often absent.
func (g *randOps) text() Sym {
	if g.rng.IntN(2) == 0 {
		return NoSym
	}
	return g.id()
}

func (g *randOps) bool() bool { return g.rng.IntN(2) == 0 }

func (g *randOps) int() int64 {
	switch g.rng.IntN(6) {
	case 0:
		return math.MaxInt64
	case 1:
		return math.MinInt64
	case 2:
		return 0
	case 3:
		return int64(g.rng.Uint64())
	}
	return g.rng.Int64N(2000) - 1000
}

// float returns floats of every kind a decoder must keep exactly.
func (g *randOps) float() float64 {
	special := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1.5, 1e21, 1e20, 1e-7, 1e-6,
		123456.789, math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64,
		1 << 53, 1<<53 + 2, 0.30000000000000004, 1e300, 2.5e-300}
	switch g.rng.IntN(4) {
	case 0:
		return special[g.rng.IntN(len(special))]
	case 1:
		for {
			f := math.Float64frombits(g.rng.Uint64())
			if finite(f) {
				return f
			}
		}
	case 2:
		return float64(g.rng.Int64N(1e12)) / 1000
	}
	return float64(g.rng.Int64N(1e6))
}

// ts is a wall-clock time: mostly increasing milliseconds, sometimes
// fractions, sometimes any float.
func (g *randOps) ts(prev *float64) float64 {
	switch g.rng.IntN(10) {
	case 0:
		return g.float()
	case 1, 2:
		*prev += float64(g.rng.IntN(5000)) / 1000
	default:
		*prev += float64(g.rng.IntN(20))
	}
	return *prev
}

func (g *randOps) value() Value {
	switch g.rng.IntN(8) {
	case 0:
		return Value{}
	case 1:
		return Null()
	case 2:
		return Ref(g.id())
	case 3:
		return Int(g.int())
	case 4:
		return Float(g.float())
	case 5:
		return Bool(g.bool())
	case 6:
		return String(NoSym) // the empty string
	}
	return String(g.id())
}

func (g *randOps) loc() Location { return Location{Obj: g.id(), Field: g.id(), Static: g.bool()} }

// op fills op with a random valid op. It also sets, at random, fields the
// kind does not have: writers must ignore them.
func (g *randOps) op(op *Op, ts *float64) {
	*op = Op{}
	if g.rng.IntN(8) == 0 {
		*op = Op{Thread: g.id(), Queue: g.id(), Name: g.id(), Loc2: g.loc(), Deref: true, Time: 5, PC: 3, Via: ViaCmp}
	}
	op.Kind = Kind(g.rng.IntN(NumKinds-1) + 1)
	op.Task = g.id()
	if g.rng.IntN(3) > 0 {
		op.HasTS, op.TS = true, g.ts(ts)
	}
	op.Src = g.text()
	switch op.Kind {
	case ThreadBegin:
		op.ThreadKind = ThreadKind(g.rng.IntN(3))
		op.Name = g.text()
	case Fork, Join, Begin:
		op.Thread = g.id()
	case Attach:
		op.Queue = g.id()
	case Send:
		op.Queue, op.Event = g.id(), g.id()
		op.SendKind = SendKind(g.rng.IntN(3))
		if op.SendKind != AtFront || g.bool() { // at_front ignores Time
			op.Time = g.rng.Int64N(100)
			if g.rng.IntN(10) == 0 {
				op.Time = math.MaxInt64
			}
		}
		op.Async, op.External = g.bool(), g.bool()
		if op.External && g.bool() {
			op.Task = NoSym
		}
	case Remove:
		op.Event = g.id()
	case Signal, Wait, Lock, Unlock, Call, Ret:
		op.Name = g.id()
	case Error:
		op.Name = g.text()
	case Alloc:
		op.Loc = Location{Obj: g.id()}
		op.Site, op.Type = g.text(), g.text()
	case Read, Write:
		op.Loc, op.Val = g.loc(), g.value()
		op.Deref, op.Init, op.Update = g.bool(), g.bool(), g.bool() // each only where the kind has it
	case Relate:
		op.Loc, op.Loc2 = g.loc(), g.loc()
		op.Via = RelateVia(g.rng.IntN(2) + 1)
	case Branch:
		op.Loc = g.loc()
		op.Cond = BranchCond(g.rng.IntN(4) + 1)
		op.Taken = g.bool()
		op.PC, op.Target = g.int(), g.int()
	}
}

// header returns a random header with extra keys of every JSON kind.
func (g *randOps) header() Header {
	h := Header{Version: Version}
	if g.bool() {
		h.Platform, h.App, h.Run = "android", g.str(), "train-07"
	}
	h.Shuffled = g.bool()
	if g.bool() {
		h.Seed, h.HasSeed = g.int(), true
	}
	if g.bool() {
		h.Extra = []ExtraField{
			{Key: "zeta", JSON: `{"a":[1,2.5,-0.0,"x\u00e9"],"b":null}`},
			{Key: "alpha", JSON: `true`},
			{Key: "s", JSON: `"tab\there"`},
		}
	}
	return h
}
