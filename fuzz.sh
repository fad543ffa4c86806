#!/bin/sh
# Runs every fuzz target of the module for FUZZTIME each (default 3s, as
# CI does; FUZZTIME=10m for a long run, PKG=./traces for one package).
# A failing input is written under the package's testdata/fuzz/NAME/ and
# the script stops; `go test -run 'NAME/ID' PKG` replays it.
#
# Go 1.26's fuzz coordinator sometimes fails a target with a bare "context
# deadline exceeded" as -fuzztime ends, having found nothing
# (go.dev/issue/75804, fixed in Go 1.27): a failure that wrote no input is
# reported as that and the run goes on.
set -eu
cd "$(dirname "$0")"
FUZZTIME=${FUZZTIME:-3s}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for pkg in $(go list "${PKG:-./...}"); do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	for name in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		echo "fuzz $pkg $name ($FUZZTIME)"
		before=$(ls "$dir/testdata/fuzz/$name" 2>/dev/null | wc -l)
		if go test -run '^$' -fuzz "^$name\$" -fuzztime "$FUZZTIME" -fuzzminimizetime 2s "$pkg" >"$log" 2>&1; then
			continue
		fi
		after=$(ls "$dir/testdata/fuzz/$name" 2>/dev/null | wc -l)
		if [ "$after" = "$before" ] && grep -q 'context deadline exceeded' "$log"; then
			echo "  (no failing input: Go's fuzz coordinator, go.dev/issue/75804)"
			continue
		fi
		cat "$log"
		exit 1
	done
done
