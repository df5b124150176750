package gate

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shellgate/shellgate/policy"
)

// zshSecret is the decoy secret the workspaces hold in .env and in a .pem
// two directories down.
const zshSecret = "DECOY-SECRET-7f3a91"

// zshClaims are claims about what zsh does with bytes bash reads
// harmlessly. Each is run with the real zsh (zsh -f -c, in a fresh decoy
// workspace): the claim holds when the effect shows (a MARKER file
// appears, the decoy secret or the given text is printed), and the test
// fails when it does not, so every claim has evidence. shellgate must not
// allow any of them when the shell is zsh or not known.
var zshClaims = []struct {
	name, cmd string
	// out, when set, is printed by zsh instead of the secret or a marker.
	out string
}{
	{name: "e qualifier runs code", cmd: `ls *(e:'touch MARKER':)`},
	{name: "e qualifier, / delimiter", cmd: `ls *(e/touch MARKER/)`},
	{name: "e qualifier, brace delimiter", cmd: `wc -l *(e{touch MARKER})`},
	{name: "e qualifier mixed with others", cmd: `ls -d *(/e:'touch MARKER':)`},
	{name: "e qualifier on a word with no *", cmd: `ls a.txt(e:'touch MARKER':)`},
	{name: "e qualifier after a quoted word", cmd: `echo 'a.txt'(e:'touch MARKER':)`},
	{name: "oe sort qualifier runs code", cmd: `ls *(oe:'touch MARKER':)`},
	{name: "+ qualifier runs a command by name", cmd: `ls *(+evil)`},
	{name: "D qualifier reads dot files", cmd: `cat *(D.)`},
	{name: "dot pattern with a qualifier", cmd: `cat .e*(.)`},
	{name: "** is recursive", cmd: `cat **/*.pem`},
	{name: "path is tied to PATH", cmd: `for path in .; do ls; done`},
	{name: "(e) flag evaluates a value", cmd: `x='$(touch MARKER)'; echo ${(e)x}`},
	{name: "$~var reads a value as a pattern", cmd: `x='*(e:touch MARKER:)'; ls $~x`},
	{name: "history modifiers in double quotes", cmd: `for f in x; do cat "$f:s/x/.env/"; done`},
	{name: "a bare redirection runs READNULLCMD", cmd: `< .env`},
	{name: "an anonymous function runs at once", cmd: `() { touch MARKER }`},
	{name: "TRAPEXIT runs on exit", cmd: `TRAPEXIT() { touch MARKER }; true`},
	{name: "zsh -c scripts are zsh", cmd: `zsh -f -c "ls *(e:'touch MARKER':)"`},
	{name: "cd OLD NEW", cmd: `cd one && cd one two && cat f.txt`, out: "TWO"},
	{name: "=cmd is a program's path", cmd: `echo =ls`, out: "/ls"},
	// A variable's value, read as arithmetic, shows in the error (redteam).
	{name: "printf reads a numeric argument as arithmetic", cmd: `printf '%d\n' HOME`, out: "operand expected at `/"},
	{name: "print -f is printf", cmd: `print -f '%x' HOME`, out: "operand expected at `/"},
	{name: "$[...] is arithmetic", cmd: `echo $[HOME]`, out: "operand expected at `/"},
	{name: "$[...] in double quotes", cmd: `echo "x$[HOME]"`, out: "operand expected at `/"},
	{name: "exit reads its operand as arithmetic", cmd: `exit HOME`, out: "operand expected at `/"},
}

// zshPlainReads are reads agents send: zsh runs them without a marker or
// the secret, and shellgate allows them when the shell is zsh.
var zshPlainReads = []string{
	"ls", "ls -la", "cat a.txt", "wc -l *.txt", "head -1 a.txt", "grep -n alpha a.txt",
	"find . -name '*.txt'", "sed -n 1p a.txt", "ls *(.)", "cat *.txt(.)", "ls -d one/*(/)",
	"for f in *.txt; do wc -l \"$f\"; done", "echo \"$HOME\"",
}

