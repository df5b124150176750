package gate

// Copies of the execution package's test helpers, for the tests that
// compare a Gate run with a plain run of the runner.

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/shellgate/shellgate/execution"
)

// testRunner reaps orphans, so that "no process of the group remains" can
// be checked with kill(-pgid, 0) even under an init that does not reap.
var testRunner = &execution.BashRunner{Subreaper: true}

func runSpec(t *testing.T, ctx context.Context, s execution.Spec) execution.Outcome {
	t.Helper()
	if s.Dir == "" {
		s.Dir = t.TempDir()
	}
	if s.Env == nil {
		s.Env = execution.BuildEnv(os.Environ(), nil, nil)
	}
	out, err := testRunner.Run(ctx, s)
	if err != nil {
		t.Fatalf("Run(%q): %v", s.Command, err)
	}
	return out
}

// assertGroupGone checks with kill(-pgid, 0) that no process of the
// command's group is left.
func assertGroupGone(t *testing.T, pgid int) {
	t.Helper()
	if pgid <= 0 {
		t.Fatalf("no pid")
	}
	if err := syscall.Kill(-pgid, 0); err != syscall.ESRCH {
		t.Errorf("kill(-%d, 0) = %v, want ESRCH: a process of the group remains", pgid, err)
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// cancelOnceExists returns a context that is cancelled once path exists
// (the command under test made it: it is running), or when the test ends.
func cancelOnceExists(t *testing.T, path string) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		for {
			if _, err := os.Stat(path); err == nil {
				cancel()
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	return ctx
}

func cleanup(dir string) { os.Remove(filepath.Join(dir, "PWNED")) }

func baseEnv() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
}

func writeScript(t *testing.T, p, body string) {
	t.Helper()
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// gitRepo makes a repository whose own configuration tries to run
// programs when read-only git commands run in it.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed for the hostile repository tests: %v", err)
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
		cmd.Dir = dir
		cmd.Env = baseEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "f.txt")
	git("commit", "-qm", "init")
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
