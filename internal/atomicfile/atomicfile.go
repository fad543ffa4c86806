package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// newFileMode is the mode of an output file that did not exist before.
const newFileMode fs.FileMode = 0o644

// File is an output file in the making.
type File struct {
	*os.File
	dest   string      // as the user named it
	target string      // where the data goes: dest, or the file a symlink names
	mode   fs.FileMode // the mode the file gets when committed
	direct bool        // written in place (a device, FIFO or socket): nothing to rename
	done   bool
}

// Create starts writing the output file dest. Call Commit to put it in
// place, or Abort (safe to defer) to drop it.
//
//   - A regular file (new or existing) is written to a temporary file
//     beside it, renamed over it on Commit: it appears whole or not at
//     all, and an existing file keeps its permission bits (a new one gets
//     0644).
//   - A symbolic link is followed: the file it names is replaced, the
//     link stays. A link to nothing is refused.
//   - A device, FIFO or socket (/dev/null, /dev/stdout, a pipe) is written
//     into, in place; it is never replaced by a regular file.
//   - A directory is refused.
//
// Temporary files are named .NAME.tmp-PID-RANDOM: Create removes those
// that a process no longer running left behind (killed before it could
// clean up).
func Create(dest string) (*File, error) {
	target, info, err := resolve(dest)
	if err != nil {
		return nil, err
	}
	if info != nil && !info.Mode().IsRegular() {
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("create %s: %w", dest, err)
		}
		return &File{File: f, dest: dest, target: target, direct: true}, nil
	}
	mode := newFileMode
	if info != nil {
		mode = info.Mode().Perm()
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	removeStale(dir, base)
	f, err := os.CreateTemp(dir, TempPrefix(base)+"*")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", dest, err)
	}
	return &File{File: f, dest: dest, target: target, mode: mode}, nil
}

// Check reports, before a long computation, whether Create(dest) is
// likely to succeed, and refuses a dest that is one of the command's
// inputs (the same file, under any name): writing it would destroy what
// is being read.
func Check(dest string, inputs ...string) error {
	target, info, err := resolve(dest)
	if err != nil {
		return err
	}
	if info == nil {
		dir := filepath.Dir(target)
		di, err := os.Stat(dir)
		if err != nil {
			return fmt.Errorf("create %s: %w", dest, err)
		}
		if !di.IsDir() {
			return fmt.Errorf("create %s: %s is not a directory", dest, dir)
		}
		return nil
	}
	for _, in := range inputs {
		if in == "" || in == "-" {
			continue
		}
		ii, err := os.Stat(in)
		if err == nil && os.SameFile(info, ii) {
			return fmt.Errorf("%s is also an input (%s): write the output elsewhere", dest, in)
		}
	}
	return nil
}

// resolve follows dest if it is a symbolic link and returns where the
// data goes and what is there now (nil if nothing).
func resolve(dest string) (string, fs.FileInfo, error) {
	if dest == "" {
		return "", nil, errors.New("create: no file name")
	}
	info, err := os.Lstat(dest)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return dest, nil, nil
	case err != nil:
		return "", nil, fmt.Errorf("create %s: %w", dest, err)
	}
	target := dest
	if info.Mode()&fs.ModeSymlink != 0 {
		info, err = os.Stat(dest)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "", nil, fmt.Errorf("create %s: a symbolic link to a missing file", dest)
		case err != nil:
			return "", nil, fmt.Errorf("create %s: %w", dest, err)
		}
		// A regular file is replaced where it is. Anything else is
		// opened through the link (/dev/stdout names a pipe or terminal
		// by a link that has no path to evaluate).
		if info.Mode().IsRegular() {
			if target, err = filepath.EvalSymlinks(dest); err != nil {
				return "", nil, fmt.Errorf("create %s: %w", dest, err)
			}
		}
	}
	if info.IsDir() {
		return "", nil, fmt.Errorf("create %s: is a directory", dest)
	}
	return target, info, nil
}

// TempPrefix is the name of the output file base's temporary files up to
// their random part: Create's own, and any scratch file that belongs to
// that output (os.CreateTemp(dir, TempPrefix(base)+"raw-*")), which the
// next Create of the output removes if this process was killed before it
// could.
func TempPrefix(base string) string {
	return "." + base + ".tmp-" + strconv.Itoa(os.Getpid()) + "-"
}

// removeStale removes base's temporary files in dir whose process is gone.
func removeStale(dir, base string) {
	prefix := "." + base + ".tmp-"
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || running(pid) {
			continue
		}
		os.Remove(filepath.Join(dir, e.Name()))
	}
}

// Commit puts the file in place: a temporary file is synced, given its
// mode and renamed to its destination; a file written in place is closed.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("%s: already committed or aborted", f.dest)
	}
	f.done = true
	if f.direct {
		if err := f.Close(); err != nil {
			return fmt.Errorf("write %s: %w", f.dest, err)
		}
		return nil
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", f.dest, err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	if err := os.Chmod(tmp, f.mode); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, f.target); err != nil {
		return fail(err)
	}
	return nil
}

// Abort drops the file unless it was committed (a file written in place
// is only closed: what was written stays). It is safe to call after
// Commit, so it can be deferred.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.Close()
	if !f.direct {
		os.Remove(f.Name())
	}
}
