package shuffle

import (
	"context"
	"fmt"
	"io"

	"github.com/licorice-dev/licorice/traces"
)

// Record runs main once with opts and writes the trace to w in format f.
// The header names the app and run and says whether the run is shuffled
// and with which seed; extra header keys may be given in h.Extra.
func Record(ctx context.Context, main func(rt *Runtime), opts Options, h traces.Header, w io.Writer, f traces.Format) (Result, error) {
	syms := traces.NewSymbols()
	if h.Platform == "" {
		h.Platform = "android"
	}
	h.Shuffled = opts.Shuffle
	h.Seed, h.HasSeed = opts.Seed, true
	tw, err := traces.NewWriter(w, f, &h, syms)
	if err != nil {
		return Result{}, fmt.Errorf("start trace: %w", err)
	}
	res, err := Run(ctx, main, opts, syms, tw.Write)
	if cerr := tw.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("finish trace: %w", cerr)
	}
	return res, err
}
