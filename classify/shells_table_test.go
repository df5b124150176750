package classify

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/classify/shells"
)

// TestShellsTable checks that package shells names exactly the catalog's
// shells, each with its dialect: the thin client's table is the catalog's.
func TestShellsTable(t *testing.T) {
	checkGenerated(t, "shells/table.go")
	c := DefaultCatalog()
	for _, n := range []string{"bash", "/bin/bash", "-zsh", "sh", "dash", "/usr/bin/dash", "ksh", "fish", "grep", ""} {
		if got, want := shells.Dialect(n), string(c.ShellDialect(n)); got != want {
			t.Errorf("shells.Dialect(%q) = %q, the catalog says %q", n, got, want)
		}
	}
}

// checkGenerated holds the generated file to what GeneratedFiles renders
// (go generate ./classify writes it).
func checkGenerated(t *testing.T, file string) {
	t.Helper()
	files, err := GeneratedFiles()
	if err != nil {
		t.Fatal(err)
	}
	want, ok := files[file]
	if !ok {
		t.Fatalf("%s is not a generated file", file)
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Fatalf("%s is stale (run go generate ./classify) (-want +got):\n%s", file, diff)
	}
}
