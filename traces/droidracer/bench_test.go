package droidracer

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/licorice-dev/licorice/traces"
)

// plainLog returns the uncompressed text of a test log.
func plainLog(b *testing.B, app string) []byte {
	b.Helper()
	f, err := os.Open(filepath.Join("testdata", app+".abc_log.txt.zst"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	zr, err := zstd.NewReader(f)
	if err != nil {
		b.Fatal(err)
	}
	defer zr.Close()
	data, err := io.ReadAll(zr)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkRead parses the Adobe Reader log (2.8 MB, 34,865 lines).
func BenchmarkRead(b *testing.B) {
	data := plainLog(b, "adobe-reader")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Read(context.Background(), bytes.NewReader(data), "log"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkImport maps the parsed Adobe Reader log to 33,845 ops and
// writes them as JSON Lines.
func BenchmarkImport(b *testing.B) {
	data := plainLog(b, "adobe-reader")
	l, err := Read(context.Background(), bytes.NewReader(data), "log")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		syms := traces.NewSymbols()
		w, err := traces.NewWriter(io.Discard, traces.JSONL, Header(""), syms)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := l.Import(context.Background(), w, syms); err != nil {
			b.Fatal(err)
		}
		w.Close()
	}
}

// BenchmarkImportLarge imports a log ten times the Adobe Reader one: the
// trace part repeated with fresh ids (a check that cost grows linearly).
func BenchmarkImportLarge(b *testing.B) {
	if testing.Short() {
		b.Skip("large log")
	}
	data := string(plainLog(b, "adobe-reader"))
	trace, _, _ := strings.Cut(data, " HB Graph")
	var sb strings.Builder
	for k := range 10 {
		sb.WriteString(shiftIDs(trace, int64(k)*1_000_000))
	}
	big := sb.String()
	b.SetBytes(int64(len(big)))
	for b.Loop() {
		l, err := Read(context.Background(), strings.NewReader(big), "log")
		if err != nil {
			b.Fatal(err)
		}
		syms := traces.NewSymbols()
		w, _ := traces.NewWriter(io.Discard, traces.JSONL, Header(""), syms)
		if _, err := l.Import(context.Background(), w, syms); err != nil {
			b.Fatal(err)
		}
		w.Close()
	}
}

// shiftIDs adds off to every op id, rwId, msg, tid and thread id of a
// trace part, so that copies of it are one log of distinct threads and
// messages.
func shiftIDs(trace string, off int64) string {
	if off == 0 {
		return trace
	}
	var sb strings.Builder
	for line := range strings.Lines(trace) {
		toks := strings.Fields(line)
		for i, tok := range toks {
			k, v, ok := strings.Cut(tok, ":")
			if !ok && i == 0 {
				if n, err := parseInt(tok); err == nil {
					toks[i] = itoa(n + off)
				}
				continue
			}
			switch k {
			case "rwId", "msg", "tid", "src", "par-tid", "child-tid", "notifiedTid", "accessId":
				num, rest := v, ""
				if j := strings.Index(v, "thread-name"); j >= 0 {
					num, rest = v[:j], v[j:]
				}
				if n, err := parseInt(num); err == nil {
					toks[i] = k + ":" + itoa(n+off) + rest
				}
			}
		}
		sb.WriteString(strings.Join(toks, " "))
		sb.WriteString("\n")
	}
	return sb.String()
}

func parseInt(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) }
