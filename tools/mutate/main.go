// Command mutate is licorice's mutation campaign: it feeds mutated traces,
// specs, template files, allow lists and DroidRacer logs through every
// command that reads them, each run under a timeout, and counts what
// should never happen: a panic, a hang, a memory blow-up, and an error
// that does not say where.
//
//	go build -o /tmp/licorice ./cmd/licorice
//	go run ./tools/mutate -bin /tmp/licorice -n 100
//
// The same -seed makes the same inputs. Inputs that panicked, hung or blew
// up are kept under -keep. docs/reliability.md has the last campaign's
// figures.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/klauspost/compress/zstd"
)

// seed is an input to mutate: its kind decides the commands it goes
// through.
type seed struct {
	kind, path string
}

// command is one way of running licorice on an input of a kind; IN
// stands for the mutated file.
type command struct {
	kind string
	args []string
}

// job is a command to run on a mutated input.
type job struct {
	cmd   command
	input string
}

func main() {
	bin := flag.String("bin", "", "the licorice binary to run (required)")
	n := flag.Int("n", 100, "mutants per seed")
	seedFlag := flag.Uint64("seed", 1, "seed of the mutations")
	timeout := flag.Duration("timeout", 20*time.Second, "a run longer than this is a hang")
	memLimit := flag.Int64("mem", 1<<30, "a run whose max RSS passes this many bytes is a blow-up")
	jobs := flag.Int("j", 2, "runs at once")
	keep := flag.String("keep", "", "a directory to keep the inputs that panicked, hung or blew up")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "mutate: -bin is required (go build -o /tmp/licorice ./cmd/licorice)")
		os.Exit(2)
	}
	if err := run(*bin, *n, *seedFlag, *timeout, *memLimit, *jobs, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(1)
	}
}

func run(bin string, n int, seedNum uint64, timeout time.Duration, memLimit int64, jobs int, keep string) error {
	work, err := os.MkdirTemp("", "licorice-mutate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	const (
		trace = "detect/testdata/demo.jsonl"
		spec  = "detect/testdata/demo.spec.json"
	)
	// The seeds: every form a user hands licorice.
	lct := filepath.Join(work, "demo.lct")
	zst := filepath.Join(work, "demo.jsonl.zst")
	for _, out := range []string{lct, zst} {
		if b, err := exec.Command(bin, "traces", "convert", trace, out).CombinedOutput(); err != nil {
			return fmt.Errorf("convert %s: %v: %s", out, err, b)
		}
	}
	log := filepath.Join(work, "RemindMe.abc_log.txt")
	if err := unzstd("traces/droidracer/testdata/RemindMe.abc_log.txt.zst", log); err != nil {
		return err
	}
	allow := filepath.Join(work, "allow.txt")
	rules := "# handlers, classes and conditions known to commute\npair Act.onLoad Act.refresh\ncondition this.q != null\nhandler Nothing.matches\nclass Act*\n"
	if err := os.WriteFile(allow, []byte(rules), 0o644); err != nil {
		return err
	}
	seeds := []seed{
		{"trace", trace}, {"trace", "cmd/licorice/testdata/learn/box.jsonl"}, {"trace", lct}, {"trace", zst},
		{"spec", spec}, {"spec", "cmd/licorice/testdata/learn/box.spec.json"},
		{"templates", "cmd/licorice/testdata/learn/templates.json"},
		{"allow", allow},
		{"droidracer", log},
	}
	commands := []command{
		{"trace", []string{"traces", "validate", "IN"}},
		{"trace", []string{"traces", "stat", "IN"}},
		{"trace", []string{"races", "--summary", "IN"}},
		{"trace", []string{"detect", "--spec", spec, "IN"}},
		{"trace", []string{"learn", "IN", "-o", "-"}},
		{"spec", []string{"spec", "show", "IN"}},
		{"spec", []string{"spec", "check", "IN", trace}},
		{"spec", []string{"detect", "--spec", "IN", trace}},
		{"templates", []string{"templates", "check", "IN"}},
		{"templates", []string{"learn", trace, "-o", "-", "--templates", "IN"}},
		{"allow", []string{"detect", "--spec", spec, "--allow", "IN", trace}},
		{"droidracer", []string{"traces", "import", "--from", "droidracer", "IN", "--format", "jsonl", "-o", "/dev/null"}},
	}
	rng := rand.New(rand.NewPCG(seedNum, 0x6c6963))
	var todo []job
	for si, s := range seeds {
		orig, err := os.ReadFile(s.path)
		if err != nil {
			return err
		}
		ext := filepath.Ext(s.path)
		if strings.HasSuffix(s.path, ".jsonl.zst") || strings.HasSuffix(s.path, ".txt.zst") {
			ext = ".zst"
		}
		for i := range n {
			p := filepath.Join(work, fmt.Sprintf("s%d-%04d%s", si, i, ext))
			if err := os.WriteFile(p, mutate(rng, orig), 0o644); err != nil {
				return err
			}
			for _, c := range commands {
				if c.kind == s.kind {
					todo = append(todo, job{c, p})
				}
			}
		}
	}
	results := make([]result, len(todo))
	var wg sync.WaitGroup
	next := make(chan int)
	for range jobs {
		wg.Go(func() {
			for i := range next {
				results[i] = runOne(bin, todo[i].cmd, todo[i].input, timeout, memLimit)
			}
		})
	}
	start := time.Now()
	for i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	if keep != "" {
		if err := os.MkdirAll(keep, 0o755); err != nil {
			return err
		}
		for i, r := range results {
			if r.bad() {
				data, _ := os.ReadFile(todo[i].input)
				os.WriteFile(filepath.Join(keep, filepath.Base(todo[i].input)), data, 0o644)
			}
		}
	}
	report(os.Stdout, todo, results, len(seeds), n, time.Since(start))
	for _, r := range results {
		if r.bad() {
			return errors.New("some runs panicked, hung or blew up")
		}
	}
	return nil
}

