package learn

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/licorice-dev/licorice/internal/atomicfile"
	"github.com/licorice-dev/licorice/internal/limitedfile"
	"github.com/licorice-dev/licorice/invariants"
	"github.com/licorice-dev/licorice/traces"
)

// SpecVersion is the version of the spec file format this package reads
// and writes.
const SpecVersion = 1

// Spec is a precondition specification: per handler, the conditions
// learned, and the learning state that lets specs learned on shards be
// merged. Its JSON form is the spec file (see the package doc).
type Spec struct {
	Params Params
	// Traces is the number of traces learned from.
	Traces int
	// Apps are the apps the traces recorded ("platform/app" of their
	// headers), and Inputs the traces themselves (the SHA-256 of each
	// file's bytes, 16 hex digits), both sorted: what the spec was learned
	// from, so that merging a spec with itself, or specs of different
	// apps, is told apart from merging shards. Specs from before they were
	// recorded have neither.
	Apps   []string
	Inputs []string
	// Templates are the user templates the spec was learned with (the
	// built-ins are implied); they travel with the spec so that its
	// conditions can be evaluated without the templates file.
	Templates []invariants.TemplateDecl
	// Handlers are sorted by name.
	Handlers []*Handler

	catalog *invariants.Catalog
	byName  map[string]*Handler
}

// Params are the learning parameters a spec was made with; specs merge
// only if theirs are equal.
type Params struct {
	// Limit is the largest chance a condition may have (--confidence).
	Limit float64 `json:"limit"`
	// MinSupport is the fewest samples a condition needs (--min-samples).
	MinSupport int64 `json:"min_samples"`
	// PartialState says that the learning state keeps only the data and
	// pairs of data met in at least MinSupport samples (learned without
	// Options.Mergeable): all the conditions need, but merged with
	// another spec's it would lack the samples of those each kept too few
	// of.
	PartialState bool `json:"partial_state,omitempty"`
}

func (p Params) options() invariants.Options {
	return invariants.Options{Limit: p.Limit, MinSupport: p.MinSupport}
}

// Handler is what the spec says about one event handler.
type Handler struct {
	Name       string
	Samples    int64 // invocations learned from
	Traces     int   // traces in which it ran
	Conditions []*Condition
	// State is the learning state read from a spec file, for merging;
	// nil in a spec stripped of it (such a spec can be used, not merged)
	// and in one learned in this process, which keeps its learner
	// instead: LearningState returns either.
	State   *invariants.State
	learner *invariants.Learner
}

// LearningState returns the handler's learning state: as read, or made
// from its learner (anew at each call: a spec writes one handler's at a
// time, rather than holding every handler's at once); nil if it has
// none.
func (h *Handler) LearningState() *invariants.State {
	if h.State == nil && h.learner != nil {
		return h.learner.State()
	}
	return h.State
}

// Condition is one precondition of a handler.
type Condition struct {
	Handler  string
	Template string
	Vars     []string // symbolic names, in the template's operand order
	// Guard, if set, names a datum the handler tests as a condition: the
	// condition is the implication "Guard ==> ..." (invariants.Condition).
	Guard string
	// A, B, Set and Pairs are the fitted constants (absent or nil when
	// the template has none).
	A, B       invariants.Value
	Set        []invariants.Value
	Pairs      []invariants.Point
	Support    int64   // samples it was checked on
	Confidence float64 // 1 - the chance that it held by accident
	// Disabled conditions are kept in the spec but not used.
	Disabled bool
	// Pinned conditions survive a merge even if the merged samples do not
	// support them (a user's decision).
	Pinned bool

	cond *invariants.Condition
}

// Text returns the condition in canonical form:
// "TrackDetailActivity.onUpdateResults: this.dataHub != null".
func (c *Condition) Text() string { return c.Handler + ": " + c.cond.Text() }

// Body returns the condition without its handler: "this.dataHub != null".
func (c *Condition) Body() string { return c.cond.Text() }

// Eval evaluates the condition on values of its Vars, in order, then its
// Guard's if it has one: whether it holds, and false ok if it cannot be
// decided (a value is absent).
func (c *Condition) Eval(vals []invariants.Value) (holds, ok bool) { return c.cond.Eval(vals) }

// EvalTrace is Eval on trace values; syms is their Symbols table.
func (c *Condition) EvalTrace(vals []traces.Value, syms *traces.Symbols) (holds, ok bool) {
	var buf [3]invariants.Value
	iv := buf[:0]
	for _, v := range vals {
		iv = append(iv, invariants.FromTrace(v, syms))
	}
	return c.cond.Eval(iv)
}

// key identifies a condition within its handler.
func (c *Condition) key() string { return c.Template + "|" + c.cond.Text() }

// Handler returns the handler of the given name, or nil.
func (sp *Spec) Handler(name string) *Handler { return sp.byName[name] }

// Catalog returns the templates the spec's conditions use.
func (sp *Spec) Catalog() *invariants.Catalog { return sp.catalog }

// Conditions returns every enabled condition, handler by handler.
func (sp *Spec) Conditions() []*Condition {
	var out []*Condition
	for _, h := range sp.Handlers {
		for _, c := range h.Conditions {
			if !c.Disabled {
				out = append(out, c)
			}
		}
	}
	return out
}

