package detect

import (
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/licorice-dev/licorice/internal/jsonout"
)

// SARIF 2.1.0 (OASIS): the subset licorice writes. detect/testdata holds
// the official schema, which the tests validate the output against.
const (
	sarifVersion = "2.1.0"
	sarifSchema  = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string        `json:"id"`
	Name             string        `json:"name"`
	ShortDescription sarifMessage  `json:"shortDescription"`
	FullDescription  sarifMessage  `json:"fullDescription"`
	Help             sarifMessage  `json:"help"`
	Default          sarifRuleConf `json:"defaultConfiguration"`
}

type sarifRuleConf struct {
	Level string `json:"level"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string       `json:"level"`
	Message sarifMessage `json:"message"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifMessage      `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	RelatedLocations    []sarifLocation   `json:"relatedLocations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Rank                float64           `json:"rank"`
	Properties          sarifProperties   `json:"properties"`
}

type sarifLocation struct {
	ID       *int          `json:"id,omitempty"`
	Physical sarifPhysical `json:"physicalLocation"`
	Message  *sarifMessage `json:"message,omitempty"`
}

type sarifPhysical struct {
	Artifact sarifArtifact `json:"artifactLocation"`
	Region   *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

// sarifProperties carry what SARIF has no field for: the report as the
// JSON format has it.
type sarifProperties struct {
	Report *Report `json:"licorice"`
}

// sarifRules are the four kinds, in Kind order (ruleIndex = Kind-1).
var sarifRules = []sarifRule{
	{ID: "precondition-violation", Name: "PreconditionViolation", Default: sarifRuleConf{"error"},
		ShortDescription: sarifMessage{"An event ran while a precondition it relies on was false."},
		FullDescription: sarifMessage{"An event ran with a learned precondition of its handler false: this execution hit the bug " +
			"the condition guards against, or the condition is not a real precondition."},
		Help: sarifMessage{`Look at the event that made the condition false and at why the two events are not ordered. ` +
			`If the handler does not need the condition, mark it "disabled": true in the spec.`}},
	{ID: "req-kill", Name: "RequireKill", Default: sarifRuleConf{"warning"},
		ShortDescription: sarifMessage{"An event relies on a condition that a concurrent event can make false."},
		FullDescription: sarifMessage{"Two events are not ordered by happens-before: one requires a learned precondition, the " +
			"other makes it false. Had the second run first, the first would have run with its precondition false."},
		Help: sarifMessage{"Order the two events (post one from the other, cancel one in the other), or make the " +
			"requiring handler cope with the condition being false."}},
	{ID: "gen-req", Name: "GenerateRequire", Default: sarifRuleConf{"warning"},
		ShortDescription: sarifMessage{"An event relies on a condition that a concurrent event makes true."},
		FullDescription: sarifMessage{"Two events are not ordered by happens-before: one makes a learned precondition true, " +
			"the other requires it. Had the second run first, it would have found the condition false."},
		Help: sarifMessage{"Make the requiring event wait for the generating one, or make its handler cope with the " +
			"condition being false."}},
	{ID: "gen-kill", Name: "GenerateKill", Default: sarifRuleConf{"note"},
		ShortDescription: sarifMessage{"Two concurrent events make a precondition true and false."},
		FullDescription: sarifMessage{"Two events are not ordered by happens-before: one makes a learned precondition true, " +
			"the other false. Which runs last decides whether the events that require the condition find it true."},
		Help: sarifMessage{"Order the two events, or make the handlers that require the condition cope with it " +
			"being false."}},
}

// WriteSARIF writes res as a SARIF 2.1.0 log: one result per report, at
// the source location of the event that relies on the condition (the
// other event's as a related location), with the report's fingerprint as
// a partial fingerprint, so that code-scanning tools track it across
// runs. spec is the spec file's name, version licorice's (the tool's
// version in the log; "" for none).
func WriteSARIF(w io.Writer, res *Result, spec, version string) error {
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name: "licorice", Version: version, InformationURI: "https://github.com/licorice-dev/licorice", Rules: sarifRules,
		}},
		Invocations: []sarifInvocation{{ExecutionSuccessful: true}},
		Results:     []sarifResult{},
	}
	for _, msg := range res.Warnings {
		run.Invocations[0].Notifications = append(run.Invocations[0].Notifications,
			sarifNotification{Level: "warning", Message: sarifMessage{msg}})
	}
	n := len(res.Reports)
	for _, r := range res.Reports {
		rule := sarifRules[r.Kind-1]
		sr := sarifResult{
			RuleID: rule.ID, RuleIndex: int(r.Kind - 1), Level: rule.Default.Level,
			Message:             sarifMessage{sarifText(r, spec)},
			PartialFingerprints: map[string]string{"licorice/v1": r.Fingerprint},
			// SARIF's rank is a priority from 0 to 100; ours is an order.
			Rank:       100 * float64(n-r.ID+1) / float64(n),
			Properties: sarifProperties{Report: r},
		}
		primary := len(r.Example.Events) - 1 // the REQ, or the later event
		for i, e := range r.Example.Events {
			if e.Role == "REQ" {
				primary = i
			}
		}
		for i, e := range r.Example.Events {
			loc := sarifLocationOf(e, r.Example.Trace)
			verb := roleVerb(e.Role)
			if e.MidEvent {
				verb = "makes it false between two of its writes, then true again"
			}
			loc.Message = &sarifMessage{fmt.Sprintf("%s %s (%s on %s) %s", e.Role, e.ID, e.Handler, e.Thread, verb)}
			if i == primary {
				sr.Locations = append(sr.Locations, loc)
				continue
			}
			id := len(sr.RelatedLocations) + 1
			loc.ID = &id
			sr.RelatedLocations = append(sr.RelatedLocations, loc)
		}
		run.Results = append(run.Results, sr)
	}
	return jsonout.Write(w, sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}})
}

func roleVerb(role string) string {
	switch role {
	case "REQ":
		return "requires the condition"
	case "GEN":
		return "makes it true"
	}
	return "makes it false"
}

// sarifText is a result's message: the kind, the handlers, the condition
// and how to read it.
func sarifText(r *Report, spec string) string {
	return fmt.Sprintf("%s between %s on `%s` (%s, learned from %d samples in %s). %s",
		r.Kind, strings.Join(r.Handlers, " and "), r.Condition.Body, r.Example.Concrete, r.Condition.Support, spec, r.HowToRead)
}

// sarifLocationOf places an event at its op's source location ("file:line"
// in the trace), or, without one, at the op's line in the trace file.
func sarifLocationOf(e Event, trace string) sarifLocation {
	if file, line, ok := splitSrc(e.At.Src); ok {
		return sarifLocation{Physical: sarifPhysical{Artifact: sarifArtifact{URI: uriOf(file)}, Region: &sarifRegion{StartLine: line}}}
	}
	return sarifLocation{Physical: sarifPhysical{Artifact: sarifArtifact{URI: uriOf(trace)}, Region: &sarifRegion{StartLine: e.At.Line}}}
}

// splitSrc splits a source location "TrackDetailActivity.java:233" into
// its file and line.
func splitSrc(src string) (file string, line int, ok bool) {
	i := strings.LastIndexByte(src, ':')
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(src[i+1:])
	if err != nil || n < 1 {
		return "", 0, false
	}
	return src[:i], n, true
}

// uriOf turns a file path into a relative URI reference.
func uriOf(path string) string {
	return (&url.URL{Path: filepath.ToSlash(path)}).String()
}
