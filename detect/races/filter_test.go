package races

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestMatchGlob(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"*", "", true},
		{"*", "anything", true},
		{"", "", true},
		{"", "x", false},
		{"mCount", "mCount", true},
		{"mCount", "mCounts", false},
		{"m*", "mCount", true},
		{"*Count", "mCount", true},
		{"*.on*", "Act.onPause", true},
		{"*.on*", "Act.pause", false},
		{"a*b*c", "aXbYbZc", true},
		{"a*b*c", "aXbYbZ", false},
		{"?", "é", true},
		{"??", "é", false},
		{"a?c", "abc", true},
		{`a\*c`, "a*c", true},
		{`a\*c`, "abc", false},
		{`\?`, "?", true},
		{"thread *", "thread AsyncTask #1", true},
		{"*[0]", "site[0]", true},
	}
	for _, tt := range tests {
		if got := matchGlob(tt.pattern, tt.s); got != tt.want {
			t.Errorf("matchGlob(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}

func TestParseFilter(t *testing.T) {
	const file = `# harmless races
field=mCount                       # counters
class=android.view.* field=mLayout*

handler=*.onPause handler=*.onResume
  kind=data location="@db:Users.*"   
handler="thread AsyncTask #*"
site=Foo.init:3 handler=Act.on\"quoted\"
`
	f, err := ParseFilter("harmless.txt", strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range f.rules {
		got = append(got, strconv.Itoa(r.line)+": "+r.text)
	}
	want := []string{
		"2: field=mCount",
		"3: class=android.view.* field=mLayout*",
		"5: handler=*.onPause handler=*.onResume",
		`6: kind=data location=@db:Users.*`,
		`7: handler="thread AsyncTask #*"`,
		`8: site=Foo.init:3 handler=Act.on\"quoted\"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rules:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	race := func(kind Kind, loc Location, h1, h2 string) *Race {
		return &Race{Kind: kind, Location: loc,
			First:  Access{Handler: h1, Event: "E1", Thread: "main"},
			Second: Access{Handler: h2, Thread: "w1", ThreadName: "AsyncTask #1"}}
	}
	cases := []struct {
		r    *Race
		rule int // index of the matching rule, -1 for none
	}{
		{race(DataRace, Location{Name: "s.mCount", Field: "mCount"}, "A.x", "B.y"), 0},
		{race(UseFree, Location{Name: "s.mCounter", Field: "mCounter"}, "A.x", "B.y"), -1},
		{race(DataRace, Location{Name: "s.mLayoutW", Field: "mLayoutW", Type: "android.view.View"}, "A.x", "B.y"), 1},
		{race(DataRace, Location{Name: "s.mLayoutW", Field: "mLayoutW", Type: "app.View"}, "A.x", "B.y"), -1},
		{race(DataRace, Location{Name: "C.mLayout", Field: "mLayout", Object: "android.view.C", Static: true}, "A.x", "B.y"), 1},
		{race(DataRace, Location{Name: "s.f", Field: "f"}, "Act.onPause", "Act.onResume"), 2},
		{race(DataRace, Location{Name: "s.f", Field: "f"}, "Act.onResume", "Act.onPause"), 2},
		{race(DataRace, Location{Name: "s.f", Field: "f"}, "Act.onPause", "Act.onPause"), -1},
		{race(DataRace, Location{Name: "@db:Users.2", Field: "2"}, "A.x", "B.y"), 3},
		{race(UseFree, Location{Name: "@db:Users.2", Field: "2"}, "A.x", "B.y"), -1},
		{race(UseFree, Location{Name: "s.g", Field: "g"}, "A.x", ""), 4},
		{race(UseFree, Location{Name: "s.g", Field: "g", Site: "Foo.init:3"}, `Act.on"quoted"`, "B"), 5},
	}
	for i, c := range cases {
		if got := f.match(c.r); got != c.rule {
			t.Errorf("case %d (%s %s, %s / %s): rule %d, want %d", i, c.r.Kind, c.r.Location.Name, c.r.First.Context(), c.r.Second.Context(), got, c.rule)
		}
	}
}

func TestParseFilterErrors(t *testing.T) {
	tests := []struct {
		line string
		want string
	}{
		{"fields=x", `harmless.txt:2: unknown key "fields": want kind, class, site, field, location or handler`},
		{"mCount", `harmless.txt:2: "mCount" is not a term: write key=pattern`},
		{"field mCount", `harmless.txt:2: "field" is not a term`},
		{"field=", `harmless.txt:2: field= needs a pattern`},
		{"field=a field=b", "harmless.txt:2: field appears twice"},
		{"handler=a handler=b handler=c", "harmless.txt:2: a rule has at most two handler terms"},
		{"kind=races", "harmless.txt:2: kind=races matches no kind: want data or use-free"},
		{`handler="on pause`, "harmless.txt:2: handler: the quote is not closed"},
		{`handler="a"b`, "harmless.txt:2: handler: a quoted pattern must be followed by a space"},
		{`field=a\`, `harmless.txt:2: field=a\: the pattern ends with \, which escapes nothing`},
		{"field=\xff", "harmless.txt:2: invalid UTF-8"},
	}
	for _, tt := range tests {
		_, err := ParseFilter("harmless.txt", strings.NewReader("# ok\n"+tt.line+"\nfield=ok\n"))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got error %v, want %q", tt.line, err, tt.want)
		}
	}
	// Every mistake is reported, each with its line.
	_, err := ParseFilter("f", strings.NewReader("a\nfield=x\nb=1\n"))
	if err == nil || !strings.Contains(err.Error(), "f:1: ") || !strings.Contains(err.Error(), "f:3: ") {
		t.Errorf("got %v, want errors at lines 1 and 3", err)
	}
	if _, err := LoadFilter("testdata/no-such-file"); err == nil || !strings.Contains(err.Error(), "no-such-file") {
		t.Errorf("missing file: got %v", err)
	}
}

// TestHarmlessFilter: the filter drops races before grouping, counts them
// by rule, and a dropped race covers nothing.
func TestHarmlessFilter(t *testing.T) {
	trace := looper + `
{"op":"begin","t":"A","thread":"L"}
{"op":"write","t":"A","obj":"o","field":"d","val":1}
{"op":"write","t":"A","obj":"o","field":"x","val":true}
{"op":"end","t":"A"}
{"op":"begin","t":"B","thread":"L"}
{"op":"read","t":"B","obj":"o","field":"x","val":true}
{"op":"read","t":"B","obj":"o","field":"d","val":1}
{"op":"end","t":"B"}`
	f, err := ParseFilter("h", strings.NewReader("# the flag\nfield=x\nfield=nothing\n"))
	if err != nil {
		t.Fatal(err)
	}
	rep := detectText(t, trace, Config{Kind: DataRace, Harmless: f})
	if got := raceList(rep); strings.Join(got, ",") != "data 9-14 in-thread" {
		t.Errorf("races %q, want the race on d alone, uncovered", got)
	}
	ks := rep.Summary.Kinds[0]
	if ks.Found != 2 || ks.Harmless != 1 || ks.Races != 1 || ks.Groups != 1 {
		t.Errorf("summary %+v", ks)
	}
	if h := rep.Summary.Harmless; len(h) != 1 || h[0] != (RuleCount{Line: 2, Rule: "field=x", Races: 1}) {
		t.Errorf("rule counts %+v", h)
	}
}

// FuzzParseFilter: any input is parsed or refused with line numbers,
// never a panic, and a parsed filter's rules, printed, parse again into
// the same rules.
func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{
		"field=mCount\n",
		"# c\nclass=android.view.* field=mLayout*\n\nhandler=*.onPause handler=*.onResume\n",
		`kind=data location="@db:Users.*"` + "\n",
		`handler="thread AsyncTask #*"  # workers` + "\n",
		`site=a\"b handler="x \" y"` + "\n",
		"field=\n", "a\n", `field=a\`, "kind=races\n", "handler=a handler=b handler=c\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fl, err := ParseFilter("f", strings.NewReader(s))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f:") {
				t.Errorf("error without the file name: %v", err)
			}
			return
		}
		var text strings.Builder
		for _, r := range fl.rules {
			text.WriteString(r.text + "\n")
		}
		again, err := ParseFilter("again", strings.NewReader(text.String()))
		if err != nil {
			t.Fatalf("the rules %q do not parse again: %v", text.String(), err)
		}
		if len(again.rules) != len(fl.rules) {
			t.Fatalf("%d rules, then %d", len(fl.rules), len(again.rules))
		}
		for i := range fl.rules {
			if again.rules[i].text != fl.rules[i].text {
				t.Errorf("rule %q prints as %q", fl.rules[i].text, again.rules[i].text)
			}
		}
	})
}

// A filter file is read with a cap: a wrong path (/dev/zero) is an error
// at once.
func TestLoadFilterBounded(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	start := time.Now()
	_, err := LoadFilter("/dev/zero")
	if err == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v after %v", err, time.Since(start))
	}
}
