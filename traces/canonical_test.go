package traces

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// TestCanonicalLines reads one op line and checks its canonical spelling.
func TestCanonicalLines(t *testing.T) {
	w := func(val string) string { return `{"op":"write","t":"T","obj":"o","field":"f","val":` + val + `}` }
	tests := []struct{ in, want string }{
		// Key order, spaces, defaults left out.
		{`{ "field" : "f", "val":1, "obj":"o", "t":"T", "op":"write" }`, w("1")},
		{`{"op":"send","kind":"delayed","delay":0,"async":false,"external":false,"e":"E","q":"q","t":"T"}`, `{"op":"send","t":"T","q":"q","e":"E"}`},
		{`{"op":"send","t":"T","q":"q","e":"E","delay":5,"async":true}`, `{"op":"send","t":"T","q":"q","e":"E","delay":5,"async":true}`},
		{`{"op":"send","e":"E","q":"q","external":true,"at":7,"kind":"at_time"}`, `{"op":"send","q":"q","e":"E","kind":"at_time","at":7,"external":true}`},
		{`{"op":"send","t":"T","q":"q","e":"E","kind":"at_front"}`, `{"op":"send","t":"T","q":"q","e":"E","kind":"at_front"}`},
		{`{"op":"thread_begin","t":"T","kind":"worker","name":""}`, `{"op":"thread_begin","t":"T"}`},
		{`{"op":"thread_begin","name":"ui","kind":"looper","t":"T"}`, `{"op":"thread_begin","t":"T","kind":"looper","name":"ui"}`},
		{`{"src":"","ts":3,"op":"end","t":"E"}`, `{"op":"end","t":"E","ts":3}`},
		{`{"op":"alloc","t":"T","type":"","site":"","obj":"o"}`, `{"op":"alloc","t":"T","obj":"o"}`},
		{`{"op":"read","t":"T","class":"C","field":"f","deref":false}`, `{"op":"read","t":"T","class":"C","field":"f"}`},
		{`{"op":"read","t":"T","deref":true,"val":{ "ref" : "o2" },"field":"f","obj":"o"}`, `{"op":"read","t":"T","obj":"o","field":"f","val":{"ref":"o2"},"deref":true}`},
		{`{"op":"relate","via":"arith","b":{"field":"g","class":"C"},"a":{"field":"f","obj":"o"},"t":"T"}`, `{"op":"relate","t":"T","a":{"obj":"o","field":"f"},"b":{"class":"C","field":"g"},"via":"arith"}`},
		{`{"op":"branch","t":"T","target":0,"pc":0,"taken":false,"cond":"eq","field":"f","obj":"o"}`, `{"op":"branch","t":"T","obj":"o","field":"f","cond":"eq"}`},
		{`{"op":"branch","t":"T","target":-8,"pc":9,"taken":true,"cond":"null","field":"f","obj":"o"}`, `{"op":"branch","t":"T","obj":"o","field":"f","cond":"null","taken":true,"pc":9,"target":-8}`},
		{`{"op":"error","t":"T","msg":""}`, `{"op":"error","t":"T"}`},
		// Integers.
		{w("9223372036854775807"), w("9223372036854775807")},
		{w("-9223372036854775808"), w("-9223372036854775808")},
		{w("-0"), w("0")},
		// Floats: a '.' or an exponent always, shortest form, exponent
		// below 1e-6 and from 1e21 on.
		{w("1.0"), w("1.0")},
		{w("1.000"), w("1.0")},
		{w("1e0"), w("1.0")},
		{w("1E2"), w("100.0")},
		{w("0.0"), w("0.0")},
		{w("-0.0"), w("-0.0")},
		{w("0.1"), w("0.1")},
		{w("1e21"), w("1e+21")},
		{w("1e20"), w("100000000000000000000.0")},
		{w("123456789012345678901234.0"), w("1.2345678901234569e+23")},
		{w("1e-7"), w("1e-7")},
		{w("1.5e-7"), w("1.5e-7")},
		{w("1e-6"), w("0.000001")},
		{w("5e-324"), w("5e-324")},
		{w("1.7976931348623157e308"), w("1.7976931348623157e+308")},
		{w("0.30000000000000004"), w("0.30000000000000004")},
		{w("2.5E+22"), w("2.5e+22")},
		// ts is a number, not a float: no ".0".
		{`{"op":"end","t":"E","ts":1.0}`, `{"op":"end","t":"E","ts":1}`},
		{`{"op":"end","t":"E","ts":-0.0}`, `{"op":"end","t":"E","ts":-0}`},
		{`{"op":"end","t":"E","ts":12.50}`, `{"op":"end","t":"E","ts":12.5}`},
		{`{"op":"end","t":"E","ts":1e21}`, `{"op":"end","t":"E","ts":1e+21}`},
		{`{"op":"end","t":"E","ts":1e-7}`, `{"op":"end","t":"E","ts":1e-7}`},
		// Other values.
		{w("null"), w("null")},
		{w("true"), w("true")},
		{w("false"), w("false")},
		{w(`""`), w(`""`)},
		// Strings: only what JSON requires is escaped, with the short
		// escapes where JSON has them; the rest is UTF-8.
		{w(`"\"\\\/"`), w(`"\"\\/"`)},
		{w(`"\n\r\t\b\f"`), w(`"\n\r\t\b\f"`)},
		{w(`"\u0000\u001f\u0001"`), w(`"\u0000\u001f\u0001"`)},
		{w(`"\u007f\u00e9\u2028"`), w("\"\x7f\u00e9\u2028\"")},
		{w(`"\ud83d\ude00"`), w(`"😀"`)},
		{w(`"\uD83D\uDE00"`), w(`"😀"`)},
		{w(`"日本語 <&>"`), w(`"日本語 <&>"`)},
		{`{"op":"lock","t":"T\u0041","l":"a\/b"}`, `{"op":"lock","t":"TA","l":"a/b"}`},
	}
	for _, tt := range tests {
		data := []byte(`{"licorice_trace":1}` + "\n" + tt.in + "\n")
		d, err := decode(data, WithoutValidation())
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		got := string(AppendCanonical(nil, &d.ops[0], d.syms))
		if got != tt.want+"\n" {
			t.Errorf("%s\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

// TestCanonicalHeader: known keys first in a fixed order, then unknown
// ones sorted, each value compacted with canonical strings.
func TestCanonicalHeader(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"licorice_trace":1}`, `{"licorice_trace":2}`},
		{`{ "seed" : -3, "zz" : [ 1 , {"b" : "\u00e9"} ], "shuffled": false, "aa":null, "run":"r", "app":"a", "platform":"p", "licorice_trace":1 }`,
			`{"licorice_trace":2,"platform":"p","app":"a","run":"r","seed":-3,"aa":null,"zz":[1,{"b":"é"}]}`},
		{`{"licorice_trace":1,"shuffled":true,"x":"\ud83d\ude00 \/"}`, `{"licorice_trace":2,"shuffled":true,"x":"😀 /"}`},
		{`{"licorice_trace":1,"n":1.50e3}`, `{"licorice_trace":2,"n":1.50e3}`}, // numbers of unknown keys are kept as written
	}
	for _, tt := range tests {
		d, err := decode([]byte(tt.in + "\n"))
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if got := string(AppendCanonicalHeader(nil, &d.header)); got != tt.want+"\n" {
			t.Errorf("%s\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

// TestCanonicalFromMemory covers what only an Op built in memory can hold:
// floats that no reader produces from the same text, invalid UTF-8.
func TestCanonicalFromMemory(t *testing.T) {
	syms := NewSymbols()
	T, o, f := syms.Intern("T"), syms.Intern("o"), syms.Intern("f")
	w := func(v Value) Op { return Op{Kind: Write, Task: T, Loc: Location{Obj: o, Field: f}, Val: v} }
	tests := []struct {
		op   Op
		want string
	}{
		{w(Float(math.Copysign(0, -1))), `"val":-0.0`},
		{w(Float(1 << 62)), `"val":4611686018427388000.0`},
		{w(Float(math.SmallestNonzeroFloat64)), `"val":5e-324`},
		{w(String(syms.Intern("a\xffb"))), "\"val\":\"a\uFFFDb\""},
		{w(String(syms.Intern("\xed\xa0\x80"))), "\"val\":\"\uFFFD\uFFFD\uFFFD\""}, // a surrogate in UTF-8
		{w(String(syms.Intern("\uFFFD"))), "\"val\":\"\uFFFD\""},
		{Op{Kind: End, Task: T, HasTS: true, TS: 1e-300}, `"ts":1e-300`},
		{Op{Kind: Write, Task: T, Loc: Location{Obj: o, Field: f}, Deref: true}, `{"op":"write","t":"T","obj":"o","field":"f"}`},
		{Op{Kind: Read, Task: T, Loc: Location{Obj: o, Field: f}, Init: true, Update: true}, `{"op":"read","t":"T","obj":"o","field":"f"}`},
		{Op{Kind: Write, Task: T, Loc: Location{Obj: o, Field: f}, Val: Int(0), Init: true}, `{"op":"write","t":"T","obj":"o","field":"f","val":0,"init":true}`},
		{Op{Kind: Write, Task: T, Loc: Location{Obj: o, Field: f}, Val: Int(2), Update: true}, `"val":2,"update":true}`},
		{Op{Kind: Branch, Task: T, Loc: Location{Obj: o, Field: f}, Cond: CondTrue, Taken: true}, `"cond":"true","taken":true`},
	}
	for _, tt := range tests {
		got := string(AppendCanonical(nil, &tt.op, syms))
		if !strings.Contains(got, tt.want) {
			t.Errorf("%+v: got %s, want it to contain %s", tt.op, got, tt.want)
		}
		// Every form reads back the same text.
		for _, form := range allFormats {
			d := mustDecode(t, encode(t, form, &Header{}, []Op{tt.op}, syms), WithoutValidation())
			if back := string(AppendCanonical(nil, &d.ops[0], d.syms)); back != got {
				t.Errorf("%v: wrote %s, read back %s", form, got, back)
			}
		}
	}
}

// TestWriterRefuses: ops and headers the text form could not read back are
// errors, and nothing is written for them.
func TestWriterRefuses(t *testing.T) {
	syms := NewSymbols()
	T, o, f := syms.Intern("T"), syms.Intern("o"), syms.Intern("f")
	ops := []struct {
		op   Op
		want string
	}{
		{Op{Kind: 0, Task: T}, "unknown op kind 0"},
		{Op{Kind: Kind(NumKinds), Task: T}, "unknown op kind"},
		{Op{Kind: Lock}, `missing field "t"`},
		{Op{Kind: Lock, Task: T}, `missing field "l"`},
		{Op{Kind: Send, Task: T, Queue: o}, `missing field "e"`},
		{Op{Kind: Send, Task: T, Queue: o, Event: f, Time: -1}, "negative"},
		{Op{Kind: Send, Task: T, Queue: o, Event: f, SendKind: 3}, "invalid send kind"},
		{Op{Kind: ThreadBegin, Task: T, ThreadKind: 3}, "invalid thread kind"},
		{Op{Kind: Write, Task: T, Loc: Location{Obj: o}}, `missing field "field"`},
		{Op{Kind: Read, Task: T, Loc: Location{Field: f, Static: true}}, `missing field "class"`},
		{Op{Kind: Write, Task: T, Loc: Location{Obj: o, Field: f}, Val: Float(math.NaN())}, "not a finite number"},
		{Op{Kind: Write, Task: T, Loc: Location{Obj: o, Field: f}, Val: Ref(NoSym)}, "needs an object id"},
		{Op{Kind: End, Task: T, HasTS: true, TS: math.Inf(1)}, `"ts"`},
		{Op{Kind: Relate, Task: T, Loc: Location{Obj: o, Field: f}, Loc2: Location{Obj: o, Field: f}}, "invalid relate mode"},
		{Op{Kind: Relate, Task: T, Loc: Location{Obj: o, Field: f}, Via: ViaCmp}, `field "b"`},
		{Op{Kind: Branch, Task: T, Loc: Location{Obj: o, Field: f}}, "invalid branch condition"},
		{Op{Kind: Fork, Task: T}, `missing field "child"`},
		{Op{Kind: Begin, Task: T}, `missing field "thread"`},
	}
	for _, form := range allFormats {
		for _, tt := range ops {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, form, &Header{}, syms)
			if err != nil {
				t.Fatal(err)
			}
			before := buf.Len()
			err = w.Write(&tt.op)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%v: Write(%+v) = %v, want an error with %q", form, tt.op, err, tt.want)
			}
			if form == JSONL {
				w.Close()
				if d := mustDecode(t, buf.Bytes()); len(d.ops) != 0 || buf.Len() < before {
					t.Errorf("%v: the refused op was written", form)
				}
			}
		}
	}
	headers := []struct {
		h    Header
		want string
	}{
		{Header{Version: 3}, "version 3"},
		{Header{Extra: []ExtraField{{Key: "app", JSON: `"x"`}}}, "known key"},
		{Header{Extra: []ExtraField{{Key: "x", JSON: `1`}, {Key: "x", JSON: `2`}}}, "twice"},
		{Header{Extra: []ExtraField{{Key: "x", JSON: `{`}}}, "not a JSON value"},
		{Header{Extra: []ExtraField{{Key: "x", JSON: `1 2`}}}, "not a JSON value"},
		{Header{Extra: []ExtraField{{Key: "x", JSON: ``}}}, "not a JSON value"},
	}
	for _, tt := range headers {
		_, err := NewWriter(&bytes.Buffer{}, JSONL, &tt.h, syms)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewWriter(%+v) = %v, want an error with %q", tt.h, err, tt.want)
		}
	}
}
