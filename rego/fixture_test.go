package rego

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
)

// fixture is a real workspace and home directory in t.TempDir: a git
// workspace with source files and a .env, and a home with an SSH key.
type fixture struct {
	ws, home string
	cfg      *policy.Config
	engine   *Engine
}

func newFixture(t testing.TB, cfg *policy.Config, opts ...Option) *fixture {
	t.Helper()
	dir := t.TempDir()
	// Resolve the temp dir's own symlinks (macOS /var → /private/var).
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	f := &fixture{ws: filepath.Join(dir, "ws"), home: filepath.Join(dir, "home")}
	files := map[string]string{
		"ws/.git/HEAD":      "ref: refs/heads/main\n",
		"ws/.git/config":    "[core]\n\trepositoryformatversion = 0\n",
		"ws/README.md":      "# readme\n",
		"ws/notes.txt":      "notes\n",
		"ws/src/main.go":    "package main\n",
		"ws/.env":           "TOKEN=secret\n",
		"ws/build/out.o":    "",
		"ws/package.json":   "{}\n",
		"home/.ssh/id_rsa":  "KEY\n",
		"home/.bashrc":      "# rc\n",
		"home/notes/a.txt":  "a\n",
		"home/.config/x.rc": "x\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if s, ok := t.(interface{ Setenv(string, string) }); ok {
		s.Setenv("HOME", f.home)
	} else {
		os.Setenv("HOME", f.home)
	}
	if cfg == nil {
		cfg = policy.DefaultConfig()
	}
	f.cfg = cfg
	e, err := New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	f.engine = e
	return f
}

// input classifies cmd and runs the real read station on it.
func (f *fixture) input(t testing.TB, cmd, mode string) policy.Input {
	t.Helper()
	opts, err := f.cfg.ClassifyOptions(nil)
	if err != nil {
		t.Fatal(err)
	}
	in := policy.Input{Command: cmd, Mode: mode, Cwd: f.ws, Config: f.cfg, Report: classify.Classify(cmd, opts...)}
	b, err := f.cfg.Boundary(f.ws)
	if err != nil {
		t.Fatal(err)
	}
	b.Env = readstation.FullEnv{} // the command runs with no RIPGREP_CONFIG_PATH
	in.Station = readstation.Judge(in.Report, b)
	in.Writes = readstation.JudgeWrites(in.Report, b)
	return in
}

// modeInputs is input in default and in readonly mode: the report and
// the station do not depend on the mode, so they are made once.
func (f *fixture) modeInputs(t testing.TB, cmd string) [2]policy.Input {
	t.Helper()
	def := f.input(t, cmd, policy.ModeDefault)
	ro := def
	ro.Mode = policy.ModeReadonly
	return [2]policy.Input{def, ro}
}

// uniqueCommands is cmds without the repeats, in first-seen order: a
// command decided twice in the same fixture is decided alike.
func uniqueCommands(cmds []string) []string {
	seen := make(map[string]bool, len(cmds))
	out := cmds[:0:0]
	for _, c := range cmds {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

func (f *fixture) decide(t testing.TB, cmd, mode string) policy.Decision {
	t.Helper()
	d, err := f.engine.Decide(context.Background(), f.input(t, cmd, mode))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// withWrites judges in's writes on the boundary of its cwd under its
// config (the defaults when it has none), as the gate's pipeline does; a
// boundary that fails (a cwd that does not exist) still judges them.
func withWrites(in policy.Input) policy.Input {
	b, _ := in.Config.Boundary(in.Cwd)
	in.Writes = readstation.JudgeWrites(in.Report, b)
	return in
}
