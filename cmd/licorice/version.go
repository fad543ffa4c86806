package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/licorice-dev/licorice/traces"
	"github.com/spf13/cobra"
)

// version is licorice's version in this source tree; a release build
// may set it with -ldflags "-X main.version=v1.2.3".
var version = "0.12.0-dev"

// moduleVersion is licorice's version: the Go toolchain's stamp if it is
// a release tag or pseudo-version, else version, with the commit of the
// checkout it was built from when the toolchain recorded one
// ("0.12.0-dev+1c01baa1b2c3", "-dirty" for a changed tree).
func moduleVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return version
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
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
		return version
	case dirty:
		return version + "+" + rev + "-dirty"
	}
	return version + "+" + rev
}

// versionLine is what "licorice version" and "licorice --version" print.
func versionLine() string {
	return fmt.Sprintf("licorice %s (%s, trace format %d)", moduleVersion(), runtime.Version(), traces.Version)
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of licorice and of the formats it reads",
		Args:  argsFor(0, 0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), versionLine())
			return nil
		},
	}
}
