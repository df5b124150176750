package corpus

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRegoTests: a policy dir's Rego unit tests run with the default
// policy loaded; a failing and a skipped test fail, a passing one passes,
// sorted by name; no test files, no results.
func TestRegoTests(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "org_test.rego"), []byte(`package shellgate_test

import rego.v1

test_b_passes if { count(data.shellgate.deny) == 0 with input as {} }

test_a_fails if { 1 == 2 }

todo_test_c_skipped if { true }
`), 0o644); err != nil {
		t.Fatal(err)
	}
	rs, err := RegoTests(context.Background(), []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Name string
		Pass bool
		Line int
	}
	var g []got
	for _, r := range rs {
		if r.Kind != "rego" || r.File == "" {
			t.Errorf("result %+v", r)
		}
		g = append(g, got{r.Name, r.Pass, r.Line})
	}
	want := []got{
		{"shellgate_test.test_a_fails", false, 7},
		{"shellgate_test.test_b_passes", true, 5},
		{"shellgate_test.todo_test_c_skipped", false, 9},
	}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if kept := FilterResults(rs, regexp.MustCompile("passes")); len(kept) != 1 || kept[0].Name != want[1].Name {
		t.Errorf("filtered: %+v", kept)
	}
	if rs, err := RegoTests(context.Background(), []string{t.TempDir()}); err != nil || rs != nil {
		t.Errorf("no test files: %v, %v", rs, err)
	}
}

// TestLoadCorpora: with no paths the embedded corpus (and no ./corpus
// here); with paths their cases, and the errors of those that do not
// load.
func TestLoadCorpora(t *testing.T) {
	t.Chdir(t.TempDir())
	emb, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	all, err := LoadCorpora(nil)
	if err != nil || len(all) != len(emb) {
		t.Errorf("default: %d cases (%v), want the %d embedded", len(all), err, len(emb))
	}
	if err := os.WriteFile("x.sh", []byte("ls # want allow\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, err := LoadCorpora([]string{"x.sh", "missing.yaml"})
	if err == nil || len(cs) != 1 || cs[0].Command != "ls" {
		t.Errorf("paths: %+v, %v; want the one case and an error for the missing file", cs, err)
	}
}