// newSpec makes a spec from learned handler states; apps and inputs are
// sorted and without duplicates.
func newSpec(cat *invariants.Catalog, p Params, ntraces int, apps, inputs []string, hs map[string]*handlerState) *Spec {
	sp := &Spec{Params: p, Traces: ntraces, Apps: apps, Inputs: inputs, Templates: cat.User(), catalog: cat}
	for name, h := range hs {
		sp.Handlers = append(sp.Handlers, handlerFrom(name, h.learner, h.traces, p))
	}
	sp.index()
	return sp
}

func handlerFrom(name string, l *invariants.Learner, ntraces int, p Params) *Handler {
	h := &Handler{Name: name, Samples: l.Samples(), Traces: ntraces, learner: l}
	for _, ic := range l.Infer(p.options()) {
		h.Conditions = append(h.Conditions, conditionFrom(name, ic))
	}
	return h
}

func conditionFrom(handler string, ic *invariants.Condition) *Condition {
	return &Condition{
		Handler: handler, Template: ic.Template.Name, Vars: ic.Vars, Guard: ic.Guard, A: ic.A, B: ic.B, Set: ic.Set, Pairs: ic.Pairs,
		Support: ic.Support, Confidence: 1 - ic.Chance, cond: ic,
	}
}

// Operands returns the names the condition is evaluated on: its Vars,
// then its Guard if it has one.
func (c *Condition) Operands() []string {
	if c.Guard == "" {
		return c.Vars
	}
	return append(slices.Clip(c.Vars), c.Guard)
}

// index sorts the handlers and builds the lookup table.
func (sp *Spec) index() {
	slices.SortFunc(sp.Handlers, func(a, b *Handler) int { return strings.Compare(a.Name, b.Name) })
	sp.byName = make(map[string]*Handler, len(sp.Handlers))
	for _, h := range sp.Handlers {
		sp.byName[h.Name] = h
	}
}

// --- The file form ---

type specJSON = specJSONOf[*invariants.State]

// specJSONOf is the file form of a spec, with S the form a handler's
// learning state is read in: whole (*invariants.State), or only the
// names of its data (*stateNames, for ReadOptions.SkipState).
type specJSONOf[S any] struct {
	Version   int                       `json:"licorice_spec"`
	Params    Params                    `json:"params"`
	Traces    int                       `json:"traces"`
	Apps      []string                  `json:"apps,omitempty"`
	Inputs    []string                  `json:"inputs,omitempty"`
	Templates []invariants.TemplateDecl `json:"templates,omitempty"`
	Handlers  []handlerJSONOf[S]        `json:"handlers"`
}

type handlerJSON = handlerJSONOf[*invariants.State]

type handlerJSONOf[S any] struct {
	Handler    string          `json:"handler"`
	Samples    int64           `json:"samples"`
	Traces     int             `json:"traces"`
	Conditions []conditionJSON `json:"conditions"`
	State      S               `json:"state,omitempty"`

	read map[string]skipJSON // without State: the names of the data the state says it read
}

// decodeSpec decodes a spec file's JSON into sp: a handler at a time
// (decodeSpecStream), and if that fails, at once, for an error that says
// where (line:col) and what is wrong.
func decodeSpec[S any](name string, data []byte, sp *specJSONOf[S]) error {
	if decodeSpecStream(data, sp) == nil {
		return nil
	}
	*sp = specJSONOf[S]{}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(sp); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			line, col := position(data, int(se.Offset)-1)
			return fmt.Errorf("spec %s:%d:%d: %v", name, line, col, se)
		case errors.As(err, &te):
			line, col := position(data, valueStart(data, int(te.Offset)))
			return fmt.Errorf("spec %s:%d:%d: %s: want %s, not a JSON %s", name, line, col, te.Field, jsonKind(te.Type), te.Value)
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			line, col := position(data, len(data))
			return fmt.Errorf("spec %s:%d:%d: unexpected end of file", name, line, col)
		}
		if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			if off := keyOffset(data, field); off >= 0 {
				line, col := position(data, off)
				return fmt.Errorf("spec %s:%d:%d: unknown field %s", name, line, col, field)
			}
		}
		return fmt.Errorf("spec %s: %v", name, err)
	}
	if dec.More() {
		return fmt.Errorf("spec %s: unexpected text after the spec", name)
	}
	return nil
}

// decodeSpecStream decodes a spec file's JSON into sp a handler at a
// time: a JSON decoder holds the whole of the value it decodes, so
// decoding the document at once held a copy of a large spec (hundreds of
// megabytes of learning state) besides the file's bytes. It is strict
// (exact keys, nothing after the document) and its errors say nothing
// useful: on any error, the caller decodes the document at once, which
// accepts the same and places its errors.
func decodeSpecStream[S any](data []byte, sp *specJSONOf[S]) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	delim := func(want json.Delim) error {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if t != want {
			return fmt.Errorf("want %v", want)
		}
		return nil
	}
	if err := delim('{'); err != nil {
		return err
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case "licorice_spec":
			err = dec.Decode(&sp.Version)
		case "params":
			err = dec.Decode(&sp.Params)
		case "traces":
			err = dec.Decode(&sp.Traces)
		case "apps":
			err = dec.Decode(&sp.Apps)
		case "inputs":
			err = dec.Decode(&sp.Inputs)
		case "templates":
			err = dec.Decode(&sp.Templates)
		case "handlers":
			if err = delim('['); err != nil {
				return err
			}
			sp.Handlers = []handlerJSONOf[S]{}
			for dec.More() {
				var h handlerJSONOf[S]
				if err := dec.Decode(&h); err != nil {
					return err
				}
				sp.Handlers = append(sp.Handlers, h)
			}
			err = delim(']')
		default:
			return fmt.Errorf("unknown field %v", t)
		}
		if err != nil {
			return err
		}
	}
	if err := delim('}'); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("text after the spec")
	}
	return nil
}

