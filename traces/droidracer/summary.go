package droidracer

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/licorice-dev/licorice/traces"
)

// Summary says what an import did with a log: how each keyword was mapped,
// what was written, and every place where the log breaks licorice's trace
// contract and how that was resolved. Same log, same summary.
type Summary struct {
	Log         string
	Lines       int // lines of the trace part of the log
	OpLines     int // operation lines
	AccessLines int // field access lines
	Keywords    []KeywordCount
	Unknown     []KeywordCount // keywords this package does not map: not imported
	Ops         [traces.NumKinds]int
	Threads     int // thread_begin ops of DroidRacer threads (not brackets)
	Loopers     int // of which loopers
	Brackets    int // native brackets (each a short-lived thread)
	Runs        int // runs of a looper's own ops between two events (each a short-lived thread)
	Events      int // messages begun
	Adjustments []Adjustment
	Races       int // race witnesses in DroidRacer's report; -1 without a report
	Unreadable  int // lines of the report that could not be read
}

// KeywordCount is how many lines of a keyword the log has and how many ops
// were written for them.
type KeywordCount struct {
	Keyword string
	Lines   int
	Ops     int
	Example Line // the first line, for unknown keywords
}

// Adjustment is one way the import resolved a break of the trace contract
// (or left something out), with how often and where first.
type Adjustment struct {
	What    string
	Count   int
	Example Line
}

// adjustment kinds, in the order the summary lists them.
type adjKind int

const (
	adjPostNeverCalled adjKind = iota
	adjPostRepeated
	adjPostBeforeLooper
	adjCallWithoutPost
	adjCallRepeated
	adjNestedCall
	adjRetNotRunning
	adjNegativeDelay
	adjQueueAttachedEarly
	adjExitDeferred
	adjEventEndedAtExit
	adjForkAfterBegin
	adjInitRunning
	adjNoThreadInit
	adjTidReused
	adjJoinNotEnded
	adjEntryWithoutExit
	adjExitWithoutEntry
	adjLockHeldByOther
	adjUnlockNotHeld
	adjLockReleasedAtEnd
	adjAddressReused
	adjAccessWithoutACCESS
	adjWaitWithoutNotify
	adjTriggerWithoutEnable
	adjIdleUnknownQueue
	adjEventRunningAtEnd
	adjMethodLines
	adjStrayLines
	numAdj
)

var adjWhat = [numAdj]string{
	adjPostNeverCalled:      "POST of a message never called: dropped (its queue is unknown; DroidRacer drops it too)",
	adjPostRepeated:         "POST of a message already posted: dropped",
	adjPostBeforeLooper:     "POST to a looper that has not begun or has ended: dropped, the message is sent at its CALL",
	adjCallWithoutPost:      "CALL of a message not sent before: sent by a task of its own first",
	adjCallRepeated:         "CALL of a message already called: dropped (with its RET)",
	adjNestedCall:           "CALL inside a running event (a nested loop): flattened into that event, its POST and CALL as signal and wait",
	adjRetNotRunning:        "RET of a message that is not running: dropped",
	adjNegativeDelay:        "POST with a negative delay other than -1: delay 0",
	adjQueueAttachedEarly:   "queue used before its looper's ATTACH-Q or LOOP, or never attached: attached when its looper begins",
	adjExitDeferred:         "THREADEXIT followed by more ops of the thread: thread_end after its last op",
	adjEventEndedAtExit:     "event still running when its thread ended: ended there",
	adjForkAfterBegin:       "FORK of a thread that had already begun: dropped",
	adjInitRunning:          "THREADINIT of a running thread: dropped",
	adjNoThreadInit:         "ops of a thread without THREADINIT: thread_begin at its first op",
	adjTidReused:            "thread id used again after THREADEXIT: a new thread t<tid>~<n>",
	adjJoinNotEnded:         "JOIN of a thread that has not ended: dropped",
	adjEntryWithoutExit:     "NATIVE-ENTRY while the thread's previous bracket is open: that bracket ended first",
	adjExitWithoutEntry:     "NATIVE-EXIT without NATIVE-ENTRY: dropped",
	adjLockHeldByOther:      "LOCK of a lock another task holds (an UNLOCK was missed): a fresh alias <lock>#<n>",
	adjUnlockNotHeld:        "UNLOCK of a lock the task does not hold: dropped",
	adjLockReleasedAtEnd:    "lock still held when its event, bracket or thread ended: unlock added",
	adjAddressReused:        "object address reused (its accesses changed class): a new object <address>#<n>",
	adjAccessWithoutACCESS:  "access lines not closed by an ACCESS line: placed when their task ends or the log ends",
	adjWaitWithoutNotify:    "WAIT without a NOTIFY to its thread: a wait nobody signals",
	adjTriggerWithoutEnable: "trigger without a matching enable: a wait nobody signals",
	adjIdleUnknownQueue:     "ADD_IDLE_HANDLER on a queue no thread serves: dropped",
	adjEventRunningAtEnd:    "event still running when the log ends (left running)",
	adjMethodLines:          "METHOD ENTRY/EXIT lines: not imported",
	adjStrayLines:           "lines that are neither operations nor accesses: ignored",
}

