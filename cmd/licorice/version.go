package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/licorice-dev/licorice/traces"
	"github.com/spf13/cobra"
)

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of licorice and of the formats it reads",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			version := "(devel)"
			if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
				version = info.Main.Version
			}
			fmt.Fprintf(cmd.OutOrStdout(), "licorice %s (%s, trace format %d)\n", version, runtime.Version(), traces.Version)
			return nil
		},
	}
}
