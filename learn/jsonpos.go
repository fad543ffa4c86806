package learn

import (
	"bytes"
	"encoding/json"
	"errors"
)

// offsetOf returns the byte offset in data of the JSON value at path: a
// path step is an object key (string) or an array index (int). ok is
// false if data has no such value.
func offsetOf(data []byte, path ...any) (off int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	for _, step := range path {
		t, err := dec.Token()
		if err != nil {
			return 0, false
		}
		d, isDelim := t.(json.Delim)
		if !isDelim {
			return 0, false
		}
		switch s := step.(type) {
		case string:
			if d != '{' || !findKey(dec, s) {
				return 0, false
			}
		case int:
			if d != '[' {
				return 0, false
			}
			for i := 0; i < s; i++ {
				if !dec.More() || skipValue(dec) != nil {
					return 0, false
				}
			}
			if !dec.More() {
				return 0, false
			}
		default:
			return 0, false
		}
	}
	// The value starts after the separator the decoder stopped before.
	off = int(dec.InputOffset())
	for off < len(data) && bytes.IndexByte([]byte(" \t\r\n:,"), data[off]) >= 0 {
		off++
	}
	return off, true
}

// findKey reads an object's members up to key, leaving the decoder
// before its value.
func findKey(dec *json.Decoder, key string) bool {
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		if t == key {
			return true
		}
		if skipValue(dec) != nil {
			return false
		}
	}
	return false
}

// skipValue reads one value, however nested.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
			if depth < 0 {
				return errors.New("unbalanced")
			}
		}
		if depth == 0 {
			return nil
		}
	}
}