// WriteText writes the summary as aligned text.
func (s *Summary) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "DroidRacer log %s\n", s.Log)
	fmt.Fprintf(&b, "  trace part: %d lines, %d operations, %d field accesses\n", s.Lines, s.OpLines, s.AccessLines)
	if s.Races >= 0 {
		fmt.Fprintf(&b, "  race report: %d witnesses", s.Races)
		if s.Unreadable > 0 {
			fmt.Fprintf(&b, ", %d lines not understood", s.Unreadable)
		}
		b.WriteString("\n")
	} else {
		b.WriteString("  race report: none (no \" HB Graph\" line)\n")
	}
	total := 0
	for _, n := range s.Ops {
		total += n
	}
	fmt.Fprintf(&b, "\nwritten: %d ops; %d threads (%d loopers), %d native brackets, %d looper runs between events, %d events\n",
		total, s.Threads, s.Loopers, s.Brackets, s.Runs, s.Events)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	for k := traces.Kind(1); int(k) < traces.NumKinds; k++ {
		if s.Ops[k] > 0 {
			fmt.Fprintf(tw, "  %s\t%d\t\n", k, s.Ops[k])
		}
	}
	tw.Flush()

	b.WriteString("\nby keyword (lines -> ops):\n")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, k := range s.Keywords {
		fmt.Fprintf(tw, "  %s\t%d\t->\t%d\t\n", k.Keyword, k.Lines, k.Ops)
	}
	tw.Flush()

	if len(s.Unknown) > 0 {
		b.WriteString("\nunknown keywords (not imported):\n")
		for _, k := range s.Unknown {
			fmt.Fprintf(&b, "  %s: %d lines, first at line %d: %s\n", k.Keyword, k.Lines, k.Example.N, traces.Elide(k.Example.Text, maxQuote))
		}
	}
	if len(s.Adjustments) > 0 {
		b.WriteString("\nwhere the log breaks the trace contract (see docs/droidracer.md):\n")
		for _, a := range s.Adjustments {
			fmt.Fprintf(&b, "  %d x %s\n      first at line %d: %s\n", a.Count, a.What, a.Example.N, traces.Elide(a.Example.Text, maxQuote))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// keywordStats collects the per-keyword counts of a summary.
type keywordStats map[string]*KeywordCount

// add counts one line of keyword kw and the ops written for it.
func (ks keywordStats) add(kw string, r *record, ops int) {
	k := ks.entry(kw, r)
	k.Lines++
	k.Ops += ops
}

func (ks keywordStats) entry(kw string, r *record) *KeywordCount {
	k := ks[kw]
	if k == nil {
		k = &KeywordCount{Keyword: kw, Example: Line{r.line, r.text}}
		ks[kw] = k
	}
	return k
}

func (ks keywordStats) sorted() []KeywordCount {
	out := make([]KeywordCount, 0, len(ks))
	for _, k := range ks {
		out = append(out, *k)
	}
	slices.SortFunc(out, func(a, b KeywordCount) int { return strings.Compare(a.Keyword, b.Keyword) })
	return out
}
