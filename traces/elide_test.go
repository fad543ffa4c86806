package traces

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestElide(t *testing.T) {
	tests := []struct {
		name, s string
		max     int
		want    string
	}{
		{"short", "E12", 120, "E12"},
		{"exactly max", "abcdef", 6, "abcdef"},
		{"long", strings.Repeat("a", 10) + strings.Repeat("b", 100) + strings.Repeat("c", 10), 30, "aaaaaaaaaabbbbbbbbbb…[90 bytes]…cccccccccc"},
		{"multibyte", strings.Repeat("é", 50), 10, "ééé…[92 bytes]…é"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Elide(tt.s, tt.max)
			if got != tt.want {
				t.Errorf("Elide(%.20q…, %d) = %q, want %q", tt.s, tt.max, got, tt.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("%q is not valid UTF-8", got)
			}
		})
	}
}
