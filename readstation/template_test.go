package readstation

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/shellgate/shellgate/internal/testenv"
)

func TestLooksSecret(t *testing.T) {
	tests := []struct {
		name, content string
		want          bool
	}{
		{"empty values", "API_KEY=\nDEBUG=true\nPORT=3000\n", false},
		{"placeholders", "OPENAI_API_KEY=your-openai-api-key-here\nSECRET_KEY=changeme\nTOKEN=<token>\n", false},
		{"a prefix with no body", "STRIPE_SECRET_KEY=sk_test_...\nGITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n", false},
		{"development database URL", "DATABASE_URL=postgres://postgres:postgres@localhost:5432/app\nREDIS_URL=redis://localhost:6379\n", false},
		{"a URL whose password is a variable", "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app\n", false},
		{"URLs and paths", "API_BASE=https://api.example.com/v1/endpoint/resource\nLOG_DIR=/var/log/myapplication/service\n", false},
		{"a long word of letters only", "APP_NAME=MyVeryLongApplicationNameHere\n", false},
		{"a commented-out token-like value", "# SESSION=8f3a9c2b7d1e4f6a0b5c8d2e9f1a3b4c\n", false},
		{"a GitHub token", "GITHUB_TOKEN=ghp_Zq8aX2vB7nL4kP9sT1wY6eR3uI0oM5jH8gF2\n", true},
		{"an AWS key", "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLF\n", true},
		{"an Anthropic key", "ANTHROPIC_API_KEY=sk-ant-api03-Zq8aX2vB7nL4kP9sT1wY6eR3uI0oM5jH8gF2\n", true},
		{"a private key", "KEY=\"-----BEGIN RSA PRIVATE KEY-----\\nMIIE...\"\n", true},
		{"a hex secret", "SESSION_SECRET=8f3a9c2b7d1e4f6a0b5c8d2e9f1a3b4c\n", true},
		{"a password in a URL", "DB=postgres://app:Zx9vQ2pLm7@db.internal:5432/app\n", true},
		{"a JSON web token", "JWT=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U\n", true},
		{"a base64 secret", "SECRET=q7Vx3mZP0a9LkR2uYt8N4bWc6Ej1Hs5Dg==\n", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			what, got := LooksSecret([]byte(tc.content))
			if got != tc.want {
				t.Errorf("LooksSecret(%q) = %q, %v; want %v", tc.content, what, got, tc.want)
			}
		})
	}
}

func TestIsTemplate(t *testing.T) {
	got := map[string]bool{}
	for _, p := range []string{".env.example", "/x/.env.sample", ".env.local.template", ".env.dist", ".example", "config.yaml", ".env", "a.EXAMPLE", ".env.examples"} {
		got[p] = IsTemplate(p)
	}
	want := map[string]bool{".env.example": true, "/x/.env.sample": true, ".env.local.template": true, ".env.dist": true,
		".example": false, "config.yaml": false, ".env": false, "a.EXAMPLE": true, ".env.examples": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("IsTemplate (-want +got):\n%s", diff)
	}
}

