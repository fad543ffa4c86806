package tracetest

import (
	"math"
	"testing"
)

// configFrom makes a Config of any shape from fuzz input: every count and
// weight from one byte (some of them out of range, to test clamping),
// every fraction from one byte over 200 (some above 1).
func configFrom(seed int64, b []byte) Config {
	at := func(i int) int {
		if i < len(b) {
			return int(b[i])
		}
		return 0
	}
	count := func(i int) int { return at(i) - 16 } // negatives too
	frac := func(i int) float64 {
		if at(i) == 255 {
			return math.NaN()
		}
		return float64(at(i)) / 200
	}
	return Config{
		Seed:          seed,
		Events:        at(0) % 80,
		Loopers:       count(1) % 12,
		LooperQueues:  count(2) % 20,
		BinderQueues:  count(3) % 4,
		BinderThreads: count(4) % 6,
		Workers:       count(5) % 8,
		MaxWorkers:    count(6) % 12,
		EventActions:  count(7) % 12,
		WorkerActions: count(8) % 20,
		Mix: Mix{
			Read: count(9), Write: count(10), Alloc: count(11), Guard: count(12), Relate: count(13),
			Call: count(14), Lock: count(15), Send: count(16), Remove: count(17), Signal: count(18),
			Wait: count(19), Fork: count(20), Join: count(21),
		},
		Send: SendMix{
			AtFront: frac(22), AtTime: frac(23), Async: frac(24), ZeroDelay: frac(25),
			MaxDelay: count(26), Burst: count(27) % 8, Barrier: frac(28), Binder: frac(29),
			Self: frac(30), ExternalTask: frac(31),
		},
		Classes:       count(32),
		Objects:       count(33),
		Handlers:      count(34),
		Locks:         count(35) % 8,
		Handles:       count(36),
		OpMicros:      count(37) * 10,
		ExternalEvery: count(38) % 20,
		SleepMillis:   count(39) % 10,
		Timestamps:    frac(40),
		Sources:       frac(41),
		AbsentValues:  frac(42),
		Errors:        at(43)%2 == 1,
	}
}

// FuzzGenerate checks that every Config gives a valid, consistent trace.
func FuzzGenerate(f *testing.F) {
	f.Add(int64(1), []byte{})
	f.Add(int64(2), []byte{60, 18, 18, 17, 18, 18, 20, 20, 24, 20, 20, 17, 17, 17, 17, 17, 22, 18, 18, 18, 17, 17,
		40, 50, 80, 80, 19, 19, 30, 30, 120, 100, 19, 24, 19, 19, 19, 36, 21, 17, 200, 100, 20, 1})
	f.Add(int64(3), []byte{79, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
		255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255})
	f.Add(int64(4), []byte{50, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, seed int64, b []byte) {
		tr := Generate(configFrom(seed, b))
		check(t, tr)
		if err := consistent(tr); err != nil {
			t.Fatal(err)
		}
		Measure(tr.Ops)
	})
}
