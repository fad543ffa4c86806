package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// argsFor wants between min and max positional arguments (max < 0: any
// number from min) and, when the count is wrong, says what they are and
// how the command is used, rather than cobra's "requires at least 1
// arg(s)".
func argsFor(min, max int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		name := strings.TrimPrefix(cmd.CommandPath(), "licorice ")
		switch {
		case len(args) < min:
			return usageError{fmt.Errorf("%s: give %s (usage: %s)", name, what, cmd.UseLine())}
		case max >= 0 && len(args) > max && max == 0:
			return usageError{fmt.Errorf("%s: unexpected argument %q: it takes none (usage: %s)", name, args[0], cmd.UseLine())}
		case max >= 0 && len(args) > max:
			return usageError{fmt.Errorf("%s: unexpected argument %q: it takes %s (usage: %s)", name, args[max], what, cmd.UseLine())}
		}
		return nil
	}
}