// stateNames is a handler's learning state as ReadOptions.SkipState reads
// it: scanned, and only the names of its data kept, for the checks of its
// conditions.
type stateNames struct {
	Samples int64               `json:"samples"`
	Vars    map[string]skipJSON `json:"vars,omitempty"`
	Pairs   skipJSON            `json:"pairs,omitempty"`
	Guards  skipJSON            `json:"guards,omitempty"`
}

// skipJSON is any JSON value, left unread.
type skipJSON struct{}

func (*skipJSON) UnmarshalJSON([]byte) error { return nil }

type conditionJSON struct {
	Text       string         `json:"text"`
	Template   string         `json:"template"`
	Vars       []string       `json:"vars"`
	Guard      string         `json:"guard,omitempty"`
	Constants  *constantsJSON `json:"constants,omitempty"`
	Support    int64          `json:"support"`
	Confidence float64        `json:"confidence"`
	Disabled   bool           `json:"disabled,omitempty"`
	Pinned     bool           `json:"pinned,omitempty"`
}

type constantsJSON struct {
	A *invariants.Value  `json:"a,omitempty"`
	B *invariants.Value  `json:"b,omitempty"`
	S []invariants.Value `json:"s,omitempty"`
	P []invariants.Point `json:"p,omitempty"`
}

// Encode writes the spec as canonical JSON, laid out for reading: one
// condition, template, datum state or pair state per line; handlers by
// name, conditions in the learner's order (by data, then template), maps by
// key. The same spec gives the same bytes.
func (sp *Spec) Encode(w io.Writer) error {
	e := newSpecWriter(w)
	e.line(0, "{")
	e.field(1, "licorice_spec", SpecVersion, ",")
	e.field(1, "params", sp.Params, ",")
	e.field(1, "traces", sp.Traces, ",")
	if len(sp.Apps) > 0 {
		e.field(1, "apps", sp.Apps, ",")
	}
	if len(sp.Inputs) > 0 {
		e.field(1, "inputs", sp.Inputs, ",")
	}
	if len(sp.Templates) > 0 {
		e.line(1, `"templates": [`)
		for i, d := range sp.Templates {
			e.item(2, d, comma(i, len(sp.Templates)))
		}
		e.line(1, "],")
	}
	if len(sp.Handlers) == 0 {
		e.line(1, `"handlers": []`)
	} else {
		e.line(1, `"handlers": [`)
		for i, h := range sp.Handlers {
			e.handler(h, comma(i, len(sp.Handlers)))
		}
		e.line(1, "]")
	}
	e.line(0, "}")
	return e.flush()
}

func comma(i, n int) string {
	if i < n-1 {
		return ","
	}
	return ""
}

// specWriter lays out a spec's JSON as it writes it: a large spec is
// never whole in memory. Its first error sticks.
type specWriter struct {
	w   *bufio.Writer
	tmp bytes.Buffer  // one value's compact JSON
	enc *json.Encoder // into tmp
	err error
}

func newSpecWriter(w io.Writer) *specWriter {
	e := &specWriter{w: bufio.NewWriterSize(w, 1<<16)}
	e.enc = json.NewEncoder(&e.tmp)
	e.enc.SetEscapeHTML(false)
	return e
}

// flush writes what is buffered and returns the first error.
func (e *specWriter) flush() error {
	if e.err == nil {
		e.err = e.w.Flush()
	}
	if e.err != nil {
		return fmt.Errorf("encode spec: %w", e.err)
	}
	return nil
}

func (e *specWriter) indent(depth int) {
	for range depth {
		e.w.WriteString("  ")
	}
}

func (e *specWriter) line(depth int, s string) {
	e.indent(depth)
	e.w.WriteString(s)
	e.w.WriteByte('\n')
}

// value writes v as one line of JSON, spaced after ':' and ',', without
// HTML escapes.
func (e *specWriter) value(v any) {
	e.tmp.Reset()
	err := e.enc.Encode(v)
	e.spaced(bytes.TrimSuffix(e.tmp.Bytes(), []byte("\n")), err)
}

// spaced writes b, one value's compact JSON, spaced after ':' and ',';
// or, if err (making b) is not nil, nothing but err, which sticks.
func (e *specWriter) spaced(b []byte, err error) {
	if err != nil {
		if e.err == nil {
			e.err = err
		}
		return
	}
	writeSpaced(e.w, b)
}