// zshWorkspace lays out a decoy workspace: .env and sub/deep/key.pem hold
// the secret, ./ls and bin/evil touch MARKER when run.
func zshWorkspace(t *testing.T, dir string) {
	t.Helper()
	touch, err := exec.LookPath("touch")
	if err != nil {
		t.Fatal(err)
	}
	marker := "#!/bin/sh\n" + touch + " \"$PWD/MARKER\"\n"
	files := map[string]string{
		".env": "TOKEN=" + zshSecret + "\n", "sub/deep/key.pem": zshSecret + "\n",
		"a.txt": "alpha\n", "notes.txt": "notes\n", "one/f.txt": "ONE\n", "two/f.txt": "TWO\n",
		"ls": marker, "bin/evil": marker,
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// runZsh runs cmd as zsh -f -c in dir and returns what it printed and
// whether it left a MARKER.
func runZsh(t *testing.T, zsh, dir, home, cmd string) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, zsh, "-f", "-c", cmd)
	c.Dir = dir
	c.Env = []string{"HOME=" + home, "PATH=" + filepath.Join(dir, "bin") + ":" + os.Getenv("PATH"),
		"READNULLCMD=cat", "LC_ALL=C"}
	out, _ := c.CombinedOutput()
	_, err := os.Stat(filepath.Join(dir, "MARKER"))
	return string(out), err == nil
}

// TestConfirmZsh runs every claim with the real zsh and checks that
// shellgate does not allow it as zsh or with the shell not known, and that
// the plain reads stay allowed as zsh.
func TestConfirmZsh(t *testing.T) {
	zsh := needTool(t, "zsh")
	home := t.TempDir()
	t.Setenv("HOME", home)
	root := t.TempDir()
	g := newGate(t, root)
	ctx := context.Background()
	for i, c := range zshClaims {
		dir := filepath.Join(root, "claim", strconv.Itoa(i))
		zshWorkspace(t, dir)
		// Decide first: running zsh changes the workspace.
		for _, shell := range []string{"zsh", ""} {
			d, err := g.Check(ctx, Request{Command: c.cmd, Cwd: dir, Shell: shell})
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if d.Action == policy.Allow {
				t.Errorf("%s: %q is allowed with shell %q, but zsh runs it with harm", c.name, c.cmd, shell)
			}
		}
		out, marker := runZsh(t, zsh, dir, home, c.cmd)
		switch {
		case c.out != "":
			if !strings.Contains(out, c.out) {
				t.Errorf("%s: claim not confirmed: zsh -f -c %q printed %q, without %q", c.name, c.cmd, out, c.out)
			}
		case !marker && !strings.Contains(out, zshSecret):
			t.Errorf("%s: claim not confirmed: zsh -f -c %q left no marker and printed no secret (%q)", c.name, c.cmd, out)
		}
	}
	for i, cmd := range zshPlainReads {
		dir := filepath.Join(root, "read", strconv.Itoa(i))
		zshWorkspace(t, dir)
		d, err := g.Check(ctx, Request{Command: cmd, Cwd: dir, Shell: "zsh"})
		if err != nil {
			t.Fatal(err)
		}
		if d.Action != policy.Allow {
			t.Errorf("%q as zsh: %s %v", cmd, d.Action, d.Reasons)
		}
		out, marker := runZsh(t, zsh, dir, home, cmd)
		if marker || strings.Contains(out, zshSecret) {
			t.Errorf("%q: zsh left a marker or printed the secret: %q", cmd, out)
		}
	}
}

// TestRunShell: Run judges a command as the shell that runs it and runs it
// there: the default runner's bash unless the request or the config names
// another (zsh runs as zsh -f -c).
func TestRunShell(t *testing.T) {
	needTool(t, "zsh")
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	cmd := "echo ${ZSH_VERSION:+zsh}${BASH_VERSION:+bash}"
	for _, tc := range []struct {
		shell string
		cfg   *policy.Config
		want  string
	}{
		{"", nil, "bash"},
		{"zsh", nil, "zsh"},
		{"bash", nil, "bash"},
		{"", &policy.Config{Mode: policy.ModeDefault, Shell: "zsh"}, "zsh"},
	} {
		var opts []Option
		if tc.cfg != nil {
			opts = append(opts, WithConfig(tc.cfg))
		}
		g := newGate(t, dir, opts...)
		res := g.Run(context.Background(), Request{Command: cmd, Shell: tc.shell, Approver: approve(true)})
		if res.Output == nil || strings.TrimSpace(res.Output.Head) != tc.want {
			t.Errorf("shell %q config %v: ran in %+v, want %s", tc.shell, tc.cfg != nil, res.Output, tc.want)
		}
		if res.Decision == nil || res.Decision.Shell != tc.want {
			t.Errorf("shell %q: judged as %q, want %s", tc.shell, res.Decision.Shell, tc.want)
		}
	}
	// A zsh-only danger is judged as zsh when zsh runs it.
	g := newGate(t, dir)
	res := g.Run(context.Background(), Request{Command: "for path in .; do ls; done", Shell: "zsh"})
	if res.Code != CodeNotApproved {
		t.Errorf("for path in . as zsh: %s %s", res.Status, res.Code)
	}
}
