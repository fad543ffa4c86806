package heapprof

import (
	"bytes"
	"compress/gzip"
	"io"
	"runtime"
	"testing"
	"time"
)

// TestPeakKeptAfterFree checks that the profile Stop returns is the one
// of the largest live heap, taken while a large block was held, and not
// one taken at the end, when it has been freed.
func TestPeakKeptAfterFree(t *testing.T) {
	p := Watch()
	const size = 64 << 20
	big := make([]byte, size)
	for i := range big {
		big[i] = byte(i)
	}
	for start := time.Now(); p.best.Load() < size; {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("no profile taken while %d bytes were live (the largest seen: %d)", size, p.best.Load())
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	runtime.KeepAlive(big)
	big = nil
	runtime.GC()
	runtime.GC()
	prof, live := p.Stop()
	if live < size {
		t.Errorf("Stop says the largest heap in use was %d bytes, want at least %d", live, size)
	}
	zr, err := gzip.NewReader(bytes.NewReader(prof))
	if err != nil {
		t.Fatalf("the profile is not a gzipped pprof profile: %v", err)
	}
	if data, err := io.ReadAll(zr); err != nil || len(data) == 0 {
		t.Errorf("the profile does not unzip: %d bytes, %v", len(data), err)
	}
	if again, live2 := p.Stop(); !bytes.Equal(again, prof) || live2 != live {
		t.Error("a second Stop returns another profile")
	}
}

// TestInUseScales checks the estimate against pprof's scaling: a record
// of small objects, sampled rarely, counts for far more than its bytes;
// one of objects larger than the rate for about its bytes.
func TestInUseScales(t *testing.T) {
	const rate = 512 << 10
	small := runtime.MemProfileRecord{AllocBytes: 64 * 10, AllocObjects: 10}
	large := runtime.MemProfileRecord{AllocBytes: 8 * rate, AllocObjects: 1}
	if got := inUse([]runtime.MemProfileRecord{small}, rate); got < 64*10*1000 {
		t.Errorf("10 sampled 64-byte objects in use: %d bytes, want about 5 MB (one in 8192 sampled)", got)
	}
	if got := inUse([]runtime.MemProfileRecord{large}, rate); got < 8*rate || got > 8*rate+8*rate/1000 {
		t.Errorf("one object of %d bytes in use: %d bytes", 8*rate, got)
	}
	if got := inUse([]runtime.MemProfileRecord{small}, 1); got != 640 {
		t.Errorf("every allocation sampled: %d bytes, want 640", got)
	}
}

// TestStopAlwaysHasAProfile: a watch too short for any collection still
// gives a profile, of what the heap holds as it stops.
func TestStopAlwaysHasAProfile(t *testing.T) {
	if prof, _ := Watch().Stop(); len(prof) == 0 {
		t.Error("Stop gave no profile")
	}
}
