package traces

import "slices"

// The trace format versions this package reads: every version from
// MinVersion to Version. Version 2 added guards (branch cond "true") and
// writes that declare an initial value ("init") or update the value in
// place ("update"); a version 1 trace has none of them. Writers write
// Version, whatever the version read.
const (
	Version    = 2
	MinVersion = 1
)

// Header is the first line of a trace: the format version and what the
// trace is a recording of.
type Header struct {
	Version  int    // licorice_trace: MinVersion to Version
	Platform string // e.g. "android"
	App      string // e.g. "mytracks"
	Run      string // e.g. "train-07"
	Shuffled bool   // the event schedule was shuffled
	Seed     int64  // the seed of the run, when HasSeed
	HasSeed  bool

	// Extra holds header keys this version does not know, sorted by key,
	// each with its value as compact JSON. They are kept, not interpreted.
	Extra []ExtraField
}

// ExtraField is an unknown header key and its value as compact JSON.
type ExtraField struct {
	Key  string
	JSON string
}

// Get returns the JSON value of the extra key, if present.
func (h *Header) Get(key string) (string, bool) {
	i, ok := slices.BinarySearchFunc(h.Extra, key, func(f ExtraField, k string) int {
		switch {
		case f.Key < k:
			return -1
		case f.Key > k:
			return 1
		}
		return 0
	})
	if !ok {
		return "", false
	}
	return h.Extra[i].JSON, true
}
