package droidracer

import (
	"context"
	"strings"
	"testing"
)

func TestParseLine(t *testing.T) {
	tests := []struct {
		line   string
		kw     string
		id     int64
		fields []field
		name   string
	}{
		{"17 CALL tid:1\t msg:2", "CALL", 17, []field{{"tid", "1"}, {"msg", "2"}}, ""},
		{"5 NATIVE-ENTRY tid:2thread-name:Binder Thread #1", "NATIVE-ENTRY", 5, []field{{"tid", "2"}}, "Binder Thread #1"},
		{"3 ENABLE-LIFECYCLE tid:1 component: id:0 state:BIND-APP", "ENABLE-LIFECYCLE", 3,
			[]field{{"tid", "1"}, {"component", ""}, {"id", "0"}, {"state", "BIND-APP"}}, ""},
		{"rwId:30 WRITE-STATIC tid:1 class:Lcom/appsrox/remindme/RemindMe; field:4326", "WRITE-STATIC", 30,
			[]field{{"tid", "1"}, {"class", "Lcom/appsrox/remindme/RemindMe;"}, {"field", "4326"}}, ""},
		{"rwId:280 WRITE tid:1 database:/data/data/x/databases/remind me.db", "WRITE", 280,
			[]field{{"tid", "1"}, {"database", "/data/data/x/databases/remind me.db"}}, ""},
		{"179 ADD_IDLE_HANDLER idler:1091117496 queue:1090957864", "ADD_IDLE_HANDLER", 179,
			[]field{{"idler", "1091117496"}, {"queue", "1090957864"}}, ""},
		{"2 FROBNICATE a:1 a:2", "FROBNICATE", 2, []field{{"a", "1"}}, ""},
	}
	for _, tt := range tests {
		r, err := parseLine(tt.line, 1)
		if err != nil {
			t.Errorf("%q: %v", tt.line, err)
			continue
		}
		if r.kw != tt.kw || r.id != tt.id || r.name != tt.name || len(r.fields) != len(tt.fields) {
			t.Errorf("%q: got %s %d %+v name %q", tt.line, r.kw, r.id, r.fields, r.name)
			continue
		}
		for i, f := range tt.fields {
			if r.fields[i] != f {
				t.Errorf("%q: field %d = %+v, want %+v", tt.line, i, r.fields[i], f)
			}
		}
	}
}

// A broken line is an error that names the file, the line and what is wrong.
func TestReadBrokenLines(t *testing.T) {
	tests := []struct {
		line string
		want string
	}{
		{"5 POST src:2 msg:x dest:-1 delay:0", `POST: field "msg": "x" is not an integer`},
		{"5 CALL tid:1", `CALL: missing field "msg"`},
		{"4 LOCK tid:1", `LOCK: missing field "lock-obj"`},
		{"7x CALL tid:1 msg:1", `operation id "7x" is not a number`},
		{"12", `no keyword after id 12`},
		{"12 CALL tid:1 msg:1 stray", `CALL: field "msg": "1 stray" is not an integer`},
		{"rwId:x READ tid:1 obj:0x1 class:LA; field:8", `access id "rwId:x" is not a number`},
		{"rwId:3 READ tid:1 obj:0x1 class:LA;", `access rwId:3: missing field "field"`},
		{"rwId:3 READ obj:0x1 class:LA; field:8", `access rwId:3: missing field "tid"`},
		{"rwId:3 READ tid:1 class:LA; field:8", `access rwId:3: missing field "obj" (or "database")`},
		{"rwId:3 WRITE-STATIC tid:1 field:8", `access rwId:3: missing field "class"`},
		{"rwId:3 WRITE tid:one database:/x", `access rwId:3: field "tid": "one" is not an integer`},
	}
	for _, tt := range tests {
		log := "1 START\n2 THREADINIT tid:1\n" + tt.line + "\n4 THREADEXIT tid:1\n"
		_, err := Read(context.Background(), strings.NewReader(log), "abc_log.txt")
		want := "abc_log.txt:3: " + tt.want
		if err == nil || err.Error() != want {
			t.Errorf("%q: error %v, want %s", tt.line, err, want)
		}
	}
}

func TestReadStopsAtHBGraph(t *testing.T) {
	log := "1 START\n2 THREADINIT tid:1\n \n HB Graph \n3 BROKEN LINE tid:x\n"
	l, err := Read(context.Background(), strings.NewReader(log), "log")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.records) != 2 || l.Report == nil {
		t.Fatalf("records %d, report %v", len(l.records), l.Report)
	}
	if u := l.Report.Unrecognized; len(u) != 1 || u[0].N != 5 {
		t.Errorf("unrecognized report lines %+v, want line 5", u)
	}
	l, err = Read(context.Background(), strings.NewReader("1 START\n"), "log")
	if err != nil || l.Report != nil {
		t.Errorf("log without HB Graph: %v, report %v", err, l.Report)
	}
}

// Class gives the class of each object the import names, incarnations of
// one address apart.
func TestClass(t *testing.T) {
	l, err := Read(context.Background(), strings.NewReader(lines("1 THREADINIT tid:1",
		"rwId:1 WRITE tid:1 obj:0x40 class:LA; field:8",
		"rwId:2 WRITE tid:1 obj:0x40 class:LD; field:8",
		"rwId:3 READ-STATIC tid:1 class:LS; field:3",
		"2 ACCESS tid:1\t accessId:1")), "log")
	if err != nil {
		t.Fatal(err)
	}
	for obj, want := range map[string]string{"0x40": "LA;", "0x40#2": "LD;", "0x99": "", "LS;": ""} {
		if got := l.Class(obj); got != want {
			t.Errorf("Class(%q) = %q, want %q", obj, got, want)
		}
	}
}
