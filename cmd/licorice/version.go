package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/licorice-dev/licorice/traces"
	"github.com/spf13/cobra"
)

// moduleVersion is licorice's version as the Go toolchain stamped it: a
// release tag or pseudo-version, else the commit of the checkout it was
// built from ("devel-<commit>", "+dirty" for a changed tree), else
// "(devel)".
func moduleVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	// A build from a checkout: name its commit.
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	switch {
	case rev == "":
		return "(devel)"
	case dirty:
		return "devel-" + rev + "+dirty"
	}
	return "devel-" + rev
}

// versionLine is what "licorice version" and "licorice --version" print.
func versionLine() string {
	return fmt.Sprintf("licorice %s (%s, trace format %d)", moduleVersion(), runtime.Version(), traces.Version)
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of licorice and of the formats it reads",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), versionLine())
			return nil
		},
	}
}
