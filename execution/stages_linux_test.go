package execution

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// stageConfinement is BenchmarkSandboxWorkspaceWrite's confinement, for
// timing the stages of workspace-write one by one.
func stageConfinement(b *testing.B) *Confinement {
	dir := b.TempDir()
	if err := exec.Command("git", "init", "-q", dir).Run(); err != nil {
		b.Skipf("git init: %v", err)
	}
	time.Sleep(racyWindow + 100*time.Millisecond) // a workspace not changed this second
	b.ResetTimer()
	return &Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{dir}, Cache: filepath.Join(b.TempDir(), "cache")}
}

// BenchmarkStageProtectedScan times protectedPathsScan (the protected
// paths and the walk beneath the roots' tops, before the run).
func BenchmarkStageProtectedScan(b *testing.B) {
	c := stageConfinement(b)
	for i := 0; i < b.N; i++ {
		protectedPathsScan(c)
	}
}

// BenchmarkStageGuardBefore times newGuard (the state of the protected
// paths before the run).
func BenchmarkStageGuardBefore(b *testing.B) {
	c := stageConfinement(b)
	prot, _ := protectedPathsScan(c)
	var paths []string
	for _, p := range prot {
		paths = append(paths, p.path)
	}
	for i := 0; i < b.N; i++ {
		newGuard(paths, "")
	}
}

// BenchmarkStageGuardAfter times guard.undo with nothing changed (the
// check after the run, the nested walk included).
func BenchmarkStageGuardAfter(b *testing.B) {
	c := stageConfinement(b)
	prot, nested := protectedPathsScan(c)
	var paths []string
	for _, p := range prot {
		paths = append(paths, p.path)
	}
	g := newGuard(paths, "")
	g.nested = nested
	for i := 0; i < b.N; i++ {
		if d := g.undo(); len(d) > 0 {
			b.Fatal(d)
		}
	}
}

// BenchmarkStageGuardAfterObjects is BenchmarkStageGuardAfter for a
// repository with all 256 loose object directories (each looked at for
// FIFOs).
func BenchmarkStageGuardAfterObjects(b *testing.B) {
	c := stageConfinement(b)
	for i := 0; i < 256; i++ {
		d := filepath.Join(c.Roots[0], ".git/objects", fmt.Sprintf("%02x", i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "0123456789abcdef0123456789abcdef012345"), []byte("x"), 0o444); err != nil {
			b.Fatal(err)
		}
	}
	prot, nested := protectedPathsScan(c)
	var paths []string
	for _, p := range prot {
		paths = append(paths, p.path)
	}
	g := newGuard(paths, "")
	g.nested = nested
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if d := g.undo(); len(d) > 0 {
			b.Fatal(d)
		}
	}
}

// BenchmarkStageSockets times outsideSockets.
func BenchmarkStageSockets(b *testing.B) {
	c := stageConfinement(b)
	for i := 0; i < b.N; i++ {
		outsideSockets(c.Roots)
	}
}

// BenchmarkStageMountnsKey times mountnsFor's lookup of a kept mount
// namespace.
func BenchmarkStageMountnsKey(b *testing.B) {
	if os.Getuid() != 0 {
		b.Skip("root only")
	}
	c := stageConfinement(b)
	all, _ := protectedPathsScan(c)
	var prot []protectedPath
	var states []pathState
	for _, p := range all {
		if st := statePath(p.path); st.exists && st.symlink == "" {
			prot, states = append(prot, p), append(states, st)
		}
	}
	for i := 0; i < b.N; i++ {
		if _, _, err := mountnsFor(prot, states, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStageWalk1000 times the walk before and after a run (scan,
// guard, undo with nothing changed) in a workspace of 1000 directories.
func BenchmarkStageWalk1000(b *testing.B) {
	dir := b.TempDir()
	if err := exec.Command("git", "init", "-q", dir).Run(); err != nil {
		b.Skipf("git init: %v", err)
	}
	for i := 0; i < 100; i++ {
		for j := 0; j < 9; j++ {
			if err := os.MkdirAll(filepath.Join(dir, "pkg"+string(rune('a'+i%26))+string(rune('a'+i/26)), "sub"+string(rune('a'+j))), 0o755); err != nil {
				b.Fatal(err)
			}
		}
	}
	time.Sleep(racyWindow + 100*time.Millisecond)
	c := &Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{dir}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		prot, nested := protectedPathsScan(c)
		var paths []string
		for _, p := range prot {
			paths = append(paths, p.path)
		}
		g := newGuard(paths, "")
		g.nested = nested
		if d := g.undo(); len(d) > 0 {
			b.Fatal(d)
		}
	}
}

// BenchmarkStageGuardRun times what workspace-write does for the
// protected paths around one run, as the run does it: the scan, the
// guard's states, the kept mount namespace's lookup, the check after.
func BenchmarkStageGuardRun(b *testing.B) {
	if os.Getuid() != 0 {
		b.Skip("root only")
	}
	c := stageConfinement(b)
	for i := 0; i < b.N; i++ {
		prot, nested := protectedPathsScan(c)
		paths := make([]string, 0, len(prot))
		for _, p := range prot {
			paths = append(paths, p.path)
		}
		g := newGuard(paths, "")
		g.nested = nested
		var pin []protectedPath
		var states []pathState
		for i, p := range prot {
			if st := g.before[i]; st.exists && st.symlink == "" {
				pin, states = append(pin, p), append(states, st)
			}
		}
		if _, _, err := mountnsFor(pin, states, nil); err != nil {
			b.Fatal(err)
		}
		if d := g.undo(); len(d) > 0 {
			b.Fatal(d)
		}
	}
}
