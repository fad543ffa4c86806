package nodejs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/licorice-dev/licorice/traces"
)

// converted is what convert learned of a run.
type converted struct {
	ops    int64
	events int
	crash  string // the first error op's message
}

// invalidError is a raw trace that breaks the contract: a recorder bug.
type invalidError struct{ err error }

func (e invalidError) Error() string { return e.err.Error() }
func (e invalidError) Unwrap() error { return e.err }

// mainThread is the id of the recorder's looper thread.
const mainThread = "main"

// convert writes the recorder's raw output as a trace with header h in
// format f: the queues first used inside events are attached after the
// main thread's first attach, every op is validated, and if the run ended
// badly (end, the message of an error op) without an error op of its
// own, one is added to the task that was running. A raw file cut in the
// middle of a line (the program was killed) loses that line.
func convert(ctx context.Context, raw string, w io.Writer, f traces.Format, h *traces.Header, end string) (converted, error) {
	var res converted
	if err := trimPartialLine(raw); err != nil {
		return res, err
	}
	if st, err := os.Stat(raw); err != nil {
		return res, err
	} else if st.Size() == 0 {
		msg := "the recorder wrote nothing: is the command Node.js (`-- node PROGRAM`)?"
		if end != "" {
			msg += " " + end
		}
		return res, errors.New(msg)
	}

	// Pass 1: the queues sent to that no attach op serves. A raw file
	// that does not decode is a recorder bug.
	attached := map[string]bool{}
	var extra []string // by name: pass 2 reads with a symbol table of its own
	r1, err := traces.Open(raw, traces.WithoutValidation())
	if err != nil {
		return res, invalidError{err}
	}
	err = traces.Each(ctx, r1, func(op *traces.Op) error {
		switch op.Kind {
		case traces.Attach:
			attached[r1.Symbols().String(op.Queue)] = true
		case traces.Send:
			if q := r1.Symbols().String(op.Queue); !attached[q] {
				attached[q] = true
				extra = append(extra, q)
			}
		}
		return nil
	})
	r1.Close()
	if err != nil {
		return res, invalidError{err}
	}

	// Pass 2: the trace.
	r, err := traces.Open(raw, traces.WithoutValidation())
	if err != nil {
		return res, err
	}
	defer r.Close()
	syms := r.Symbols()
	tw, err := traces.NewWriter(w, f, h, syms)
	if err != nil {
		return res, err
	}
	v := traces.NewValidator(syms)
	main := syms.Intern(mainThread)
	running := traces.NoSym        // the event the main thread runs
	alive := map[traces.Sym]bool{} // threads begun and not ended
	var lastThread traces.Sym      // the last thread that began
	write := func(op *traces.Op) error {
		if err := v.Check(op, r.Line()); err != nil {
			return invalidError{fmt.Errorf("the recorder wrote an invalid trace: %s:%d: %w", raw, r.Line(), err)}
		}
		res.ops++
		return tw.Write(op)
	}
	inserted := false
	err = traces.Each(ctx, r, func(op *traces.Op) error {
		switch op.Kind {
		case traces.ThreadBegin:
			alive[op.Task] = true
			lastThread = op.Task
		case traces.ThreadEnd:
			delete(alive, op.Task)
		case traces.Begin:
			if op.Thread == main {
				running = op.Task
			}
			res.events++
		case traces.End:
			if op.Task == running {
				running = traces.NoSym
			}
		case traces.Error:
			if res.crash == "" {
				res.crash = syms.String(op.Name)
				if res.crash == "" {
					res.crash = "error"
				}
			}
		}
		if err := write(op); err != nil {
			return err
		}
		if op.Kind == traces.Attach && op.Task == main && !inserted {
			inserted = true
			for _, q := range extra {
				a := traces.Op{Kind: traces.Attach, Task: main, Queue: syms.Intern(q), HasTS: op.HasTS, TS: op.TS}
				if err := write(&a); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	if !inserted && len(extra) > 0 {
		return res, invalidError{fmt.Errorf("the recorder wrote an invalid trace: %s: the main thread attaches no queue", raw)}
	}
	if end != "" && res.crash == "" {
		// The error belongs to what was running: the event, else the
		// exit listeners' thread or main, else a thread of its own.
		var task traces.Sym
		switch {
		case running != traces.NoSym:
			task = running
		case alive[lastThread]:
			task = lastThread
		case alive[main]:
			task = main
		default:
			task = syms.Intern("end")
			b := traces.Op{Kind: traces.ThreadBegin, Task: task}
			if err := write(&b); err != nil {
				return res, err
			}
		}
		e := traces.Op{Kind: traces.Error, Task: task, Name: syms.Intern(end)}
		if err := write(&e); err != nil {
			return res, err
		}
		res.crash = end
	}
	if err := tw.Close(); err != nil {
		return res, err
	}
	return res, nil
}

// trimPartialLine cuts a file after its last newline.
func trimPartialLine(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	const chunk = 1 << 16
	buf := make([]byte, chunk)
	for off := size; off > 0; {
		n := int64(chunk)
		if off < n {
			n = off
		}
		off -= n
		if _, err := f.ReadAt(buf[:n], off); err != nil {
			return err
		}
		for i := n - 1; i >= 0; i-- {
			if buf[i] == '\n' {
				if off+i+1 == size {
					return nil
				}
				return f.Truncate(off + i + 1)
			}
		}
	}
	return f.Truncate(0)
}
