// Command shellgate decides whether a shell command may run: allow, ask a
// person, or deny, with reasons. See README.md.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	// The default policy compiles while the rest initializes.
	_ "github.com/shellgate/shellgate/cmd/shellgate/internal/prewarm"
)

// Exit codes shared by every subcommand.
const (
	exitOK       = 0
	exitAsk      = 1 // check: a person must approve
	exitDeny     = 2 // check: denied
	exitUsage    = 64
	exitInternal = 70
)

// env is what a subcommand sees of the process.
type env struct {
	args   []string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// command is one subcommand.
type command struct {
	summary string
	run     func(e *env) int
}

// commands is filled by each subcommand's file in its init function.
var commands = map[string]command{}

func register(name, summary string, run func(e *env) int) {
	if _, dup := commands[name]; dup {
		panic("duplicate subcommand " + name)
	}
	commands[name] = command{summary: summary, run: run}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	if args[0] == "--version" || args[0] == "version" {
		fmt.Fprintln(stdout, "shellgate", version)
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "shellgate: unknown command %q\n", args[0])
		usage(stderr)
		return exitUsage
	}
	return c.run(&env{args: args[1:], stdin: stdin, stdout: stdout, stderr: stderr})
}

// version is the shellgate version.
var version = "0.1.0-dev"

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: shellgate <command> [flags] [COMMAND]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'shellgate <command> -h' for a command's flags.")
}

// joinCommand joins the operands of a subcommand into the command to judge.
func joinCommand(args []string) string { return strings.Join(args, " ") }
