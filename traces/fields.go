package traces

import (
	"fmt"
	"math"
	"slices"
	"unicode/utf8"
)

// checkFields says why op cannot be written in the text form, or "" if it
// can: the decoders' rules for single fields, applied to an Op. Writers use
// it so that what they write can be read back. (The binary decoder makes
// the same checks as it decodes; FuzzLCT checks that every op it returns
// passes this one.)
func checkFields(op *Op) string {
	if !op.Kind.Valid() {
		return fmt.Sprintf("unknown op kind %d", op.Kind)
	}
	if op.Task == NoSym && !(op.Kind == Send && op.External) {
		return `missing field "t"`
	}
	if op.HasTS && !finite(op.TS) {
		return `field "ts": not a finite number`
	}
	missing := func(name string) string { return fmt.Sprintf("missing field %q", name) }
	switch op.Kind {
	case ThreadBegin:
		if op.ThreadKind > Binder {
			return fmt.Sprintf(`field "kind": invalid thread kind %d`, op.ThreadKind)
		}
	case Fork, Join:
		if op.Thread == NoSym {
			return missing("child")
		}
	case Attach:
		if op.Queue == NoSym {
			return missing("q")
		}
	case Send:
		switch {
		case op.Queue == NoSym:
			return missing("q")
		case op.Event == NoSym:
			return missing("e")
		case op.SendKind > AtFront:
			return fmt.Sprintf(`field "kind": invalid send kind %d`, op.SendKind)
		case op.SendKind != AtFront && op.Time < 0:
			return fmt.Sprintf("send time must not be negative, got %d", op.Time)
		}
	case Remove:
		if op.Event == NoSym {
			return missing("e")
		}
	case Begin:
		if op.Thread == NoSym {
			return missing("thread")
		}
	case Signal, Wait:
		if op.Name == NoSym {
			return missing("m")
		}
	case Lock, Unlock:
		if op.Name == NoSym {
			return missing("l")
		}
	case Call, Ret:
		if op.Name == NoSym {
			return missing("h")
		}
	case Alloc:
		if op.Loc.Obj == NoSym {
			return missing("obj")
		}
	case Read, Write:
		if msg := checkLocation(op.Loc); msg != "" {
			return msg
		}
		switch v := op.Val; v.Kind() {
		case RefValue:
			if v.Sym() == NoSym {
				return `field "val": a reference needs an object id`
			}
		case FloatValue:
			if !finite(v.Float()) {
				return `field "val": not a finite number`
			}
		}
	case Relate:
		if msg := checkLocation(op.Loc); msg != "" {
			return `field "a": ` + msg
		}
		if msg := checkLocation(op.Loc2); msg != "" {
			return `field "b": ` + msg
		}
		if op.Via != ViaCmp && op.Via != ViaArith {
			return fmt.Sprintf(`field "via": invalid relate mode %d`, op.Via)
		}
	case Branch:
		if msg := checkLocation(op.Loc); msg != "" {
			return msg
		}
		if op.Cond < CondNull || op.Cond > CondTrue {
			return fmt.Sprintf(`field "cond": invalid branch condition %d`, op.Cond)
		}
	}
	return ""
}

func checkLocation(loc Location) string {
	switch {
	case loc.Obj == NoSym && loc.Static:
		return `missing field "class"`
	case loc.Obj == NoSym:
		return `missing field "obj"`
	case loc.Field == NoSym:
		return `missing field "field"`
	}
	return ""
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// validUTF8 returns s with every byte that is not part of valid UTF-8
// replaced by U+FFFD, as the canonical text form spells it.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, "\uFFFD"...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return string(b)
}

// knownHeaderKeys are the header keys Header has fields for.
var knownHeaderKeys = []string{"licorice_trace", "platform", "app", "run", "shuffled", "seed"}

// canonicalHeader returns h as writers write it: the version filled in,
// Extra sorted and each value compacted, after checking that the result
// reads back as the same header.
func canonicalHeader(h *Header) (*Header, error) {
	c := *h
	if c.Version != 0 && (c.Version < MinVersion || c.Version > Version) {
		return nil, fmt.Errorf("cannot write trace format version %d (this licorice writes version %d)", c.Version, Version)
	}
	c.Version = Version // every version it reads is a part of the newest
	c.Extra = slices.Clone(h.Extra)
	sortExtra(c.Extra)
	for i := range c.Extra {
		f := &c.Extra[i]
		if slices.Contains(knownHeaderKeys, f.Key) {
			return nil, fmt.Errorf("header: extra key %q is a known key", f.Key)
		}
		if i > 0 && c.Extra[i-1].Key == f.Key {
			return nil, fmt.Errorf("header: extra key %q twice", f.Key)
		}
		s := scanner{b: []byte(f.JSON)}
		_, err := s.value(1)
		if err == nil {
			s.skipSpace()
			if s.pos != len(s.b) {
				err = s.unexpected("the end of the value")
			}
		}
		var cj []byte
		if err == nil {
			cj, err = compactJSON(nil, s.b)
		}
		if err != nil {
			return nil, fmt.Errorf("header: extra key %q: not a JSON value: %w", f.Key, err)
		}
		f.JSON = string(cj)
	}
	return &c, nil
}
