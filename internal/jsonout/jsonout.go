package jsonout

import (
	"bytes"
	"encoding/json"
	"io"
)

// Write encodes v as indented JSON, with '<', '>' and '&' as they are,
// and writes it to w with one Write once it is encoded: an error of the
// encoding leaves w untouched.
func Write(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
