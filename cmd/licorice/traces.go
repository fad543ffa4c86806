package main

import "github.com/spf13/cobra"

func newTracesCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "traces",
		Short: "Read, convert, summarize and check trace files",
	}
	return cmd
}