// writeSpaced writes b with a space after every ':' and ',' outside
// strings.
func writeSpaced(w *bufio.Writer, b []byte) {
	inString, escaped := false, false
	for _, c := range b {
		w.WriteByte(c)
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ':' || c == ','):
			w.WriteByte(' ')
		}
	}
}

func (e *specWriter) field(depth int, key string, v any, end string) {
	e.indent(depth)
	e.value(key)
	e.w.WriteString(": ")
	e.value(v)
	e.w.WriteString(end)
	e.w.WriteByte('\n')
}

func (e *specWriter) item(depth int, v any, end string) {
	e.indent(depth)
	e.value(v)
	e.w.WriteString(end)
	e.w.WriteByte('\n')
}

// pair writes a pair's state as an item at depth 5. Its MarshalJSON is
// called directly: through the encoder, its output would be checked and
// compacted again (a fifth of the time of writing a large state), and
// come out the same.
func (e *specWriter) pair(p *invariants.PairEntry, end string) {
	e.indent(5)
	e.spaced(p.MarshalJSON())
	e.w.WriteString(end)
	e.w.WriteByte('\n')
}

func (e *specWriter) handler(h *Handler, end string) {
	e.line(2, "{")
	e.field(3, "handler", h.Name, ",")
	e.field(3, "samples", h.Samples, ",")
	e.field(3, "traces", h.Traces, ",")
	st := h.LearningState()
	last := ","
	if st == nil {
		last = ""
	}
	if len(h.Conditions) == 0 {
		e.line(3, `"conditions": []`+last)
	} else {
		e.line(3, `"conditions": [`)
		for i, c := range h.Conditions {
			e.item(4, conditionToJSON(c), comma(i, len(h.Conditions)))
		}
		e.line(3, "]"+last)
	}
	if st != nil {
		e.line(3, `"state": {`)
		parts := 1
		if len(st.Vars) > 0 {
			parts++
		}
		if len(st.Pairs) > 0 {
			parts++
		}
		if len(st.Guards) > 0 {
			parts++
		}
		part := 1
		e.field(4, "samples", st.Samples, comma(0, parts))
		if len(st.Vars) > 0 {
			part++
			writeObject(e, "vars", st.Vars, comma(part-1, parts))
		}
		if len(st.Pairs) > 0 {
			part++
			e.line(4, `"pairs": [`)
			for i, p := range st.Pairs {
				e.pair(p, comma(i, len(st.Pairs)))
			}
			e.line(4, "]"+comma(part-1, parts))
		}
		if len(st.Guards) > 0 {
			writeObject(e, "guards", st.Guards, "")
		}
		e.line(3, "}")
	}
	e.line(2, "}"+end)
}

// writeObject writes a state's map as a field at depth 4, one entry per
// line in key order; end follows its closing brace.
func writeObject[V any](e *specWriter, name string, m map[string]V, end string) {
	e.line(4, `"`+name+`": {`)
	keys := slices.Sorted(maps.Keys(m))
	for i, k := range keys {
		e.field(5, k, m[k], comma(i, len(keys)))
	}
	e.line(4, "}"+end)
}

func conditionToJSON(c *Condition) conditionJSON {
	cj := conditionJSON{
		Text: c.Text(), Template: c.Template, Vars: c.Vars, Guard: c.Guard, Support: c.Support,
		Confidence: roundConfidence(c.Confidence), Disabled: c.Disabled, Pinned: c.Pinned,
	}
	var k constantsJSON
	if c.A.Kind() != invariants.Absent {
		k.A = &c.A
	}
	if c.B.Kind() != invariants.Absent {
		k.B = &c.B
	}
	k.S, k.P = c.Set, c.Pairs
	if k.A != nil || k.B != nil || k.S != nil || k.P != nil {
		cj.Constants = &k
	}
	return cj
}

// roundConfidence keeps 12 significant digits, so the file reads well and
// the same learning gives the same text.
func roundConfidence(c float64) float64 {
	if c <= 0 || c >= 1 {
		return c
	}
	const scale = 1e12
	return math.Round(c*scale) / scale
}

// WriteFile writes the spec to path, whole or not at all.
func (sp *Spec) WriteFile(path string) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := sp.Encode(f); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}

// MaxSpecSize bounds a spec file. Real specs take kilobytes to megabytes,
// but the learning state of a corpus whose handlers read thousands of
// data is hundreds of megabytes (a 10k-event trace of the app shape: a
// 672 MB spec), and what learn writes must read. Files are mapped, not
// read, and must start with '{': a wrong path still fails at once.
const MaxSpecSize = 4 << 30

// ReadSpecFile reads the spec file at path.
func ReadSpecFile(path string) (*Spec, error) {
	return ReadSpecFileWith(path, ReadOptions{})
}

// ReadSpec is ReadSpecFile for what r holds (standard input), named name
// in errors.
func ReadSpec(r io.Reader, name string) (*Spec, error) {
	return ReadSpecWith(r, name, ReadOptions{})
}

// ReadOptions say how much of a spec to read.
type ReadOptions struct {
	// SkipState leaves out the handlers' learning state (Handler.State is
	// nil), which only merging needs: it is most of a large spec's bytes,
	// and decoding it most of the time and memory of reading one. Its
	// JSON syntax is still checked, and the names of the data it lists,
	// against which conditions are checked.
	SkipState bool
}

