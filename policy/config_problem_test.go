package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// configForms plant, at p, a project config in a form that cannot be
// used, and say what the reason must name.
var configForms = []struct {
	name  string
	plant func(t *testing.T, p string)
	want  string
}{
	{"directory", func(t *testing.T, p string) { must(t, os.Mkdir(p, 0o755)) }, "is a directory"},
	{"dangling symlink", func(t *testing.T, p string) { must(t, os.Symlink(p+".gone", p)) }, "which does not exist"},
	{"looping symlink", func(t *testing.T, p string) { must(t, os.Symlink(filepath.Base(p), p)) }, "loops"},
	{"FIFO", func(t *testing.T, p string) {
		if err := mkfifo(p); err != nil {
			t.Skipf("no FIFOs here: %v", err)
		}
	}, "FIFO"},
	{"symlink to a FIFO", func(t *testing.T, p string) {
		if err := mkfifo(p + ".fifo"); err != nil {
			t.Skipf("no FIFOs here: %v", err)
		}
		must(t, os.Symlink(p+".fifo", p))
	}, "FIFO"},
	{"symlink to /dev/zero", func(t *testing.T, p string) { linkDevice(t, "/dev/zero", p) }, "device"},
	{"symlink to /dev/stdin", func(t *testing.T, p string) { linkDevice(t, "/dev/stdin", p) }, "not a regular file"},
	{"invalid YAML", func(t *testing.T, p string) { must(t, os.WriteFile(p, []byte("deny_reads: [\n"), 0o644)) }, "yaml"},
	{"invalid UTF-8", func(t *testing.T, p string) { must(t, os.WriteFile(p, []byte("mode: \"\xff\"\n"), 0o644)) }, "UTF-8"},
	{"too large", func(t *testing.T, p string) { must(t, os.WriteFile(p, make([]byte, MaxConfigBytes+1), 0o644)) }, "limit"},
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func linkDevice(t *testing.T, dev, p string) {
	t.Helper()
	if _, err := os.Stat(dev); err != nil {
		t.Skipf("no %s here", dev)
	}
	must(t, os.Symlink(dev, p))
}

// noHang runs fn and fails the test if it has not returned after a
// minute: a read that blocks (a FIFO, a device) would never return.
func noHang(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("blocked: still reading after a minute")
	}
}

// TestProjectConfigForms: a .shellgate.yaml in any form that is not a
// readable regular file is found (never taken for "no config", even with
// a good config in a parent) and is a config whose Problem names the file
// and says what it is, without ever blocking.
func TestProjectConfigForms(t *testing.T) {
	for _, tc := range configForms {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			t.Setenv("XDG_STATE_HOME", filepath.Join(home, ".state"))
			parent := filepath.Join(home, "parent")
			proj := filepath.Join(parent, "proj")
			must(t, os.MkdirAll(proj, 0o755))
			// A parent's config that would apply if the project's were
			// skipped.
			must(t, os.WriteFile(filepath.Join(parent, ConfigFileName), []byte("mode: default\n"), 0o644))
			p := filepath.Join(proj, ConfigFileName)
			tc.plant(t, p)
			noHang(t, func() {
				got, src, _ := FindConfigSource(proj)
				if got != p || src != SourceProject {
					t.Errorf("FindConfigSource = %q %q, want %q (the project's)", got, src, p)
				}
				c, err := LoadConfigFor("", proj)
				if err != nil {
					t.Fatalf("LoadConfigFor: %v", err)
				}
				if !strings.Contains(c.Problem, p) || !strings.Contains(c.Problem, tc.want) {
					t.Errorf("Problem = %q, want it to name %s and say %q", c.Problem, p, tc.want)
				}
				r, err := Resolve(c)
				if err != nil {
					t.Fatalf("Resolve: %v", err)
				}
				if r.Config.Problem != c.Problem {
					t.Errorf("the config in effect lost the problem: %q", r.Config.Problem)
				}
				// The file the user names is an error of theirs.
				if _, err := LoadConfigFor(p, proj); err == nil {
					t.Errorf("LoadConfigFor(%s) explicit: no error", p)
				}
			})
		})
	}
}

// TestPolicyDirForms: a project's policy directory holding a module that
// is a FIFO, a link to a device or a dangling link is a problem of the
// config in effect (every decision denied), never a module skipped.
func TestPolicyDirForms(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, p string)
		want  string
	}{
		{"FIFO", func(t *testing.T, p string) {
			if err := mkfifo(p); err != nil {
				t.Skipf("no FIFOs here: %v", err)
			}
		}, "FIFO"},
		{"symlink to /dev/zero", func(t *testing.T, p string) { linkDevice(t, "/dev/zero", p) }, "device"},
		{"symlink to /dev/stdin", func(t *testing.T, p string) { linkDevice(t, "/dev/stdin", p) }, "not a regular file"},
		{"dangling symlink", func(t *testing.T, p string) { must(t, os.Symlink(p+".gone", p)) }, "does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			t.Setenv("XDG_STATE_HOME", filepath.Join(home, ".state"))
			proj := filepath.Join(home, "proj")
			pol := filepath.Join(proj, "policy")
			must(t, os.MkdirAll(pol, 0o755))
			must(t, os.WriteFile(filepath.Join(proj, ConfigFileName), []byte("policy_dirs: ["+pol+"]\n"), 0o644))
			mod := filepath.Join(pol, "deny.rego")
			tc.plant(t, mod)
			noHang(t, func() {
				c, err := LoadConfigFor("", proj)
				if err != nil || c.Problem != "" {
					t.Fatalf("LoadConfigFor: %v %q", err, c.Problem)
				}
				r, err := Resolve(c)
				if err != nil {
					t.Fatalf("Resolve: %v", err)
				}
				if !strings.Contains(r.Config.Problem, mod) || !strings.Contains(r.Config.Problem, tc.want) {
					t.Errorf("Problem = %q, want it to name %s and say %q", r.Config.Problem, mod, tc.want)
				}
			})
		})
	}
}