// TestTemplateReads: a template a deny row covers is read when its content
// is clean, denied when it holds a secret, in a tree walk too (a tree
// found clean is walked again once a template in it changes), and the
// admission catches a template changed after the check.
func TestTemplateReads(t *testing.T) {
	f := newFixture(t)
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(f.proj, rel)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
	write("tpl/.env.example", "API_KEY=your-key-here\nPORT=3000\n")
	write("tpl/main.go", "package main\n")
	write("bad/.env.sample", "API_KEY=ghp_Zq8aX2vB7nL4kP9sT1wY6eR3uI0oM5jH8gF2\n")
	must(t, os.Symlink(filepath.Join(f.proj, "bad/.env.sample"), filepath.Join(f.proj, "tpl/link.example")))
	b := f.boundary(t, "proj")
	verdict := func(cmd string) Verdict {
		t.Helper()
		st := judge(t, cmd, b)
		if len(st.Reads) != 1 {
			t.Fatalf("%s: %d reads", cmd, len(st.Reads))
		}
		return st.Reads[0].Verdict
	}
	got := map[string]Verdict{}
	for _, cmd := range []string{"cat tpl/.env.example", "cat bad/.env.sample", "cat tpl/link.example", "grep -r PORT bad"} {
		got[cmd] = verdict(cmd)
	}
	want := map[string]Verdict{"cat tpl/.env.example": VerdictOK, "cat bad/.env.sample": VerdictDenied,
		"cat tpl/link.example": VerdictDenied, "grep -r PORT bad": VerdictDenied}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}

	must(t, os.Remove(filepath.Join(f.proj, "tpl/link.example")))
	if v := verdict("grep -r PORT tpl"); v != VerdictOK {
		t.Fatalf("grep -r PORT tpl: %s, want ok", v)
	}
	st := judge(t, "cat tpl/.env.example", b)
	adm := st.Admission()
	write("tpl/.env.example", "API_KEY=ghp_Zq8aX2vB7nL4kP9sT1wY6eR3uI0oM5jH8gF2\n")
	if err := adm.Recheck(); !errors.Is(err, ErrChanged) {
		t.Errorf("Recheck after the template gained a token = %v, want changed-since-check", err)
	}
	if v := verdict("grep -r PORT tpl"); v != VerdictDenied {
		t.Errorf("grep -r PORT tpl after the template gained a token: %s, want denied", v)
	}
}

func FuzzLooksSecret(f *testing.F) {
	for _, s := range []string{"API_KEY=\n", "T=ghp_Zq8aX2vB7nL4kP9sT1wY6eR3uI0oM5jH8gF2", "postgres://a:b@c/d", "\xff\xfe=\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		w1, s1 := LooksSecret(data)
		w2, s2 := LooksSecret(data)
		if w1 != w2 || s1 != s2 {
			t.Fatalf("not deterministic: %q %v, %q %v", w1, s1, w2, s2)
		}
	})
}

// TestTrackedPathspecGlob holds the tracked check of a git pathspec glob
// (git grep x -- '*.go') to git ls-files with the same pathspec: the read
// is denied exactly when git lists a tracked path a deny row covers.
func TestTrackedPathspecGlob(t *testing.T) {
	git := testenv.LookPath(t, "git")
	dir := t.TempDir()
	env := []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1"}
	run := func(cwd string, args ...string) string {
		t.Helper()
		c := exec.Command(git, args...)
		c.Dir, c.Env = cwd, env
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run(dir, "init", "-q", ".")
	writeTree(t, dir, map[string]string{".env": "T=1\n", "src/.env": "T=1\n", "m.go": "package m\n", "src/a.py": "x = 1\n", "src/b.go": "package b\n", "docs/env.md": "x\n"})
	run(dir, "add", ".")
	for _, cwd := range []string{".", "src"} {
		for _, spec := range []string{"*.go", "*env", "s*", "*.py", "src/*", "*.md", ".e*", "?env"} {
			d := filepath.Join(dir, cwd)
			listed := run(d, "ls-files", "--", spec)
			wantDenied := false
			for _, l := range strings.Fields(listed) {
				if filepath.Base(l) == ".env" {
					wantDenied = true
				}
			}
			b, err := DefaultBoundary(d)
			must(t, err)
			b.Home, b.Env = t.TempDir(), ProcessEnv
			st := judge(t, "git grep x -- '"+spec+"'", b)
			denied := false
			for _, r := range st.Reads {
				if r.Verdict == VerdictDenied {
					denied = true
				}
			}
			if denied != wantDenied {
				t.Errorf("in %s, git grep x -- %q: denied %v, want %v (git ls-files lists %q)", cwd, spec, denied, wantDenied, listed)
			}
		}
	}
}