// ReadSpecFileWith is ReadSpecFile with options.
func ReadSpecFileWith(path string, opts ReadOptions) (*Spec, error) {
	// Viewed, not read: parseSpec keeps copies of what it decodes.
	var sp *Spec
	var parseErr error
	err := limitedfile.ViewJSONObject(path, MaxSpecSize, "a spec", func(data []byte) error {
		sp, parseErr = parseSpec(path, data, opts)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read spec: %w", err)
	}
	return sp, parseErr
}

// ReadSpecWith is ReadSpec with options.
func ReadSpecWith(r io.Reader, name string, opts ReadOptions) (*Spec, error) {
	data, err := limitedfile.ReadJSONObjectFrom(r, name, MaxSpecSize, "a spec")
	if err != nil {
		return nil, fmt.Errorf("read spec: %w", err)
	}
	return parseSpec(name, data, opts)
}

// ParseSpec reads a spec from data, the contents of the file name. It
// checks everything a user editing the file could get wrong: JSON syntax
// (with line and column), the version, the templates, and that every
// condition names a template it fits, with the right number of data and
// constants. A condition's text is derived from them: an empty text is
// filled in, and one that says something else is an error.
func ParseSpec(name string, data []byte) (*Spec, error) {
	return parseSpec(name, data, ReadOptions{})
}

func parseSpec(name string, data []byte, opts ReadOptions) (*Spec, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("spec %s: %s", name, fmt.Sprintf(format, args...))
	}
	// failAt places the error at the value at path (keys and indexes).
	failAt := func(path []any, format string, args ...any) error {
		if off, ok := offsetOf(data, path...); ok {
			line, col := position(data, off)
			return fmt.Errorf("spec %s:%d:%d: %s", name, line, col, fmt.Sprintf(format, args...))
		}
		return fail(format, args...)
	}
	at := func(path ...any) []any { return path }
	var j specJSON
	var light specJSONOf[*stateNames]
	var err error
	if opts.SkipState {
		if err = decodeSpecSkim(data, &light); err != nil {
			light = specJSONOf[*stateNames]{}
			err = decodeSpec(name, data, &light)
		}
	} else {
		err = decodeSpec(name, data, &j)
	}
	if err != nil {
		return nil, err
	}
	if opts.SkipState {
		j = specJSON{Version: light.Version, Params: light.Params, Traces: light.Traces, Apps: light.Apps, Inputs: light.Inputs, Templates: light.Templates}
		if light.Handlers != nil {
			j.Handlers = make([]handlerJSON, len(light.Handlers))
		}
		for i, h := range light.Handlers {
			j.Handlers[i] = handlerJSON{Handler: h.Handler, Samples: h.Samples, Traces: h.Traces, Conditions: h.Conditions}
			if h.State != nil {
				j.Handlers[i].read = h.State.Vars
			}
		}
	}
	if j.Version != SpecVersion {
		return nil, failAt(at("licorice_spec"), "unsupported spec version %d (this licorice reads version %d; is it a spec file?)", j.Version, SpecVersion)
	}
	if !(j.Params.Limit > 0 && j.Params.Limit <= 1) {
		return nil, failAt(at("params", "limit"), "params: limit %v is not a probability in (0, 1]", j.Params.Limit)
	}
	if j.Params.MinSupport < 1 || j.Params.MinSupport > maxCount {
		return nil, failAt(at("params", "min_samples"), "params: min_samples %d is out of range 1..%d", j.Params.MinSupport, int64(maxCount))
	}
	if j.Traces < 0 {
		return nil, failAt(at("traces"), "traces %d is negative", j.Traces)
	}
	if j.Handlers == nil {
		return nil, failAt(at("handlers"), "handlers: want a list (it is missing or null)")
	}
	var user []*invariants.UserTemplate
	for i, d := range j.Templates {
		u, err := invariants.CompileTemplate(d)
		if err != nil {
			return nil, failAt(at("templates", i), "%v", err)
		}
		user = append(user, u)
	}
	cat, err := invariants.NewCatalog(user...)
	if err != nil {
		return nil, fail("%v", err)
	}
	for _, f := range []struct {
		key  string
		list []string
	}{{"apps", j.Apps}, {"inputs", j.Inputs}} {
		for i, s := range f.list {
			if s == "" || i > 0 && s <= f.list[i-1] {
				return nil, failAt(at(f.key, i), "%s: %q is empty, repeated or out of order (want sorted, distinct names)", f.key, s)
			}
		}
	}
	sp := &Spec{Params: j.Params, Traces: j.Traces, Apps: j.Apps, Inputs: j.Inputs, Templates: j.Templates, catalog: cat}
	seen := map[string]bool{}
	for hi, hj := range j.Handlers {
		if hj.Handler == "" {
			return nil, failAt(at("handlers", hi), "a handler has no name")
		}
		if seen[hj.Handler] {
			return nil, failAt(at("handlers", hi, "handler"), "handler %s is listed twice", hj.Handler)
		}
		seen[hj.Handler] = true
		switch {
		case hj.Samples < 0 || hj.Samples > maxCount:
			return nil, failAt(at("handlers", hi, "samples"), "handler %s: samples %d is out of range 0..%d", hj.Handler, hj.Samples, int64(maxCount))
		case hj.Traces < 0:
			return nil, failAt(at("handlers", hi, "traces"), "handler %s: traces %d is negative", hj.Handler, hj.Traces)
		}
		h := &Handler{Name: hj.Handler, Samples: hj.Samples, Traces: hj.Traces, State: hj.State}
		if h.State != nil {
			if _, err := invariants.NewLearnerFromState(cat, h.State); err != nil {
				return nil, failAt(at("handlers", hi, "state"), "handler %s: state: %v", h.Name, err)
			}
		}
		keys := map[string]bool{}
		for i, cj := range hj.Conditions {
			c, err := parseCondition(cat, h.Name, cj)
			if err == nil && cj.Text != "" && cj.Text != c.Text() {
				// The text is derived; an edit of it alone would be ignored.
				err = fieldError{[]any{"text"}, fmt.Errorf("the text does not say what the condition is (%q): edit template, vars and constants, and the text with them or leave it empty", c.Text())}
			}
			switch {
			case err != nil:
			case h.State != nil && len(h.State.Vars) > 0:
				err = knownVars(c, h.State.Vars)
			case len(hj.read) > 0:
				err = knownVars(c, hj.read)
			}
			if err == nil && (cj.Support < 0 || cj.Support > hj.Samples) {
				err = fieldError{[]any{"support"}, fmt.Errorf("support %d is out of range 0..%d (the handler's samples)", cj.Support, hj.Samples)}
			}
			if err != nil {
				path := at("handlers", hi, "conditions", i)
				var fe fieldError
				if errors.As(err, &fe) {
					path = append(path, fe.path...)
				}
				return nil, failAt(path, "handler %s: condition %d (%q): %v", h.Name, i+1, cj.Text, err)
			}
			if keys[c.key()] {
				return nil, failAt(at("handlers", hi, "conditions", i), "handler %s: condition %d (%q) is listed twice", h.Name, i+1, c.Body())
			}
			keys[c.key()] = true
			h.Conditions = append(h.Conditions, c)
		}
		sp.Handlers = append(sp.Handlers, h)
	}
	sp.index()
	return sp, nil
}

