package learn

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/licorice-dev/licorice/shuffle/apps"
)

var sensitivity = flag.Bool("sensitivity", false, "run the sensitivity study of docs/learning.md (minutes)")

// TestSensitivity reproduces thesis Fig. 5.4 and 5.5 on the benchmark
// apps (docs/learning.md has the results and the command):
//
//   - training: 50 runs of 1000 monkey actions, half of them shuffled
//     (seeds 1..50); learn on the first 10, 20, ..., 50;
//   - testing: 20 other runs of 2000 actions, half shuffled (seeds
//     10001..10020), held back; a learned condition that a correct testing
//     run falsifies is a false precondition;
//   - Fig. 5.5: 50 regular runs (no shuffling, seeds 1..50) against the
//     mixed 50.
//
// It prints, per app, the number of conditions learned at each size (and
// as a share of the number at 50) and the share falsified by the testing
// runs, as a Markdown table.
func TestSensitivity(t *testing.T) {
	if !*sensitivity {
		t.Skip("run with -sensitivity")
	}
	sizes := []int{10, 20, 30, 40, 50}
	var fig4, fig5 strings.Builder
	fig4.WriteString("| app | " + joinInts(sizes, " | ", "%d traces") + " |\n|---|" + strings.Repeat("---|", len(sizes)) + "\n")
	fig5.WriteString("| app | regular: conditions | falsified | mixed: conditions | falsified | mixed / regular |\n|---|---|---|---|---|---|\n")
	for _, app := range apps.All() {
		train := recordedWith(t, app.Name, 50, 1000, 1, 0.5)
		test := recordedWith(t, app.Name, 20, 2000, 10001, 0.5)
		type point struct {
			conds, falsified int
		}
		var pts []point
		for _, n := range sizes {
			conds, bad := study(t, train[:n], test)
			pts = append(pts, point{conds, bad})
		}
		full := pts[len(pts)-1].conds
		fig4.WriteString("| " + app.Name)
		for _, p := range pts {
			fmt.Fprintf(&fig4, " | %d (%s), %s falsified", p.conds, percent(p.conds, full), percent(p.falsified, p.conds))
		}
		fig4.WriteString(" |\n")

		regular := recordedWith(t, app.Name, 50, 1000, 1, 0)
		rc, rb := study(t, regular, test)
		mc, mb := pts[len(pts)-1].conds, pts[len(pts)-1].falsified
		fmt.Fprintf(&fig5, "| %s | %d | %d (%s) | %d | %d (%s) | %s |\n", app.Name, rc, rb, percent(rb, rc), mc, mb, percent(mb, mc), percent(mc, rc))
	}
	t.Logf("Conditions learned (share of the number at 50 traces) and share falsified by 20 held-back runs:\n\n%s", fig4.String())
	t.Logf("Regular against mixed (half shuffled) training, 50 traces each:\n\n%s", fig5.String())
}

// study learns from train and returns how many conditions it learned and
// how many of them the test traces falsify.
func study(t *testing.T, train, test []string) (conds, falsified int) {
	t.Helper()
	res := learnResult(t, train, Options{})
	chk, err := Check(context.Background(), res.Spec, test, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return len(chk.Verdicts), len(chk.Falsified())
}

func percent(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(a)/float64(b))
}

func joinInts(ns []int, sep, format string) string {
	var parts []string
	for _, n := range ns {
		parts = append(parts, fmt.Sprintf(format, n))
	}
	return strings.Join(parts, sep)
}
