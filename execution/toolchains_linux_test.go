//go:build linux

package execution

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
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
	// Each layer: the findings knownPaths keeps while inotify reports
	// nothing (refreshed before each verdict, as a run does), and the
	// verdicts kept under a ctime (judgePathDir alone).
	layers := []struct {
		name  string
		judge func(k pathDirKey) (ctimeStat, bool, error)
		kept  func(k pathDirKey) (bool, bool)
	}{{
		name: "watched",
		judge: func(k pathDirKey) (ctimeStat, bool, error) {
			knownPaths.refresh()
			return safePathDir(k.dir, k.home, k.kind)
		},
		kept: func(k pathDirKey) (bool, bool) { v, ok := knownPaths.lookup(k); return v.safe, ok },
	}, {
		name:  "ctime",
		judge: judgePathDir,
		kept: func(k pathDirKey) (bool, bool) {
			pathDirVerdicts.Lock()
			defer pathDirVerdicts.Unlock()
			v, ok := pathDirVerdicts.m[k]
			return v.safe, ok
		},
	}}
	for _, layer := range layers {
		for _, tt := range tests {
			t.Run(layer.name+"/"+tt.name, func(t *testing.T) {
				root, home := t.TempDir(), t.TempDir()
				must(t, os.Mkdir(filepath.Join(home, ".ssh"), 0o700))
				must(t, os.MkdirAll(filepath.Join(home, ".aws", "sub"), 0o700))
				d := filepath.Join(root, "bin")
				tt.setup(t, root, home, d)
				k := pathDirKey{d, home, pathDir}
				st, safe, err := layer.judge(k)
				if err != nil || safe != tt.first {
					t.Fatalf("first verdict: %v, %v; want %v", safe, err, tt.first)
				}
				if layer.name == "ctime" && !st.kept {
					t.Fatalf("%s: the file system's ctimes are not kept here: no verdict is kept to test", d)
				}
				if v, ok := layer.kept(k); !ok || v != tt.first {
					t.Fatalf("the first verdict was not kept: %v %v", v, ok)
				}
				tt.change(t, root, home, d)
				if _, safe, err = layer.judge(k); err != nil || safe != tt.second {
					t.Errorf("second verdict: %v, %v; want %v", safe, err, tt.second)
				}
			})
		}
	}
}

// TestKnownPathsMissing checks that knownPaths keeps that a directory is
// missing, and forgets it when the directory is made, through a symlink
// made on the way too.
func TestKnownPathsMissing(t *testing.T) {
	root := t.TempDir()
	d := filepath.Join(root, "a", "bin")
	k := pathDirKey{d, "", pathDir}
	knownPaths.refresh()
	if _, _, err := safePathDir(d, "", pathDir); err == nil {
		t.Fatal("a missing directory was found")
	}
	if v, ok := knownPaths.lookup(k); !ok || v.err == nil {
		t.Fatalf("that %s is missing was not kept: %+v %v", d, v, ok)
	}
	must(t, os.Mkdir(filepath.Join(root, "real"), 0o755))
	must(t, os.Mkdir(filepath.Join(root, "real", "bin"), 0o755))
	must(t, os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "a")))
	knownPaths.refresh()
	if _, safe, err := safePathDir(d, "", pathDir); err != nil || !safe {
		t.Fatalf("after it was made: %v %v", safe, err)
	}
	// A change in the symlink's target directory reaches the finding.
	must(t, os.Rename(filepath.Join(root, "real", "bin"), filepath.Join(root, "real", "old")))
	knownPaths.refresh()
	if _, _, err := safePathDir(d, "", pathDir); err == nil {
		t.Fatal("the directory renamed away is still found")
	}
}

// TestEtcLinksFollowed checks which symlinks of a granted listing a kept
// ruleset follows (grantCache's links): not one that names a file of a
// system directory granted whole (/usr, /proc), but one that names a
// file elsewhere or in /etc.
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
	if want := []string{"hosts-link", "resolv.conf"}; !slices.Equal(got, want) {
		t.Errorf("links followed: %q, want %q", got, want)
	}
}

// TestSafePathDirMountRoot checks that the verdict on a system directory
// that is the root of a mount of a file system that keeps no ctimes
// (/proc) is kept too: it cannot be renamed or removed while mounted.
func TestSafePathDirMountRoot(t *testing.T) {
	st, safe, err := safePathDir("/proc", t.TempDir(), systemDir)
	if err != nil || !safe {
		t.Fatalf("/proc: %v %v", safe, err)
	}
	if !st.mountRoot {
		t.Fatalf("/proc is not a mount root here: %+v", st)
	}
	pathDirVerdicts.Lock()
	defer pathDirVerdicts.Unlock()
	for k := range pathDirVerdicts.m {
		if k.dir == "/proc" && k.kind == systemDir {
			return
		}
	}
	t.Error("the verdict on /proc was not kept")
}