// maxCount bounds the counts of a spec (samples, min_samples): no corpus
// has 2^40 samples, and arithmetic on larger ones could overflow.
const maxCount = 1 << 40

// fieldError is an error about one field of a condition: path leads to it
// from the condition (a key, then keys and indexes).
type fieldError struct {
	path []any
	error
}

func (e fieldError) Unwrap() error { return e.error }

// keyOffset returns the offset of the first member of data named key (a
// JSON string, quotes included), or -1.
func keyOffset(data []byte, key string) int {
	for from := 0; ; {
		i := bytes.Index(data[from:], []byte(key))
		if i < 0 {
			return -1
		}
		i += from
		rest := bytes.TrimLeft(data[i+len(key):], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			return i
		}
		from = i + 1
	}
}

// valueStart returns the offset of the JSON value that ends at end (a type
// error's offset is just after the value).
func valueStart(data []byte, end int) int {
	end = min(max(end, 0), len(data))
	i := end - 1
	if i >= 0 && data[i] == '"' {
		for i--; i >= 0; i-- {
			if data[i] == '"' && (i == 0 || data[i-1] != '\\') {
				return i
			}
		}
		return 0
	}
	for i >= 0 && !strings.ContainsRune(" \t\r\n:,[{", rune(data[i])) {
		i--
	}
	return i + 1
}

// position converts a byte offset to a 1-based line and column.
func position(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	before := data[:off]
	line = 1 + bytes.Count(before, []byte{'\n'})
	return line, 1 + len([]rune(string(before[bytes.LastIndexByte(before, '\n')+1:])))
}

func parseCondition(cat *invariants.Catalog, handler string, cj conditionJSON) (*Condition, error) {
	t, ok := cat.Lookup(cj.Template)
	if !ok {
		return nil, fieldError{[]any{"template"}, fmt.Errorf("unknown template %q", cj.Template)}
	}
	if len(cj.Vars) != t.Arity {
		return nil, fieldError{[]any{"vars"}, fmt.Errorf("template %s takes %d data, not %d", t.Name, t.Arity, len(cj.Vars))}
	}
	for i, v := range cj.Vars {
		if v == "" {
			return nil, fieldError{[]any{"vars", i}, errors.New("an empty datum name")}
		}
	}
	if slices.Contains(cj.Vars, cj.Guard) {
		return nil, fieldError{[]any{"guard"}, fmt.Errorf("%q is the guard and a datum of the condition", cj.Guard)}
	}
	ic := &invariants.Condition{Template: t, Vars: cj.Vars, Guard: cj.Guard, Support: cj.Support, Chance: 1 - cj.Confidence}
	if k := cj.Constants; k != nil {
		if k.A != nil {
			ic.A = *k.A
		}
		if k.B != nil {
			ic.B = *k.B
		}
		ic.Set, ic.Pairs = k.S, k.P
	}
	if err := checkConstants(t, ic); err != nil {
		return nil, err
	}
	if !(cj.Confidence >= 0 && cj.Confidence <= 1) {
		return nil, fieldError{[]any{"confidence"}, fmt.Errorf("confidence %v is not in [0, 1]", cj.Confidence)}
	}
	return &Condition{
		Handler: handler, Template: t.Name, Vars: cj.Vars, Guard: cj.Guard, A: ic.A, B: ic.B, Set: ic.Set, Pairs: ic.Pairs,
		Support: cj.Support, Confidence: cj.Confidence, Disabled: cj.Disabled, Pinned: cj.Pinned, cond: ic,
	}, nil
}

