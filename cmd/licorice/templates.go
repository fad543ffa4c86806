package main

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/licorice-dev/licorice/invariants"
	"github.com/spf13/cobra"
)

func newTemplatesCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "templates",
		Short: "List the condition templates, and check a file of user templates",
		Long: `A template is a kind of condition that learning tries on every datum (x) or
pair of data of one abstract type (x, y): "x != null", "a <= x <= b",
"x < y", ... Besides the built-ins, a JSON file of user templates can be
given to "licorice learn --templates FILE":

  {
    "licorice_templates": 1,
    "templates": [
      {"name": "even", "types": ["int"], "expr": "x % 2 == 0"},
      {"name": "gap", "types": ["number"], "expr": "y - x", "fitter": "bounds"},
      {"name": "nonempty", "types": ["string"], "expr": "len(x) > 0"}
    ]
  }

Each template is an expr-lang expression (https://expr-lang.org) over x, and
y for a binary template, with the types it applies to (pointer, int, float,
number, bool, string, any). Without a fitter the expression is the condition.
With one, the expression computes a value and the fitter fits constants to
it: const (E == a), oneof (E in {a, b, c}), bounds (a <= E <= b) or nonzero
(E != 0). Optional: "doc", "arity", "symmetric" (a binary template meaning
the same with x and y swapped is tried in one order only), "min_distinct"
(distinct samples that justify a template without fitter; default 5).

A template file, and a spec that embeds templates, is untrusted input: an
expression has at most 1000 characters and 200 syntax nodes; it may call
len, type, abs, ceil, floor, round, int, float, string, trim, trimPrefix,
trimSuffix, upper, lower, indexOf, lastIndexOf, hasPrefix, hasSuffix, max,
min and bitnot, but not predicates (any, filter, ...), ranges (a..b), $env,
let, pipes, or the functions whose cost or result is not bounded by their
operands (repeat, now, split, JSON, ...).`,
	}
	cmd.AddCommand(newTemplatesListCmd(), newTemplatesCheckCmd())
	return cmd
}

func newTemplatesListCmd() *cobra.Command {
	var file string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the templates learning tries",
		Long: `List prints the catalog of templates: the built-ins, then those of --templates
FILE. For each: its name, arity, the operand types it applies to, its form
(x, y: the data; a, b: fitted constants) and the formula of its chance, the
probability that it held on n samples by accident; a condition is reported
only if its chance is at most the limit (learn --confidence, default 0.01).

Example:

  licorice templates list --templates my-templates.json`,
		Args: argsFor(0, 0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cat, err := invariants.LoadCatalog(file)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tARITY\tTYPES\tFORM\tCHANCE\tORIGIN")
			for _, t := range cat.Templates() {
				origin := "built-in"
				if !t.Builtin() {
					origin = file
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", t.Name, t.Arity, t.Types, t.Form, t.Chance, origin)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&file, "templates", "", "a file of user templates to list too")
	return cmd
}

func newTemplatesCheckCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "check FILE",
		Short: "Check a file of user templates",
		Long: `Check compiles every template of a file and reports each mistake with its
line and column (in an expression, where in it), or says the file is fine.
It exits with status 1 if the file has mistakes.

Example:

  licorice templates check my-templates.json`,
		Args: argsFor(1, 1, "the template file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			us, err := readTemplates(cmd, args[0])
			if err == nil {
				_, err = invariants.NewCatalog(us...)
			}
			var fe invariants.FileErrors
			if errors.As(err, &fe) {
				for _, e := range fe {
					fmt.Fprintln(cmd.OutOrStdout(), e)
				}
				noun := "mistakes"
				if len(fe) == 1 {
					noun = "mistake"
				}
				return &exitError{code: 1, msg: fmt.Sprintf("%s: %d %s", args[0], len(fe), noun)}
			}
			if err != nil {
				return err
			}
			var names []string
			for _, u := range us {
				names = append(names, u.Decl().Name)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: ok, %d templates (%s)\n", args[0], len(us), strings.Join(names, ", "))
			return nil
		},
	}
}
