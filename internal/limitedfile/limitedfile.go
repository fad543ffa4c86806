// Package limitedfile reads whole files that the user names (specs,
// template files, allow lists) with a bound on their size, so that a
// wrong path (/dev/zero, a trace, a disk image) is an error in
// milliseconds rather than the machine's memory.
package limitedfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// Read returns the contents of the file at path, or an error if it holds
// more than limit bytes; what names the kind of file in that error ("a
// spec"). Devices and pipes are read up to the limit, not to their end.
func Read(path string, limit int64, what string) ([]byte, error) {
	return read(path, limit, what, false)
}

// ReadJSONObject is Read for a file that holds a JSON object: one whose
// first byte other than white space (and a UTF-8 byte-order mark) is not
// '{' is refused before the rest is read.
func ReadJSONObject(path string, limit int64, what string) ([]byte, error) {
	return read(path, limit, what, true)
}

// ReadJSONObjectFrom is ReadJSONObject for what r holds (standard input),
// named name in errors.
func ReadJSONObjectFrom(r io.Reader, name string, limit int64, what string) ([]byte, error) {
	return readFrom(r, name, -1, limit, what, true)
}

func read(path string, limit int64, what string, object bool) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var size int64 = -1
	if info, err := f.Stat(); err == nil {
		switch {
		case info.IsDir():
			return nil, fmt.Errorf("%s is a directory, not %s", path, what)
		case info.Mode().IsRegular():
			if size = info.Size(); size > limit {
				return nil, tooLarge(path, limit, what)
			}
		}
	}
	return readFrom(f, path, size, limit, what, object)
}

// readFrom reads r, which holds size bytes (-1: unknown), named path.
func readFrom(r io.Reader, path string, size, limit int64, what string, object bool) ([]byte, error) {
	br := bufio.NewReader(io.LimitReader(r, limit+1))
	if object {
		if err := startsObject(br); err != nil {
			return nil, fmt.Errorf("%s: not %s (a JSON object): %w", path, what, err)
		}
	}
	// A file of known size is read into a slice one byte larger, which
	// the end of file then finds unfilled: bytes.Buffer would double a
	// large spec's buffer (and clear the new half) to make room for a
	// read that returns nothing.
	n := 512
	if size >= 0 {
		if size >= math.MaxInt {
			return nil, tooLarge(path, math.MaxInt-1, what)
		}
		n = int(size) + 1
	}
	buf := make([]byte, 0, n)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		m, err := br.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
	}
	if int64(len(buf)) > limit {
		return nil, tooLarge(path, limit, what)
	}
	return buf, nil
}

// startsObject checks, without consuming it, that what br holds begins
// with '{' after white space and a byte-order mark.
func startsObject(br *bufio.Reader) error {
	head, err := br.Peek(br.Size())
	if len(head) == 0 {
		if err == io.EOF || err == nil {
			return errors.New("the file is empty")
		}
		return err
	}
	return headStartsObject(head, len(head) < br.Size())
}

// startsObjectBytes is startsObject for the whole of a file.
func startsObjectBytes(data []byte) error {
	if len(data) == 0 {
		return errors.New("the file is empty")
	}
	return headStartsObject(data[:min(len(data), 4096)], len(data) < 4096)
}

// headStartsObject checks the first bytes of a file, head, which are all
// of it if whole.
func headStartsObject(head []byte, whole bool) error {
	rest := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch {
	case len(rest) == 0 && whole:
		return errors.New("the file holds only white space")
	case len(rest) == 0:
		return errors.New("it starts with 4 KiB of white space")
	case rest[0] != '{':
		return fmt.Errorf("it starts with %q", rest[:min(len(rest), 8)])
	case bytes.HasPrefix(rest, []byte(`{"licorice_trace"`)):
		return errors.New("it is a licorice trace")
	}
	return nil
}

func tooLarge(path string, limit int64, what string) error {
	return fmt.Errorf("%s: larger than %s, more than %s may hold", path, size(limit), what)
}

// size writes n bytes the way people read it.
func size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