// jsonKind says what JSON a Go type decodes from, for errors that must
// not show Go's names.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "another value"
}

// knownVars checks that a learned handler's condition names data the
// handler read in training (read: the data its learning state lists): a
// name it never read, a typo or a field that does not exist, would never
// be realized, and the condition would silently check nothing.
func knownVars[V any](c *Condition, read map[string]V) error {
	for i, v := range c.Operands() {
		if _, ok := read[v]; ok {
			continue
		}
		where := []any{"vars", i}
		if i == len(c.Vars) {
			where = []any{"guard"}
		}
		// Suggest the data of the same object, else any.
		var near []string
		if dot := strings.LastIndexByte(v, '.'); dot > 0 {
			for n := range read {
				if strings.HasPrefix(n, v[:dot+1]) {
					near = append(near, n)
				}
			}
		}
		if len(near) == 0 {
			near = slices.Collect(maps.Keys(read))
		}
		slices.Sort(near)
		if len(near) > 6 {
			near = append(near[:6:6], "...")
		}
		return fieldError{where, fmt.Errorf("%q: the handler read no such datum in training, so the condition would never be checked (it read %s)", v, strings.Join(near, ", "))}
	}
	return nil
}

// checkConstants checks that a condition has the constants its template
// fits, of a type it can compare with.
func checkConstants(t *invariants.Template, c *invariants.Condition) error {
	has := func(v invariants.Value) bool { return v.Kind() != invariants.Absent }
	number := func(v invariants.Value) bool {
		return v.IsNumber() && !v.IsNaN() && !math.IsInf(v.Float(), 0)
	}
	var a, b, set, pairs string // "need", "num", or "" (must be absent)
	switch t.Fitter {
	case "pairs":
		pairs = "need"
	case "const":
		a = "need"
	case "oneof":
		set = "need"
	case "line":
		a, b = "num", "num"
	case "bounds":
		switch t.Name {
		case "range":
			a, b = "num", "num"
		case "lower":
			a = "num"
		case "upper":
			b = "num"
		default: // a user bounds template: one side or both
			if !has(c.A) && !has(c.B) {
				return fieldError{[]any{"constants"}, errors.New("a bounds condition needs constant a, b or both")}
			}
			a, b = "opt", "opt"
		}
	}
	check := func(name, want string, v invariants.Value) error {
		var err error
		switch {
		case want == "" && has(v):
			err = fmt.Errorf("template %s has no constant %s", t.Name, name)
		case (want == "need" || want == "num") && !has(v):
			return fieldError{[]any{"constants"}, fmt.Errorf("template %s needs constant %s", t.Name, name)}
		case (want == "num" || want == "opt") && has(v) && !number(v):
			err = fmt.Errorf("constant %s must be a finite number", name)
		case want == "need" && v.Kind() == invariants.Ref:
			err = fmt.Errorf("constant %s cannot be a reference", name)
		}
		if err != nil {
			return fieldError{[]any{"constants", name}, err}
		}
		return nil
	}
	if err := check("a", a, c.A); err != nil {
		return err
	}
	if err := check("b", b, c.B); err != nil {
		return err
	}
	if t.Fitter == "bounds" && has(c.A) && has(c.B) && number(c.A) && number(c.B) && c.A.Float() > c.B.Float() {
		return fieldError{[]any{"constants", "b"}, fmt.Errorf("bounds %s..%s are empty: a must not be greater than b", c.A, c.B)}
	}
	sErr := func(format string, args ...any) error {
		return fieldError{[]any{"constants", "s"}, fmt.Errorf(format, args...)}
	}
	pErr := func(format string, args ...any) error {
		return fieldError{[]any{"constants", "p"}, fmt.Errorf(format, args...)}
	}
	switch {
	case set == "" && c.Set != nil:
		return sErr("template %s has no constant s", t.Name)
	case set == "need" && len(c.Set) == 0:
		return fieldError{[]any{"constants"}, fmt.Errorf("template %s needs a non-empty set s", t.Name)}
	case len(c.Set) > invariants.MaxOneOf:
		return sErr("a set s of more than %d values", invariants.MaxOneOf)
	case pairs == "" && c.Pairs != nil:
		return pErr("template %s has no constant p", t.Name)
	case pairs == "need" && len(c.Pairs) == 0:
		return fieldError{[]any{"constants"}, fmt.Errorf("template %s needs a non-empty set p of pairs", t.Name)}
	case len(c.Pairs) > invariants.MaxPairs:
		return pErr("a set p of more than %d pairs", invariants.MaxPairs)
	}
	// class puts ints and floats together: a number datum has both.
	class := func(v invariants.Value) invariants.Kind {
		if v.Kind() == invariants.Float {
			return invariants.Int
		}
		return v.Kind()
	}
	for i, v := range c.Set {
		switch {
		case v.Kind() == invariants.Absent || v.Kind() == invariants.Ref:
			return sErr("the values of s must be data, not %s", v)
		case v.IsNaN() || v.IsNumber() && math.IsInf(v.Float(), 0):
			return sErr("the values of s must be finite, not %s", v)
		case i > 0 && class(v) != class(c.Set[0]):
			return sErr("the values of s must be of one type: %s and %s", c.Set[0], v)
		}
		for _, w := range c.Set[:i] {
			if invariants.Compare(v, w) == 0 {
				return sErr("%s is twice in s", v)
			}
		}
	}
	scalar := func(v invariants.Value) bool { return v.Kind() == invariants.Int || v.Kind() == invariants.String }
	for _, p := range c.Pairs {
		if !scalar(p.X) || !scalar(p.Y) {
			return pErr("the pairs of p must be integers or strings, not %s", "("+p.X.String()+", "+p.Y.String()+")")
		}
	}
	return nil
}

