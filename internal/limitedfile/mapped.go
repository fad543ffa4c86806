package limitedfile

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
)

// View calls fn with the contents of the file at path, as Read returns
// them, or an error as Read does. A regular file is mapped into memory
// rather than read where the system allows it: a large file is then
// neither copied nor given fresh memory, which for a spec of hundreds of
// megabytes is most of the time of reading it. fn must not keep data, or
// any slice of it, after it returns; strings made from it are copies.
//
// If the file shrinks while fn reads it (another program truncates it),
// the fault is caught: View returns an error and fn's work is lost.
func View(path string, limit int64, what string, fn func(data []byte) error) error {
	return view(path, limit, what, false, fn)
}

// ViewJSONObject is View for a file that holds a JSON object, checked as
// ReadJSONObject does.
func ViewJSONObject(path string, limit int64, what string, fn func(data []byte) error) error {
	return view(path, limit, what, true, fn)
}

func view(path string, limit int64, what string, object bool, fn func(data []byte) error) (err error) {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	// Read says what is wrong with a file, and reads what is no regular
	// file or cannot be mapped.
	readInstead := func() error {
		data, err := read(path, limit, what, object)
		if err != nil {
			return err
		}
		return fn(data)
	}
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() == 0 || info.Size() > limit {
		return readInstead()
	}
	data, unmap, err := mapFile(f, info.Size())
	if err != nil {
		return readInstead()
	}
	defer unmap()
	if object {
		if err := startsObjectBytes(data); err != nil {
			return fmt.Errorf("%s: not %s (a JSON object): %w", path, what, err)
		}
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			err = fmt.Errorf("read %s: %w", path, errShrank)
		}
	}()
	return fn(data)
}

var errShrank = errors.New("the file shrank while it was read (did another program write it?)")
