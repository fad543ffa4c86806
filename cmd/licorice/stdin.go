package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/licorice-dev/licorice/invariants"
	"github.com/licorice-dev/licorice/learn"
	"github.com/licorice-dev/licorice/traces"
)

// Every argument that names an input file may be "-", standard input,
// once per command.

// oneStdin refuses "-" given for two inputs of one command.
func oneStdin(args ...string) error {
	n := 0
	for _, a := range args {
		if a == "-" {
			n++
		}
	}
	if n > 1 {
		return usageError{errors.New(`"-" given twice: standard input can be read once`)}
	}
	return nil
}

// readSpec reads the spec at path ("-": standard input). Commands that do
// not merge read it without its learning state (learn.ReadOptions): twice
// as fast, in a fraction of the memory.
func readSpec(cmd *cobra.Command, path string, opts learn.ReadOptions) (*learn.Spec, error) {
	if path == "-" {
		return learn.ReadSpecWith(cmd.InOrStdin(), traces.StdinName, opts)
	}
	return learn.ReadSpecFileWith(path, opts)
}

// loadCatalog returns the built-in templates, with those of the file at
// path if it is not "" ("-": standard input).
func loadCatalog(cmd *cobra.Command, path string) (*invariants.Catalog, error) {
	if path == "" {
		return invariants.Builtins(), nil
	}
	us, err := readTemplates(cmd, path)
	if err != nil {
		return nil, err
	}
	return invariants.NewCatalog(us...)
}

// readTemplates reads the user templates at path ("-": standard input).
func readTemplates(cmd *cobra.Command, path string) ([]*invariants.UserTemplate, error) {
	if path == "-" {
		return invariants.ReadTemplates(cmd.InOrStdin(), traces.StdinName)
	}
	return invariants.ReadTemplateFile(path)
}
