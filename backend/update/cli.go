package update

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Exit codes of parley update (SPEC §13).
const (
	ExitOK          = 0 // up to date, or updated
	ExitUnreachable = 1 // cannot reach the feed (or another failure)
	ExitUsage       = 2
	ExitRefused     = 3 // refused: the reason on stderr
)

// RunCLI is `parley update [--check] [--yes]`.
func RunCLI(ctx context.Context, u *Updater, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("parley update", flag.ContinueOnError)
	fs.SetOutput(stderr)
	check := fs.Bool("check", false, "only check: say whether an update is offered")
	yes := fs.Bool("yes", false, "install without asking")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "parley update: unexpected argument %q\n", fs.Arg(0))
		return ExitUsage
	}
	fail := func(err error) int {
		var r *Refusal
		switch {
		case errors.As(err, &r):
			fmt.Fprintln(stderr, "parley update: refused:", r.Reason)
			return ExitRefused
		case errors.Is(err, ErrNoKind):
			fmt.Fprintln(stderr, "parley update: refused:", err)
			return ExitRefused
		default:
			fmt.Fprintln(stderr, "parley update:", err)
			return ExitUnreachable
		}
	}
	s, err := u.Check(ctx)
	if err != nil {
		return fail(err)
	}
	if s.Available == nil {
		fmt.Fprintf(stdout, "Parley %s is up to date.\n", s.Current)
		return ExitOK
	}
	fmt.Fprintf(stdout, "Parley %s is available (you have %s, %d bytes).\n", s.Available.Version, s.Current, s.Available.Size)
	if s.Available.Notes != "" {
		fmt.Fprintln(stdout, s.Available.Notes)
	}
	if *check {
		return ExitOK
	}
	if !*yes {
		fmt.Fprintf(stdout, "Install %s now? [y/N] ", s.Available.Version)
		line, _ := bufio.NewReader(stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			fmt.Fprintln(stdout, "Not installed.")
			return ExitOK
		}
	}
	if _, err := u.Stage(ctx); err != nil {
		return fail(err)
	}
	applied, err := u.Apply(ctx)
	if err != nil {
		return fail(err)
	}
	if applied.Restart {
		fmt.Fprintf(stdout, "Updated to %s. Start Parley again to use it.\n", applied.Version)
	} else {
		fmt.Fprintf(stdout, "The installer of %s is running; start Parley again once it is done.\n", applied.Version)
	}
	return ExitOK
}
