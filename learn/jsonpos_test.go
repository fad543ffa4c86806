package learn

import "testing"

func TestOffsetOf(t *testing.T) {
	data := []byte(`{"a": 1, "b": [10, {"c": "x"}, [3]], "d": {"e": null}}`)
	tests := []struct {
		path []any
		want string // data from the offset, its first bytes
		ok   bool
	}{
		{[]any{"a"}, "1,", true},
		{[]any{"b"}, "[10", true},
		{[]any{"b", 0}, "10,", true},
		{[]any{"b", 1}, `{"c"`, true},
		{[]any{"b", 1, "c"}, `"x"`, true},
		{[]any{"b", 2, 0}, "3]", true},
		{[]any{"d", "e"}, "null", true},
		{[]any{"b", 3}, "", false},
		{[]any{"z"}, "", false},
		{[]any{"a", 0}, "", false},
		{[]any{}, "{", true},
	}
	for _, tt := range tests {
		off, ok := offsetOf(data, tt.path...)
		if ok != tt.ok || ok && string(data[off:off+len(tt.want)]) != tt.want {
			t.Errorf("offsetOf(%v) = %d, %v (%.8q…); want %q, %v", tt.path, off, ok, data[min(off, len(data)):], tt.want, tt.ok)
		}
	}
}
