package traces

import (
	"context"
	"fmt"
	"io"
)

// ctxCheckEvery is how many ops the loops below read between looks at
// their context.
const ctxCheckEvery = 1 << 12

// Each calls visit with every op of r, in order, until r's end (it then
// returns nil), the first error of r or of visit (returned as it is), or
// until ctx is done (ctx's error). op is reused: it is valid only during
// the call.
func Each(ctx context.Context, r *Reader, visit func(op *Op) error) error {
	var op Op
	for n := 0; ; n++ {
		if n%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := r.Next(&op); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		if err := visit(&op); err != nil {
			return err
		}
	}
}

// Copy writes every op of r to w and returns how many it copied. It stops
// at the first error of either, or when ctx is done. w must intern into
// r.Symbols(). Copy does not close w.
func Copy(ctx context.Context, w *Writer, r *Reader) (int, error) {
	n := 0
	err := Each(ctx, r, func(op *Op) error {
		if err := w.Write(op); err != nil {
			return withFile(r.Name(), lineOf(err, r.Line()))
		}
		n++
		return nil
	})
	return n, err
}

// lineOf gives a writer's error about one op the line it came from.
func lineOf(err error, line int) error {
	if le, ok := err.(*LineError); ok && le.Line == 0 {
		le.Line = line
	}
	return err
}

// ValidateAll reads r to its end and calls report with every error it
// finds, in trace order: syntax and field errors of the decoder and the
// broken rules of the [Validator] (r must validate; it does unless opened
// [WithoutValidation]). After a fatal error, or after max errors (if max >
// 0), it stops. It returns the number of errors reported, and a non-nil
// error only if it stopped before the end: an error wrapping
// [ErrTooManyErrors], or ctx's error.
func ValidateAll(ctx context.Context, r *Reader, max int, report func(error)) (int, error) {
	var op Op
	n := 0
	for i := 0; ; i++ {
		if i%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return n, err
			}
		}
		err := r.Next(&op)
		if err == nil {
			continue
		}
		if err == io.EOF {
			return n, nil
		}
		if max > 0 && n == max {
			return n, fmt.Errorf("%s: stopped after %d errors: %w", r.Name(), max, ErrTooManyErrors)
		}
		n++
		report(err)
		if IsFatal(err) {
			return n, nil
		}
	}
}
