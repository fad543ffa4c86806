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
	start time.Time
	stop  chan struct{}
	wg    sync.WaitGroup
}

// New starts a bar on w that redraws a few times a second, if w is a
// terminal; otherwise the bar is silent. unit names what is counted
// ("traces", "ops").
func New(w io.Writer, label, unit string, total int64) *Bar {
	b := &Bar{w: w, label: label, unit: unit, total: total, start: time.Now()}
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
	done := b.done.Load()
	elapsed := time.Since(b.start).Round(time.Second)
	if b.total > 0 {
		fmt.Fprintf(b.w, "\r\033[K%s %d/%d %s (%d%%) %s", b.label, done, b.total, b.unit, done*100/b.total, elapsed)
		return
	}
	fmt.Fprintf(b.w, "\r\033[K%s %d %s %s", b.label, done, b.unit, elapsed)
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
