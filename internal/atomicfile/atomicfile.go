// Package atomicfile writes files that appear whole or not at all: the data
// goes to a temporary file beside the destination, which is renamed over it
// only when the writer commits. A failed run leaves no half-written output.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// File is an output file in the making.
type File struct {
	*os.File
	dest string
	done bool
}

// Create starts writing the file at dest. Call Commit to put it in place,
// or Abort (safe to defer) to drop it.
func Create(dest string) (*File, error) {
	dir, base := filepath.Split(dest)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", dest, err)
	}
	return &File{File: f, dest: dest}, nil
}

// Commit syncs and closes the file and renames it to its destination.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("%s: already committed or aborted", f.dest)
	}
	f.done = true
	tmp := f.Name()
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", f.dest, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", f.dest, err)
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", f.dest, err)
	}
	if err := os.Rename(tmp, f.dest); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", f.dest, err)
	}
	return nil
}

// Abort drops the file unless it was committed. It is safe to call after
// Commit, so it can be deferred.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.Close()
	os.Remove(f.Name())
}
