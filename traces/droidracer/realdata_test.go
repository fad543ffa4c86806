package droidracer

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/licorice-dev/licorice/internal/golden"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/traces"
)

// The two DroidRacer logs of testdata, compressed.
var realLogs = []struct {
	app string
	// what ABOUT.md says of the log
	opLines, accessLines, events, races int
	// lifecycle triggers without an enable that the lifecycle orders leave
	// waiting for nothing: those run in the same message as the
	// activity's trigger before them (program order orders them).
	sameMessage int
}{
	{"RemindMe", 1123, 9405, 176, 54, 1},       // 137 RESUME-ACT after 97 LAUNCH-ACT
	{"adobe-reader", 2671, 32188, 226, 125, 2}, // 60 RESUME-ACT after 26 LAUNCH-ACT, 568 PAUSE-ACT after 549 RESUME-ACT
}

func readRealLog(t testing.TB, app string) *Log {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", app+".abc_log.txt.zst"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := Read(context.Background(), f, app+"/abc_log.txt")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func importLog(t testing.TB, l *Log, app string) ([]byte, *Summary) {
	t.Helper()
	return importLogWith(t, l, app, Options{})
}

func importLogWith(t testing.TB, l *Log, app string, opts Options) ([]byte, *Summary) {
	t.Helper()
	var buf bytes.Buffer
	syms := traces.NewSymbols()
	w, err := traces.NewWriter(&buf, traces.JSONL, Header(app), syms)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := l.ImportWith(context.Background(), w, syms, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), sum
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

// Both real logs import, validate, keep every access and every op's origin,
// and import to the same bytes every time.
func TestImportRealLogs(t *testing.T) {
	for _, rl := range realLogs {
		t.Run(rl.app, func(t *testing.T) {
			l := readRealLog(t, rl.app)
			trace, sum := importLog(t, l, rl.app)
			if again, _ := importLog(t, readRealLog(t, rl.app), rl.app); !bytes.Equal(trace, again) {
				t.Error("importing twice gave different traces")
			}
			if sum.OpLines != rl.opLines || sum.AccessLines != rl.accessLines || sum.Events != rl.events || sum.Races != rl.races {
				t.Errorf("ops %d accesses %d events %d races %d, want %d %d %d %d", sum.OpLines, sum.AccessLines,
					sum.Events, sum.Races, rl.opLines, rl.accessLines, rl.events, rl.races)
			}

			// Read back with validation: the trace keeps the contract.
			r, err := traces.NewReader(bytes.NewReader(trace))
			if err != nil {
				t.Fatal(err)
			}
			syms := r.Symbols()
			locs := map[string]Location{} // src of each access op -> its location
			n := 0
			var op traces.Op
			for {
				err := r.Next(&op)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				n++
				src := syms.String(op.Src)
				if !strings.HasPrefix(src, "droidracer:") {
					t.Fatalf("op %d has src %q", n, src)
				}
				if op.Kind == traces.Read || op.Kind == traces.Write {
					if _, dup := locs[src]; dup {
						t.Fatalf("access %s imported twice", src)
					}
					locs[src] = Location{syms.String(op.Loc.Obj), syms.String(op.Loc.Field), op.Loc.Static}
				}
			}
			total := 0
			for _, c := range sum.Ops {
				total += c
			}
			if n != total || len(locs) != rl.accessLines {
				t.Errorf("read back %d ops and %d accesses; summary says %d ops, log has %d accesses", n, len(locs), total, rl.accessLines)
			}

			// Every witness access is an imported op at the witness's
			// location, closed by the ACCESS line DroidRacer names.
			accessIDs := map[int64]int64{} // op id of an ACCESS line -> its accessId
			for _, r := range l.records {
				if r.kw == "ACCESS" {
					accessIDs[r.id] = r.num("accessId")
				}
			}
			for _, race := range l.Report.Races {
				for _, a := range []Access{race.First, race.Second} {
					if a.RWLine == 0 || a.OpLine == 0 {
						t.Errorf("race at line %d: rwId %d not found in the trace part", race.Line, a.RW)
					}
					if id := accessIDs[a.Op]; id != a.AccessID {
						t.Errorf("race at line %d: rwId %d closed by ACCESS %d with accessId %d, witness says %d",
							race.Line, a.RW, a.Op, id, a.AccessID)
					}
					if got, ok := locs[a.Src()]; !ok || got != a.Loc {
						t.Errorf("race at line %d: %s imported at %v, witness says %v", race.Line, a.Src(), got, a.Loc)
					}
				}
				// DroidRacer names objects by address: its two accesses may be
				// to two objects that lived at one address.
				a, b := race.First.Loc, race.Second.Loc
				if a != b && (strings.Split(a.Obj, "#")[0] != strings.Split(b.Obj, "#")[0] || a.Field != b.Field) {
					t.Errorf("race at line %d: accesses at %v and %v", race.Line, a, b)
				}
			}

			var text bytes.Buffer
			if err := sum.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, rl.app+".summary.golden", text.Bytes())

			// The trace is consistent with the causality model: the exact
			// engine finds no rule it contradicts.
			r, err = traces.NewReader(bytes.NewReader(trace), traces.WithName(rl.app+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := asyncclock.Run(context.Background(), r, asyncclock.Config{}, nil); err != nil {
				t.Errorf("the imported trace contradicts the causality model: %v", err)
			}
			// So is the trace with the lifecycle orders, which order the
			// lifecycle triggers without an enable after the activity's
			// trigger before them, in another message.
			lc, lcSum := importLogWith(t, l, rl.app, Options{Lifecycle: true})
			r, err = traces.NewReader(bytes.NewReader(lc), traces.WithName(rl.app+".lifecycle.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := asyncclock.Run(context.Background(), r, asyncclock.Config{}, nil); err != nil {
				t.Errorf("with the lifecycle orders: %v", err)
			}
			for _, a := range lcSum.Adjustments {
				if a.What == adjWhat[adjTriggerWithoutEnable] && a.Count != rl.sameMessage {
					t.Errorf("with the lifecycle orders: %d x %s, want %d", a.Count, a.What, rl.sameMessage)
				}
			}

			// What "licorice traces stat" says of the imported trace.
			r, err = traces.NewReader(bytes.NewReader(trace), traces.WithName(rl.app+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			stat, err := traces.Summarize(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			text.Reset()
			if err := stat.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, rl.app+".stat.golden", text.Bytes())
			checkGolden(t, rl.app+".races.golden", dumpReport(l.Report))
		})
	}
}

// dumpReport writes a report as text, one line per access and entry.
func dumpReport(rep *Report) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "HB graph size %d; %d races; %d lines not understood\n", rep.GraphSize, len(rep.Races), len(rep.Unrecognized))
	for _, u := range rep.Unrecognized {
		fmt.Fprintf(&b, "not understood: line %d: %s\n", u.N, u.Text)
	}
	for _, r := range rep.Races {
		if r.First.Loc == r.Second.Loc {
			fmt.Fprintf(&b, "race at line %d on %v\n", r.Line, r.Location())
		} else {
			fmt.Fprintf(&b, "race at line %d on %v and %v: two objects at one address\n", r.Line, r.First.Loc, r.Second.Loc)
		}
		for _, a := range []Access{r.First, r.Second} {
			kind := "READ "
			if a.Write {
				kind = "WRITE"
			}
			fmt.Fprintf(&b, "  %s rwId %d (line %d) tid %d, in ACCESS %d (line %d, accessId %d)\n",
				kind, a.RW, a.RWLine, a.Tid, a.Op, a.OpLine, a.AccessID)
		}
	}
	for _, c := range rep.Categories {
		fmt.Fprintf(&b, "category %s: %d entries\n", c.Kind, len(c.Entries))
		for _, e := range c.Entries {
			fmt.Fprintf(&b, "  line %d:", e.Line)
			for _, kv := range [][2]string{{"class", e.Class}, {"object", e.Object}, {"db", e.DBPath}} {
				if kv[1] != "" {
					fmt.Fprintf(&b, " %s %s", kv[0], kv[1])
				}
			}
			if e.DBPath == "" {
				fmt.Fprintf(&b, " field %d", e.Field)
			}
			if len(e.Triggers) > 0 {
				fmt.Fprintf(&b, " triggers %v", e.Triggers)
			}
			b.WriteString("\n")
		}
	}
	return b.Bytes()
}
