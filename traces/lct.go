package traces

import (
	"errors"
	"io"
)

// The binary form is not written yet.

func newLCTDecoder(r io.Reader, syms *Symbols) (decoder, Header, error) {
	return nil, Header{}, errors.New("the .lct form is not implemented yet")
}

func newLCTEncoder(w io.Writer, h *Header, syms *Symbols) (encoder, error) {
	return nil, errors.New("the .lct form is not implemented yet")
}
