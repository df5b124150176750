package gate

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/execution"
	"github.com/shellgate/shellgate/exitmeaning"
	"github.com/shellgate/shellgate/internal/catalogtest"
	"github.com/shellgate/shellgate/internal/testenv"
)

// TestRunExitMeaning: Run says what the exit means as the gate read the
// command: in the dialect of the shell that ran it (zsh's noglob returns
// grep's status; in bash it is no program), and with the gate's catalog
// (a program it adds, with exit meanings of its own). The commands run in
// the real bash and zsh.
func TestRunExitMeaning(t *testing.T) {
	testenv.LookPath(t, "zsh", "bash", "grep")
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// frob is a real program that exits 3.
	if err := os.WriteFile(filepath.Join(bin, "frob"), []byte("#!/bin/sh\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cat := catalogtest.Extend(t, catalogtest.Frob)
	env := WithEnv([]string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + dir}, nil, nil)
	tests := []struct {
		name  string
		opts  []Option
		shell string
		cmd   string
		code  int
		want  exitmeaning.Meaning
	}{
		{"zsh: noglob runs grep", nil, "zsh", "noglob grep beta f", 1, exitmeaning.Meaning{Message: "No matches found", Program: "grep"}},
		{"bash: noglob is no program", nil, "bash", "noglob grep beta f", 127, exitmeaning.Meaning{Error: true, Message: "Command not found", Program: "noglob"}},
		{"the gate's catalog", []Option{WithCatalog(cat)}, "bash", "frob f", 3, exitmeaning.Meaning{Error: true, Message: "Frob jammed", Program: "frob"}},
		{"the embedded catalog has no frob", nil, "bash", "frob f", 3, exitmeaning.Meaning{Error: true, Program: "frob"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newGate(t, dir, append([]Option{env}, tc.opts...)...)
			res := g.Run(context.Background(), Request{Command: tc.cmd, Shell: tc.shell, Sandbox: execution.SandboxFullAccess, Approver: approve(true)})
			if res.Run == nil {
				t.Fatalf("did not run: %s %s", res.Code, res.Message)
			}
			if res.Run.ExitCode != tc.code {
				t.Fatalf("%s -c %q exited %d, want %d", tc.shell, tc.cmd, res.Run.ExitCode, tc.code)
			}
			if diff := cmp.Diff(&tc.want, res.Meaning); diff != "" {
				t.Errorf("meaning (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRunKeepsStatements: a run keeps the statements its check read, so
// that its exit meaning needs no parse of its own; a check alone keeps
// none.
func TestRunKeepsStatements(t *testing.T) {
	g := newGate(t, t.TempDir())
	ctx := context.Background()
	req := Request{Command: "true; noglob grep x f | head", Shell: "zsh"}
	run, err := g.decideIn(ctx, req, g.runEnv, true)
	if err != nil {
		t.Fatal(err)
	}
	check, err := g.Decide(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.stmts) != 2 || len(check.stmts) != 0 {
		t.Errorf("statements kept: run %d, check %d; want 2 and 0", len(run.stmts), len(check.stmts))
	}
	got := exitmeaning.InterpretParsed(run.Report, run.stmts, 1, exitmeaning.WithCatalog(g.Pipeline().Catalog()))
	if diff := cmp.Diff(g.ExitMeaning(req.Command, 1, classify.DialectZsh), got); diff != "" {
		t.Errorf("from the run's statements vs afresh (-want +got):\n%s", diff)
	}
}
