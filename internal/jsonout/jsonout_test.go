package jsonout

import (
	"bytes"
	"math"
	"testing"
)

func TestWrite(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"indented, no HTML escapes", map[string]any{"a": []int{1}, "b": "x < y && z"}, "{\n  \"a\": [\n    1\n  ],\n  \"b\": \"x < y && z\"\n}\n"},
		{"scalar", 3, "3\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Write(&b, tt.v); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got %q, want %q", b.String(), tt.want)
			}
		})
	}
}

func TestWriteNothingOnError(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, []any{1, math.Inf(1)}); err == nil {
		t.Fatal("no error for +Inf")
	}
	if b.Len() != 0 {
		t.Errorf("wrote %q before the error", b.String())
	}
}
