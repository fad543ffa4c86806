package learn

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/licorice-dev/licorice/internal/atomicfile"
	"github.com/licorice-dev/licorice/invariants"
)

// Daikon files, so the same samples can be fed to Daikon and its results
// compared with licorice's (../shared/notes/daikon.md, Daikon's manual):
//
//   - licorice.decls declares one program point per handler, HANDLER:::POINT
//     with ppt-type point, and its variables: every datum the handler's
//     samples named, in name order, with the rep-type of its values (int,
//     double, boolean, java.lang.String, or hashcode for pointers) and a
//     comparability number per abstract type (the connected components of
//     the pairs the learner compared);
//   - licorice.dtrace has one record per sample, in trace order, listing
//     every declared variable: its value and modified bit 1, or
//     "nonsensical" and 2 when the sample has no value of that type;
//   - names.tsv maps each Daikon variable name to the licorice name: Daikon
//     reads characters such as '#', ':', '@' and '[' in names as syntax, so
//     they are replaced by '_' (and clashes numbered).
//
// Run Daikon on them with
//
//	java daikon.Daikon --conf_limit 0.99 licorice.decls licorice.dtrace

// WriteDaikon writes the samples kept by a learning run (Options.KeepSamples)
// as Daikon files in dir, which it creates if missing.
func WriteDaikon(dir string, res *Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("daikon: %w", err)
	}
	pts := daikonPoints(res)
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"licorice.decls", func(w io.Writer) error { return writeDecls(w, pts) }},
		{"licorice.dtrace", func(w io.Writer) error { return writeDtrace(w, pts, res) }},
		{"names.tsv", func(w io.Writer) error { return writeNames(w, pts) }},
	}
	for _, f := range files {
		if err := writeAtomic(filepath.Join(dir, f.name), f.write); err != nil {
			return fmt.Errorf("daikon: %w", err)
		}
	}
	return nil
}

func writeAtomic(path string, write func(io.Writer) error) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}

// point is a handler's program point.
type point struct {
	handler string
	vars    []daikonVar
	index   map[string]int // licorice name -> index in vars
}

type daikonVar struct {
	name, daikonName string
	rep              string // int, double, boolean, java.lang.String, hashcode
	comparability    int
}

func daikonPoints(res *Result) []*point {
	byHandler := map[string]*point{}
	for _, ts := range res.Kept {
		for _, s := range ts.Samples {
			p := byHandler[s.Handler]
			if p == nil {
				p = &point{handler: s.Handler, index: map[string]int{}}
				byHandler[s.Handler] = p
			}
			for _, v := range s.Vars {
				if _, ok := p.index[v.Name]; !ok {
					p.index[v.Name] = -1
				}
			}
		}
	}
	var pts []*point
	for _, p := range byHandler {
		names := make([]string, 0, len(p.index))
		for n := range p.index {
			names = append(names, n)
		}
		slices.Sort(names)
		var st *invariants.State
		if h := res.Spec.Handler(p.handler); h != nil {
			st = h.LearningState()
		}
		comp := comparability(st, names)
		used := map[string]int{}
		for i, n := range names {
			p.index[n] = i
			p.vars = append(p.vars, daikonVar{name: n, daikonName: daikonName(n, used), rep: repType(st, n), comparability: comp[n]})
		}
		pts = append(pts, p)
	}
	slices.SortFunc(pts, func(a, b *point) int { return strings.Compare(a.handler, b.handler) })
	return pts
}

// comparability numbers the abstract types: data the learner compared (a
// pair state exists) are in one class.
func comparability(st *invariants.State, names []string) map[string]int {
	parent := map[string]string{}
	var find func(string) string
	find = func(s string) string {
		if p, ok := parent[s]; ok && p != s {
			r := find(p)
			parent[s] = r
			return r
		}
		return s
	}
	if st != nil {
		for _, p := range st.Pairs {
			a, b := find(p.X), find(p.Y)
			if a != b {
				parent[b] = a
			}
		}
	}
	out := map[string]int{}
	class := map[string]int{}
	for _, n := range names {
		r := find(n)
		if _, ok := class[r]; !ok {
			class[r] = len(class) + 1
		}
		out[n] = class[r]
	}
	return out
}