// result is what one run did.
type result struct {
	code     int
	panicked bool
	hung     bool
	blewUp   bool
	maxRSS   int64
	// unplaced is the first line of an error that names no file and line
	// (exit 1 without "FILE:LINE"), or "".
	unplaced string
}

func (r result) bad() bool { return r.panicked || r.hung || r.blewUp }

// placed matches an error that says where: FILE:LINE (and :COL), or a
// path followed by what is wrong with it.
var placed = regexp.MustCompile(`[^\s:]+:\d+|/\S+: |\S+\.(jsonl|lct|zst|json|txt|golden)\b`)

func runOne(bin string, c command, input string, timeout time.Duration, memLimit int64) result {
	args := make([]string, len(c.args))
	for i, a := range c.args {
		if a == "IN" {
			a = input
		}
		args[i] = a
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &limitedBuffer{buf: &stdout, max: 1 << 16}
	cmd.Stderr = &limitedBuffer{buf: &stderr, max: 1 << 16}
	err := cmd.Run()
	var r result
	if ctx.Err() != nil {
		r.hung = true
	}
	if cmd.ProcessState != nil {
		if st, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.maxRSS = st.Maxrss << 10
			r.blewUp = r.maxRSS > memLimit
		}
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	}
	msg := stderr.String()
	r.panicked = strings.Contains(msg, "panic:") || strings.Contains(msg, "goroutine 1 [")
	// traces validate lists its errors on standard output.
	if r.code == 1 && !r.hung && !placed.MatchString(msg) && !placed.MatchString(stdout.String()) {
		r.unplaced, _, _ = strings.Cut(strings.TrimSpace(msg), "\n")
	}
	return r
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// report prints the campaign's figures per command.
func report(w *os.File, todo []job, results []result, seeds, n int, took time.Duration) {
	type stats struct {
		runs, panics, hangs, blowups int
		codes                        map[int]int
		maxRSS                       int64
		unplaced                     map[string]int
	}
	by := map[string]*stats{}
	var names []string
	total := &stats{codes: map[int]int{}, unplaced: map[string]int{}}
	for i, r := range results {
		name := strings.Join(todo[i].cmd.args, " ")
		s := by[name]
		if s == nil {
			s = &stats{codes: map[int]int{}, unplaced: map[string]int{}}
			by[name] = s
			names = append(names, name)
		}
		for _, s := range []*stats{s, total} {
			s.runs++
			s.codes[r.code]++
			s.maxRSS = max(s.maxRSS, r.maxRSS)
			if r.panicked {
				s.panics++
			}
			if r.hung {
				s.hangs++
			}
			if r.blewUp {
				s.blowups++
			}
			if r.unplaced != "" {
				s.unplaced[r.unplaced]++
			}
		}
	}
	codes := func(m map[int]int) string {
		var ks []int
		for k := range m {
			ks = append(ks, k)
		}
		sort.Ints(ks)
		var parts []string
		for _, k := range ks {
			parts = append(parts, fmt.Sprintf("%d: %d", k, m[k]))
		}
		return strings.Join(parts, ", ")
	}
	count := func(m map[string]int) int {
		n := 0
		for _, v := range m {
			n += v
		}
		return n
	}
	fmt.Fprintf(w, "%d runs (%d seeds x %d mutants, through the commands that read them) in %v\n\n", total.runs, seeds, n, took.Round(time.Second))
	fmt.Fprintf(w, "| command | runs | exit codes | panics | hangs | blow-ups | max RSS | errors without a place |\n|---|---|---|---|---|---|---|---|\n")
	for _, name := range names {
		s := by[name]
		fmt.Fprintf(w, "| `%s` | %d | %s | %d | %d | %d | %d MiB | %d |\n", name, s.runs, codes(s.codes), s.panics, s.hangs, s.blowups, s.maxRSS>>20, count(s.unplaced))
	}
	fmt.Fprintf(w, "| all | %d | %s | %d | %d | %d | %d MiB | %d |\n", total.runs, codes(total.codes), total.panics, total.hangs, total.blowups, total.maxRSS>>20, count(total.unplaced))
	if len(total.unplaced) > 0 {
		fmt.Fprintf(w, "\nErrors without a place (distinct first lines, most frequent first):\n\n")
		type kv struct {
			msg string
			n   int
		}
		var list []kv
		for m, c := range total.unplaced {
			list = append(list, kv{m, c})
		}
		sort.Slice(list, func(i, j int) bool {
			if list[i].n != list[j].n {
				return list[i].n > list[j].n
			}
			return list[i].msg < list[j].msg
		})
		for i, e := range list {
			if i == 15 {
				fmt.Fprintf(w, "- … and %d more\n", len(list)-i)
				break
			}
			fmt.Fprintf(w, "- %d × `%s`\n", e.n, e.msg)
		}
	}
}

// mutate returns a changed copy of data: one to four edits chosen among
// byte changes, cuts, copies and the values that break parsers (huge
// numbers, long strings, deep nesting, special numbers).
func mutate(rng *rand.Rand, data []byte) []byte {
	out := bytes.Clone(data)
	pos := func() int { return rng.IntN(len(out) + 1) }
	insert := func(b []byte) {
		p := pos()
		out = append(out[:p], append(bytes.Clone(b), out[p:]...)...)
	}
	specials := [][]byte{
		[]byte("1e308"), []byte("-1e308"), []byte("9223372036854775808"), []byte("-1"), []byte("0"),
		[]byte("null"), []byte(`""`), []byte("NaN"), []byte("\u0000"), []byte("\xff\xfe"), []byte("\ufeff"),
		[]byte("\n"), []byte(`"` + strings.Repeat("x", 1<<16) + `"`), bytes.Repeat([]byte("["), 1<<12),
		bytes.Repeat([]byte("-"), 1<<12), []byte(strings.Repeat("9", 400)),
	}
	for range 1 + rng.IntN(4) {
		if len(out) == 0 {
			out = append(out, '{')
		}
		switch rng.IntN(8) {
		case 0: // change a byte
			out[rng.IntN(len(out))] = byte(rng.IntN(256))
		case 1: // flip a bit
			out[rng.IntN(len(out))] ^= 1 << rng.IntN(8)
		case 2: // cut a piece
			a := rng.IntN(len(out))
			b := min(len(out), a+1+rng.IntN(64))
			out = append(out[:a], out[b:]...)
		case 3: // copy a piece elsewhere
			a := rng.IntN(len(out))
			b := min(len(out), a+1+rng.IntN(256))
			insert(out[a:b])
		case 4: // truncate
			out = out[:rng.IntN(len(out))]
		case 5, 6: // a value that breaks parsers, in place of a number or anywhere
			sp := specials[rng.IntN(len(specials))]
			if locs := digits.FindAllIndex(out, -1); len(locs) > 0 && rng.IntN(2) == 0 {
				l := locs[rng.IntN(len(locs))]
				out = append(out[:l[0]], append(bytes.Clone(sp), out[l[1]:]...)...)
			} else {
				insert(sp)
			}
		case 7: // repeat a line many times
			lines := bytes.SplitAfter(out, []byte("\n"))
			l := lines[rng.IntN(len(lines))]
			insert(bytes.Repeat(l, 1+rng.IntN(200)))
		}
	}
	return out
}

var digits = regexp.MustCompile(`-?\d+(\.\d+)?`)

// unzstd decompresses the file src into dst.
func unzstd(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	dec, err := zstd.NewReader(nil)
	if err != nil {
		return err
	}
	defer dec.Close()
	out, err := dec.DecodeAll(data, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	return os.WriteFile(dst, out, 0o644)
}
