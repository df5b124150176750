// Package testenv is what a test does when the machine lacks something it
// drives (a program, confinement, an agent package): on a developer's
// machine the test is skipped with a message naming what is missing; in
// CI (SHELLGATE_CI set, as .ci/run does) it fails, because CI installs
// everything the tests need and must really run them. Project makes the
// project directory, in a home of its own, that many tests start from.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// CI reports whether the tests run in CI: SHELLGATE_CI is set to anything
// but "" or "0".
func CI() bool {
	v := os.Getenv("SHELLGATE_CI")
	return v != "" && v != "0"
}

// Missing ends tb for a missing requirement: it fails in CI and skips
// elsewhere. The message says what is missing.
func Missing(tb testing.TB, format string, args ...any) {
	tb.Helper()
	msg := fmt.Sprintf(format, args...)
	if CI() {
		tb.Fatalf("%s (SHELLGATE_CI is set: .ci/run must provide it)", msg)
	}
	tb.Skipf("%s; skipped (set SHELLGATE_CI=1 to make this a failure)", msg)
}

// LookPath returns the path of the first of names found on PATH, or ends tb
// with Missing naming the first.
func LookPath(tb testing.TB, names ...string) string {
	tb.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	Missing(tb, "%s is not installed", names[0])
	return ""
}

// Project makes a project directory, home/name, in a fresh home of its
// own (HOME and XDG_CONFIG_HOME are set for the test, so that no user
// config applies), with files: a key ending in "/" is a directory, any
// other a file with that content. It returns the project's path.
func Project(tb testing.TB, name string, files map[string]string) string {
	tb.Helper()
	home := tb.TempDir()
	tb.Setenv("HOME", home)
	tb.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	dir := filepath.Join(home, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	for p, content := range files {
		full := filepath.Join(dir, p)
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				tb.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}
