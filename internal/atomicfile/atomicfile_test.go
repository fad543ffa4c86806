package atomicfile

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// write creates dest, writes data and commits (or aborts).
func write(t *testing.T, dest, data string, commit bool) error {
	t.Helper()
	f, err := Create(dest)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
	if !commit {
		f.Abort()
		return nil
	}
	return f.Commit()
}

// noTemps fails if dir holds a temporary file.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestRegularFiles(t *testing.T) {
	tests := []struct {
		name     string
		existing fs.FileMode // 0: no file before
		commit   bool
		want     string // "" means the file must not exist
		wantMode fs.FileMode
	}{
		{"new, committed", 0, true, "data", 0o644},
		{"new, aborted", 0, false, "", 0},
		{"existing 0600 keeps its mode", 0o600, true, "data", 0o600},
		{"existing 0755 keeps its mode", 0o755, true, "data", 0o755},
		{"existing, aborted, is untouched", 0o640, false, "old", 0o640},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			dest := filepath.Join(dir, "x.out")
			if tt.existing != 0 {
				if err := os.WriteFile(dest, []byte("old"), tt.existing); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(dest, tt.existing); err != nil { // beyond the umask
					t.Fatal(err)
				}
			}
			if err := write(t, dest, "data", tt.commit); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(dest)
			switch {
			case tt.want == "" && !os.IsNotExist(err):
				t.Fatalf("aborted file exists (err %v)", err)
			case tt.want != "" && string(got) != tt.want:
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
			if tt.want != "" {
				info, err := os.Stat(dest)
				if err != nil {
					t.Fatal(err)
				}
				if info.Mode().Perm() != tt.wantMode {
					t.Errorf("mode %v, want %v", info.Mode().Perm(), tt.wantMode)
				}
			}
			noTemps(t, dir)
		})
	}
}

func TestSymlinkIsFollowed(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.out")
	link := filepath.Join(dir, "link.out")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.out", link); err != nil {
		t.Fatal(err)
	}
	if err := write(t, link, "data", true); err != nil {
		t.Fatal(err)
	}
	info, err := os.Lstat(link)
	if err != nil || info.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v, %v", info.Mode(), err)
	}
	got, _ := os.ReadFile(target)
	if string(got) != "data" {
		t.Errorf("target holds %q, want the new data", got)
	}
	if info, _ := os.Stat(target); info.Mode().Perm() != 0o600 {
		t.Errorf("target's mode %v, want 0600 kept", info.Mode().Perm())
	}
	noTemps(t, dir)
}

func TestRefused(t *testing.T) {
	dir := t.TempDir()
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink("nowhere", dangling); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dest, want string
	}{
		{"a directory", dir, "is a directory"},
		{"a link to nothing", dangling, "symbolic link to a missing file"},
		{"no name", "", "no file name"},
		{"a missing directory", filepath.Join(dir, "no", "x.out"), "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Create(tt.dest)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Create(%q) = %v, want an error with %q", tt.dest, err, tt.want)
			}
			if info, err := os.Lstat(dangling); err != nil || info.Mode()&fs.ModeSymlink == 0 {
				t.Fatalf("the dangling link was touched")
			}
		})
	}
}

// A FIFO (like a device) is written into, never replaced by a file; so
// is one named by a symbolic link (as /dev/stdout names a pipe).
func TestFIFOIsWrittenInto(t *testing.T) {
	for _, viaLink := range []bool{false, true} {
		t.Run("link="+strconv.FormatBool(viaLink), func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "pipe")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			dest := fifo
			if viaLink {
				dest = filepath.Join(dir, "stdout")
				if err := os.Symlink(fifo, dest); err != nil {
					t.Fatal(err)
				}
			}
			got := make(chan string)
			go func() {
				r, err := os.Open(fifo)
				if err != nil {
					got <- err.Error()
					return
				}
				defer r.Close()
				b, _ := io.ReadAll(r)
				got <- string(b)
			}()
			if err := write(t, dest, "data", true); err != nil {
				t.Fatal(err)
			}
			if s := <-got; s != "data" {
				t.Errorf("read %q from the FIFO, want data", s)
			}
			info, err := os.Lstat(fifo)
			if err != nil || info.Mode()&fs.ModeNamedPipe == 0 {
				t.Fatalf("the FIFO was replaced: %v, %v", info.Mode(), err)
			}
			if info, err := os.Lstat(dest); viaLink && (err != nil || info.Mode()&fs.ModeSymlink == 0) {
				t.Fatalf("the link was replaced: %v, %v", info.Mode(), err)
			}
			noTemps(t, dir)
		})
	}
}

// Temporary files of a process that is gone (killed) are removed by the
// next Create of the same output; a live process's are not.
func TestStaleTempsRemoved(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, ".x.out.tmp-999999999-123")                     // no such process
	live := filepath.Join(dir, ".x.out.tmp-"+strconv.Itoa(os.Getppid())+"-456") // the test's parent
	other := filepath.Join(dir, ".y.out.tmp-999999999-789")                     // another output's
	for _, p := range []string{stale, live, other} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := write(t, filepath.Join(dir, "x.out"), "data", true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale temporary file kept: %v", err)
	}
	for _, p := range []string{live, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", filepath.Base(p), err)
		}
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.json")
	if err := os.WriteFile(in, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.json")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dest, want string // want "" for no error
	}{
		{"a new file", filepath.Join(dir, "out.json"), ""},
		{"the input itself", in, "is also an input"},
		{"the input by another name", hard, "is also an input"},
		{"the input through ./", filepath.Join(dir, ".", "in.json"), "is also an input"},
		{"a directory", dir, "is a directory"},
		{"in a missing directory", filepath.Join(dir, "no", "out.json"), "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.dest, "-", in)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Check(%q) = %v", tt.dest, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Check(%q) = %v, want an error with %q", tt.dest, err, tt.want)
			}
		})
	}
}

// A scratch file named with TempPrefix is removed like a temporary file
// once its process is gone, with the notes file beside it.
func TestTempPrefix(t *testing.T) {
	dir := t.TempDir()
	p := TempPrefix("x.lct")
	if !strings.HasPrefix(p, ".x.lct.tmp-"+strconv.Itoa(os.Getpid())+"-") {
		t.Fatalf("TempPrefix = %q", p)
	}
	dead := filepath.Join(dir, ".x.lct.tmp-999999999-raw-123")
	for _, f := range []string{dead, dead + ".notes"} {
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := write(t, filepath.Join(dir, "x.lct"), "data", true); err != nil {
		t.Fatal(err)
	}
	noTemps(t, dir)
}
