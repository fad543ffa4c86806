package traces

import (
	"reflect"
	"testing"
)

// TestVisitorFieldsApart checks the layout Reader's comment promises: the
// fields EachAhead's visitor writes for every op share no cache line with
// the other fields, which the reading goroutine writes for every op, nor
// with whatever follows a Reader in memory.
func TestVisitorFieldsApart(t *testing.T) {
	rt := reflect.TypeFor[Reader]()
	visitor := map[string]bool{"visited": true, "visitedLine": true, "visitedCount": true}
	var vs, others []reflect.StructField
	for i := range rt.NumField() {
		f := rt.Field(i)
		switch {
		case visitor[f.Name]:
			vs = append(vs, f)
		case f.Name != "_":
			others = append(others, f)
		}
	}
	if len(vs) != len(visitor) {
		t.Fatalf("found %d of the visitor's fields %v", len(vs), visitor)
	}
	end := func(f reflect.StructField) uintptr { return f.Offset + f.Type.Size() }
	for _, v := range vs {
		for _, o := range others {
			if end(o)+63 > v.Offset && end(v)+63 > o.Offset {
				t.Errorf("%s (bytes %d-%d) and %s (bytes %d-%d) may share a cache line", v.Name, v.Offset, end(v), o.Name, o.Offset, end(o))
			}
		}
		if end(v)+63 > rt.Size() {
			t.Errorf("%s (bytes %d-%d) may share a cache line with what follows a Reader (%d bytes)", v.Name, v.Offset, end(v), rt.Size())
		}
	}
}