// repType chooses the rep-type of a datum from the kinds of its values.
func repType(st *invariants.State, name string) string {
	if st == nil || st.Vars[name] == nil {
		return "hashcode"
	}
	s := st.Vars[name].Summary
	switch {
	case s.Int > 0 && s.Float == 0 && s.Int >= s.Bool && s.Int >= s.String:
		return "int"
	case s.Float > 0 && s.Float+s.Int >= s.Bool && s.Float+s.Int >= s.String:
		return "double"
	case s.Bool > 0 && s.Bool >= s.String && s.Bool >= s.Ref+s.Null:
		return "boolean"
	case s.String > 0 && s.String >= s.Ref:
		return "java.lang.String"
	}
	return "hashcode"
}

// daikonName makes a name Daikon reads as a plain variable.
func daikonName(name string, used map[string]int) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := strings.Trim(b.String(), ".")
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		s = "v_" + s
	}
	used[s]++
	if n := used[s]; n > 1 {
		s += "_" + strconv.Itoa(n)
		used[s]++
	}
	return s
}

func writeDecls(w io.Writer, pts []*point) error {
	fmt.Fprint(w, "decl-version 2.0\nvar-comparability implicit\n")
	for _, p := range pts {
		fmt.Fprintf(w, "\nppt %s:::POINT\nppt-type point\n", escapeName(p.handler))
		for _, v := range p.vars {
			dec := v.rep
			if dec == "hashcode" {
				dec = "java.lang.Object"
			}
			fmt.Fprintf(w, "variable %s\n  var-kind variable\n  dec-type %s\n  rep-type %s\n  comparability %d\n",
				v.daikonName, dec, v.rep, v.comparability)
		}
	}
	return nil
}

func writeDtrace(w io.Writer, pts []*point, res *Result) error {
	byHandler := map[string]*point{}
	for _, p := range pts {
		byHandler[p.handler] = p
	}
	var vals []*invariants.Value
	for _, ts := range res.Kept {
		for _, s := range ts.Samples {
			p := byHandler[s.Handler]
			vals = vals[:0]
			for range p.vars {
				vals = append(vals, nil)
			}
			for i := range s.Vars {
				vals[p.index[s.Vars[i].Name]] = &s.Vars[i].Val
			}
			fmt.Fprintf(w, "\n%s:::POINT\n", escapeName(p.handler))
			for i, v := range p.vars {
				text, ok := "", false
				if vals[i] != nil {
					text, ok = daikonValue(*vals[i], v.rep)
				}
				if ok {
					fmt.Fprintf(w, "%s\n%s\n1\n", v.daikonName, text)
				} else {
					fmt.Fprintf(w, "%s\nnonsensical\n2\n", v.daikonName)
				}
			}
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}

// daikonValue writes a value in the dtrace form of rep, if it has one.
func daikonValue(v invariants.Value, rep string) (string, bool) {
	switch rep {
	case "int":
		if v.Kind() == invariants.Int {
			return strconv.FormatInt(v.Int(), 10), true
		}
	case "double":
		if v.IsNumber() {
			f := v.Float()
			switch {
			case math.IsNaN(f):
				return "NaN", true
			case math.IsInf(f, 1):
				return "Infinity", true
			case math.IsInf(f, -1):
				return "-Infinity", true
			}
			return strconv.FormatFloat(f, 'g', -1, 64), true
		}
	case "boolean":
		if v.Kind() == invariants.Bool {
			return strconv.FormatBool(v.Bool()), true
		}
	case "java.lang.String":
		if v.Kind() == invariants.String {
			return strconv.Quote(v.Str()), true
		}
		if v.Kind() == invariants.Null {
			return "null", true
		}
	case "hashcode":
		switch v.Kind() {
		case invariants.Null:
			return "null", true
		case invariants.Ref:
			return strconv.FormatUint(v.RefID(), 10), true
		}
	}
	return "", false
}

// escapeName writes spaces in names as Daikon wants them.
func escapeName(s string) string { return strings.ReplaceAll(s, " ", `\_`) }

func writeNames(w io.Writer, pts []*point) error {
	fmt.Fprintln(w, "handler\tdaikon\tlicorice")
	for _, p := range pts {
		for _, v := range p.vars {
			fmt.Fprintf(w, "%s\t%s\t%s\n", p.handler, v.daikonName, v.name)
		}
	}
	return nil
}
