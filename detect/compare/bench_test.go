package compare

import (
	"context"
	"testing"

	"github.com/licorice-dev/licorice/traces/droidracer"
)

// BenchmarkDroidRacer compares on each real log, as `licorice compare
// droidracer` does (the log already read): import, detection, the
// reference engine's graph of the pairs, and the variants that attribute
// licorice's own locations.
func BenchmarkDroidRacer(b *testing.B) {
	for _, app := range []string{"RemindMe", "adobe-reader"} {
		l := readLog(b, app)
		for _, lifecycle := range []bool{false, true} {
			name := app
			if lifecycle {
				name += "/lifecycle"
			}
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					if _, err := DroidRacer(context.Background(), l, Config{App: app, Import: droidracer.Options{Lifecycle: lifecycle}}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
