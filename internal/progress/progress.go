// Package progress draws a progress line on a terminal for long runs. On
// anything but a terminal it draws nothing, so piped and redirected output
// stays clean and deterministic.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Bar shows how much of a known (or unknown, total 0) amount of work is
// done. Add may be called from several goroutines.
type Bar struct {
	w     io.Writer
	label string
	unit  string
	total int64
	done  atomic.Int64
	// also counts other work, in alsoUnit (AddAlso), if alsoUnit is set.
	also     atomic.Int64
	alsoUnit string
	start    time.Time
	stop     chan struct{}
	wg       sync.WaitGroup
}

// Option configures a bar.
type Option func(*Bar)

// Also makes the bar show a second count, of work in unit, after its own:
// the ops read while traces are counted, so that a long trace shows
// progress before it is done. AddAlso adds to it.
func Also(unit string) Option { return func(b *Bar) { b.alsoUnit = unit } }

// New starts a bar on w that redraws a few times a second, if w is a
// terminal; otherwise the bar is silent. unit names what is counted
// ("traces", "ops").
func New(w io.Writer, label, unit string, total int64, opts ...Option) *Bar {
	b := &Bar{w: w, label: label, unit: unit, total: total, start: time.Now()}
	for _, o := range opts {
		o(b)
	}
	if !IsTerminal(w) {
		return b
	}
	b.stop = make(chan struct{})
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-b.stop:
				return
			case <-t.C:
				b.draw()
			}
		}
	}()
	return b
}

// Add records n more units done.
func (b *Bar) Add(n int64) { b.done.Add(n) }

// AddAlso records n more units of the second count (Also).
func (b *Bar) AddAlso(n int64) { b.also.Add(n) }

// Done stops the bar and clears its line.
func (b *Bar) Done() {
	if b.stop == nil {
		return
	}
	close(b.stop)
	b.wg.Wait()
	b.stop = nil
	fmt.Fprint(b.w, "\r\033[K")
}

func (b *Bar) draw() {
	fmt.Fprint(b.w, "\r\033[K"+b.line(time.Since(b.start)))
}

// line is what the bar shows after elapsed.
func (b *Bar) line(elapsed time.Duration) string {
	done := b.done.Load()
	var s string
	if b.total > 0 {
		s = fmt.Sprintf("%s %d/%d %s (%d%%)", b.label, done, b.total, b.unit, done*100/b.total)
	} else {
		s = fmt.Sprintf("%s %d %s", b.label, done, b.unit)
	}
	if b.alsoUnit != "" {
		s += ", " + count(b.also.Load()) + " " + b.alsoUnit
	}
	return s + " " + elapsed.Round(time.Second).String()
}

// count writes n shortly: 950, 12.3k, 4.6M.
func count(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}

// IsTerminal reports whether w is a character device such as a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
