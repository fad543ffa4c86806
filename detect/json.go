package detect

import (
	"io"
	"slices"

	"github.com/licorice-dev/licorice/internal/jsonout"
)

// JSONVersion is the version of the JSON report format ([WriteJSON]);
// docs/json.md documents it. Fields may be added within a version;
// none is removed or changes meaning.
const JSONVersion = 2

type jsonDoc struct {
	Version  int          `json:"licorice_detect"`
	Spec     string       `json:"spec"`
	Summary  jsonSummary  `json:"summary"`
	Traces   []TraceStats `json:"traces"`
	Reports  []*Report    `json:"reports"`
	Warnings []string     `json:"warnings"`
}

type jsonSummary struct {
	Reports         int           `json:"reports"`
	Findings        int           `json:"findings"`
	ByKind          []kindReports `json:"by_kind"`
	Disabled        int           `json:"disabled_conditions"`
	AllowedFindings int           `json:"allowed_findings"`
	AllowedReports  int           `json:"allowed_reports"`
	AllowRules      []RuleUse     `json:"allow_rules"`
}

// kindReports counts the reports of a kind.
type kindReports struct {
	Kind    Kind `json:"kind"`
	Reports int  `json:"reports"`
}

// WriteJSON writes res as one indented JSON object (docs/json.md);
// spec is the spec file's name, as the user gave it.
func WriteJSON(w io.Writer, res *Result, spec string) error {
	doc := jsonDoc{
		Version: JSONVersion, Spec: spec, Traces: res.Traces, Reports: res.Reports, Warnings: res.Warnings,
		Summary: jsonSummary{
			Reports: len(res.Reports), Disabled: res.Disabled,
			AllowedFindings: res.AllowedFindings, AllowedReports: res.AllowedReports, AllowRules: res.Allowed,
		},
	}
	for _, r := range res.Reports {
		doc.Summary.Findings += r.Findings
		i := slices.IndexFunc(doc.Summary.ByKind, func(kc kindReports) bool { return kc.Kind == r.Kind })
		if i < 0 {
			doc.Summary.ByKind = append(doc.Summary.ByKind, kindReports{Kind: r.Kind})
			i = len(doc.Summary.ByKind) - 1
		}
		doc.Summary.ByKind[i].Reports++
	}
	nonNil(&doc.Traces)
	nonNil(&doc.Reports)
	nonNil(&doc.Warnings)
	nonNil(&doc.Summary.ByKind)
	nonNil(&doc.Summary.AllowRules)
	return jsonout.Write(w, doc)
}

// nonNil makes an empty slice encode as [] rather than null.
func nonNil[T any](s *[]T) {
	if *s == nil {
		*s = []T{}
	}
}