// Realized is a spec condition bound to the locations of one invocation.
type Realized struct {
	Cond *Condition
	// Locs are the concrete locations of the condition's data, in the
	// order of Cond.Operands (its Vars, then its Guard); Vals their values
	// when the event began.
	Locs []traces.Location
	Vals []traces.Value
}

// Realizer binds spec conditions to invocations (see the package doc). It
// belongs to one Symbols table and is not safe for concurrent use.
type Realizer struct {
	spec   *Spec
	syms   *traces.Symbols
	names  *Names
	bound  map[string]int
	fields map[[2]traces.Sym]bool // (handler, field) -> NeedsField
	// anyField is, by field, 0 if unknown, else 1 + AnyNeedsField.
	anyField []uint8
}

// NewRealizer returns a realizer of sp's conditions for invocations whose
// Syms come from syms.
func NewRealizer(sp *Spec, syms *traces.Symbols) *Realizer {
	return &Realizer{spec: sp, syms: syms, names: NewNames(syms), bound: make(map[string]int), fields: make(map[[2]traces.Sym]bool)}
}

// NeedsField reports whether a condition of handler's may name a datum
// that is field of some object: the name of such a datum ends with the
// field, after a "." unless it is an element ("[i]"; Name.AppendTo). With
// AnyNeedsField, it is a Sampler's extra filter (SetExtraFilter).
func (r *Realizer) NeedsField(handler, field traces.Sym) bool {
	key := [2]traces.Sym{handler, field}
	need, ok := r.fields[key]
	if ok {
		return need
	}
	if h := r.spec.Handler(r.syms.String(handler)); h != nil {
		need = namesField(h, r.fieldSuffix(field))
	}
	r.fields[key] = need
	return need
}

// AnyNeedsField reports whether NeedsField(h, field) for some handler h of
// the spec.
func (r *Realizer) AnyNeedsField(field traces.Sym) bool {
	if int(field) < len(r.anyField) && r.anyField[field] != 0 {
		return r.anyField[field] == 2
	}
	suffix := r.fieldSuffix(field)
	need := slices.ContainsFunc(r.spec.Handlers, func(h *Handler) bool { return namesField(h, suffix) })
	if int(field) >= len(r.anyField) {
		r.anyField = append(r.anyField, make([]uint8, int(field)+1-len(r.anyField))...)
	}
	r.anyField[field] = 1
	if need {
		r.anyField[field] = 2
	}
	return need
}

// fieldSuffix is how the name of a datum that is field of some object
// ends: ".field", or the element "[i]".
func (r *Realizer) fieldSuffix(field traces.Sym) string {
	suffix := r.syms.String(field)
	if !strings.HasPrefix(suffix, "[") {
		suffix = "." + suffix
	}
	return suffix
}

// namesField reports whether an enabled condition of h names a datum whose
// name ends with suffix.
func namesField(h *Handler, suffix string) bool {
	return slices.ContainsFunc(h.Conditions, func(c *Condition) bool {
		return !c.Disabled && slices.ContainsFunc(c.Operands(), func(v string) bool { return strings.HasSuffix(v, suffix) })
	})
}

// Realize appends to dst the enabled conditions of inv's handler whose
// data inv binds, with their locations and values.
func (r *Realizer) Realize(inv *Invocation, dst []Realized) []Realized {
	h := r.spec.Handler(r.syms.String(inv.Handler))
	if h == nil || len(h.Conditions) == 0 {
		return dst
	}
	clear(r.bound)
	for i := range inv.Bindings {
		r.bound[r.names.String(inv.Bindings[i].Name)] = i
	}
	var at [3]int
next:
	for _, c := range h.Conditions {
		if c.Disabled {
			continue
		}
		ops := c.Operands()
		for i, name := range ops {
			j, ok := r.bound[name]
			if !ok {
				continue next
			}
			at[i] = j
		}
		rc := Realized{Cond: c, Locs: make([]traces.Location, len(ops)), Vals: make([]traces.Value, len(ops))}
		for i := range ops {
			rc.Locs[i], rc.Vals[i] = inv.Bindings[at[i]].Loc, inv.Bindings[at[i]].Val
		}
		dst = append(dst, rc)
	}
	return dst
}