// TestKnownPathsMount checks that a mount on a kept directory reaches
// knownPaths (mounts make no inotify event: the mount table is polled).
func TestKnownPathsMount(t *testing.T) {
	if os.Getuid() != 0 {
		// As an unprivileged user (TestPackageAsUser's run of this
		// package, or a developer's) no mount can be made in this
		// process's namespace; CI runs the package as root too.
		t.Skip("mounting a tmpfs needs root: the run as root covers the mount table's poll")
	}
	d := filepath.Join(t.TempDir(), "bin")
	must(t, os.Mkdir(d, 0o755))
	knownPaths.refresh()
	before, _, err := safePathDir(d, "", pathDir)
	must(t, err)
	if _, ok := knownPaths.lookup(pathDirKey{d, "", pathDir}); !ok {
		t.Fatal("not kept")
	}
	// In this process's mount namespace (the one knownPaths polls);
	// undone at the end.
	must(t, unix.Mount("tmpfs", d, "tmpfs", 0, "size=1m"))
	t.Cleanup(func() { unix.Unmount(d, unix.MNT_DETACH) })
	knownPaths.refresh()
	after, _, err := safePathDir(d, "", pathDir)
	must(t, err)
	if after.dev == before.dev && after.ino == before.ino {
		t.Errorf("after a tmpfs was mounted on %s its identity is still %d:%d", d, before.dev, before.ino)
	}
}

// TestGrantCacheFresh checks that a kept listing (grantCache, as /etc's)
// is listed again when an entry is made in the directory or in a
// secret's directory, and not when only a file's content changes; a
// secret made since is never granted.
func TestGrantCacheFresh(t *testing.T) {
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "ssh"), 0o755))
	for _, f := range []string{"hosts", "ssh/ssh_config", "ssh/ssh_host_rsa_key"} {
		must(t, os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o644))
	}
	var c grantCache
	list := func() (uint64, []string) {
		t.Helper()
		knownPaths.refresh()
		dirs, files, ok, gen, _ := c.getStamped(dir)
		if !ok {
			t.Fatal("no listing")
		}
		var got []string
		for _, p := range append(dirs, files...) {
			rel, _ := filepath.Rel(dir, p)
			got = append(got, rel)
		}
		slices.Sort(got)
		return gen, got
	}
	g1, got := list()
	if want := []string{"hosts", "ssh/ssh_config"}; !slices.Equal(got, want) {
		t.Fatalf("listing %q, want %q", got, want)
	}
	if g, _ := list(); g != g1 {
		t.Errorf("listed again with nothing changed (generation %d, was %d)", g, g1)
	}
	must(t, os.WriteFile(filepath.Join(dir, "hosts"), []byte("changed\n"), 0o644))
	if g, _ := list(); g != g1 {
		t.Errorf("listed again after a content change (generation %d, was %d)", g, g1)
	}
	must(t, os.WriteFile(filepath.Join(dir, "new"), []byte("x\n"), 0o644))
	g2, got := list()
	if want := []string{"hosts", "new", "ssh/ssh_config"}; g2 == g1 || !slices.Equal(got, want) {
		t.Errorf("after an entry was made: generation %d (was %d), listing %q, want %q", g2, g1, got, want)
	}
	must(t, os.WriteFile(filepath.Join(dir, "ssh", "ssh_host_ed25519_key"), []byte("KEY\n"), 0o600))
	must(t, os.WriteFile(filepath.Join(dir, "ssh", "moduli"), []byte("x\n"), 0o644))
	g3, got := list()
	if want := []string{"hosts", "new", "ssh/moduli", "ssh/ssh_config"}; g3 == g2 || !slices.Equal(got, want) {
		t.Errorf("after entries were made in ssh/: generation %d (was %d), listing %q, want %q", g3, g2, got, want)
	}
}

// TestToolchainDirsSwapped: a toolchain directory found once and then
// replaced by a symlink to ~/.ssh (or into it) is not given again; one
// made again is (ToolchainDirs keeps resolutions while nothing on their
// way changed).
func TestToolchainDirsSwapped(t *testing.T) {
	home, tools := t.TempDir(), t.TempDir()
	must(t, os.Mkdir(filepath.Join(home, ".ssh"), 0o700))
	rustup := filepath.Join(tools, "rustup")
	must(t, os.Mkdir(rustup, 0o755))
	env := []string{"RUSTUP_HOME=" + rustup, "PATH=/usr/bin:/bin"}
	has := func() bool { return slices.Contains(ToolchainDirs(env, home, nil), rustup) }
	if !has() || !has() {
		t.Fatal("the toolchain directory was not given")
	}
	must(t, os.Remove(rustup))
	must(t, os.Symlink(filepath.Join(home, ".ssh"), rustup))
	if has() {
		t.Error("a toolchain directory now a symlink to ~/.ssh was given")
	}
	must(t, os.Remove(rustup))
	must(t, os.Mkdir(rustup, 0o755))
	if !has() {
		t.Error("the toolchain directory made again was not given")
	}
}
