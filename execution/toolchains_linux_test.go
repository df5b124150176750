//go:build linux

package execution

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSafePathDirVerdicts checks safePathDir's kept verdicts: each case
// judges a directory on PATH, changes the file system as a command of an
// earlier run could, and judges it again; the second verdict must be the
// one a fresh resolution gives (the kept one must not be taken for a
// file that changed). The first verdict is also checked to be kept.
func TestSafePathDirVerdicts(t *testing.T) {
	tests := []struct {
		name string
		// setup makes the PATH entry d under root (home has .ssh and
		// .aws); change changes it between the two verdicts.
		setup, change func(t *testing.T, root, home, d string)
		first, second bool
	}{{
		name:   "unchanged",
		setup:  func(t *testing.T, root, home, d string) { must(t, os.Mkdir(d, 0o755)) },
		change: func(t *testing.T, root, home, d string) {},
		first:  true, second: true,
	}, {
		name:  "dir replaced by a symlink to ~/.ssh",
		setup: func(t *testing.T, root, home, d string) { must(t, os.Mkdir(d, 0o755)) },
		change: func(t *testing.T, root, home, d string) {
			must(t, os.Remove(d))
			must(t, os.Symlink(filepath.Join(home, ".ssh"), d))
		},
		first: true, second: false,
	}, {
		name: "symlink retargeted into ~/.aws",
		setup: func(t *testing.T, root, home, d string) {
			must(t, os.Mkdir(filepath.Join(root, "real"), 0o755))
			must(t, os.Symlink(filepath.Join(root, "real"), d))
		},
		change: func(t *testing.T, root, home, d string) {
			must(t, os.Remove(d))
			must(t, os.Symlink(filepath.Join(home, ".aws", "sub"), d))
		},
		first: true, second: false,
	}, {
		name: "symlink's target moved into ~/.ssh and another symlink made",
		setup: func(t *testing.T, root, home, d string) {
			must(t, os.Mkdir(filepath.Join(root, "real"), 0o755))
			must(t, os.Symlink(filepath.Join(root, "real"), d))
		},
		change: func(t *testing.T, root, home, d string) {
			// The same directory (inode), renamed: its ctime changes.
			must(t, os.Rename(filepath.Join(root, "real"), filepath.Join(home, ".ssh", "real")))
			must(t, os.Remove(d))
			must(t, os.Symlink(filepath.Join(home, ".ssh", "real"), d))
		},
		first: true, second: false,
	}, {
		name:  "symlink into ~/.ssh replaced by a directory",
		setup: func(t *testing.T, root, home, d string) { must(t, os.Symlink(filepath.Join(home, ".ssh"), d)) },
		change: func(t *testing.T, root, home, d string) {
			must(t, os.Remove(d))
			must(t, os.Mkdir(d, 0o755))
		},
		first: false, second: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, home := t.TempDir(), t.TempDir()
			must(t, os.Mkdir(filepath.Join(home, ".ssh"), 0o700))
			must(t, os.MkdirAll(filepath.Join(home, ".aws", "sub"), 0o700))
			d := filepath.Join(root, "bin")
			tt.setup(t, root, home, d)
			st, safe, err := safePathDir(d, home, false)
			if err != nil || safe != tt.first {
				t.Fatalf("first verdict: %v, %v; want %v", safe, err, tt.first)
			}
			if !st.kept {
				t.Fatalf("%s: the file system's ctimes are not kept here: no verdict is kept to test", d)
			}
			pathDirVerdicts.Lock()
			v, ok := pathDirVerdicts.m[pathDirKey{d, home, false}]
			pathDirVerdicts.Unlock()
			if !ok || v.safe != tt.first {
				t.Fatalf("the first verdict was not kept: %+v %v", v, ok)
			}
			tt.change(t, root, home, d)
			if _, safe, err = safePathDir(d, home, false); err != nil || safe != tt.second {
				t.Errorf("second verdict: %v, %v; want %v", safe, err, tt.second)
			}
		})
	}
}

// TestEtcLinksFollowed checks which symlinks of a granted listing a kept
// ruleset follows (grantCache's links): not one that names a file of a
// system directory granted whole, but one that names a file elsewhere,
// in /etc or in /proc.
func TestEtcLinksFollowed(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	must(t, os.WriteFile(filepath.Join(other, "resolv.conf"), []byte("nameserver 127.0.0.1\n"), 0o644))
	for name, target := range map[string]string{
		"localtime":   "/usr/bin/env",
		"os-release":  "../../../../../../../../../../usr/bin/env",
		"resolv.conf": filepath.Join(other, "resolv.conf"),
		"mtab":        "/proc/mounts",
		"hosts-link":  "/etc/hosts",
	} {
		must(t, os.Symlink(target, filepath.Join(dir, name)))
	}
	var c grantCache
	_, _, ok, _, links := c.getStamped(dir)
	if !ok {
		t.Fatal("no listing")
	}
	var got []string
	for _, l := range links {
		got = append(got, filepath.Base(l))
	}
	slices.Sort(got)
	if want := []string{"hosts-link", "mtab", "resolv.conf"}; !slices.Equal(got, want) {
		t.Errorf("links followed: %q, want %q", got, want)
	}
}

// TestSafePathDirMountRoot checks that the verdict on a system directory
// that is the root of a mount of a file system that keeps no ctimes
// (/proc) is kept too: it cannot be renamed or removed while mounted.
func TestSafePathDirMountRoot(t *testing.T) {
	st, safe, err := safePathDir("/proc", t.TempDir(), true)
	if err != nil || !safe {
		t.Fatalf("/proc: %v %v", safe, err)
	}
	if !st.mountRoot {
		t.Fatalf("/proc is not a mount root here: %+v", st)
	}
	pathDirVerdicts.Lock()
	defer pathDirVerdicts.Unlock()
	for k := range pathDirVerdicts.m {
		if k.dir == "/proc" && k.system {
			return
		}
	}
	t.Error("the verdict on /proc was not kept")
}
