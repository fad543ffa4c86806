package eval

import (
	"bytes"
	"strings"
	"testing"

	"github.com/licorice-dev/licorice/detect"
	"github.com/licorice-dev/licorice/shuffle/apps"
)

// The demo tells its edge cases as they are: when learning found no
// condition on a bug's data, it says so, rather than "among them:"
// followed by nothing, and it does not blame the test run.
func TestDemoNothingLearned(t *testing.T) {
	app, ok := apps.Lookup("mytracks")
	if !ok {
		t.Fatal("no mytracks")
	}
	var b bytes.Buffer
	d := &demoWriter{w: &b, width: 80}
	d.learned(4, 2, nil)
	d.explain(app, &detect.Result{}, true, 5, 0, nil)
	out := b.String()
	for _, want := range []string{
		"4 conditions for 2 handlers, none of them on the data of a known bug.",
		"training learned no condition on a bug's data",
		"Not found: ",
	} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("the demo's text lacks %q:\n%s", want, out)
		}
	}
	for _, wrong := range []string{"among them:", "this run never had"} {
		if strings.Contains(out, wrong) {
			t.Errorf("the demo says %q when nothing was learned:\n%s", wrong, out)
		}
	}
}
