package sandboxes

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// taskBlock is the source of the everydayTasks list in a file, or "".
func taskBlock(src string) string {
	i := strings.Index(src, "\nvar everydayTasks = []everydayTask{\n")
	if i < 0 {
		return ""
	}
	j := strings.Index(src[i:], "\n}\n")
	if j < 0 {
		return ""
	}
	return src[i : i+j+3]
}

// TestSameTasksAsShellgatesOwn: the tasks this harness compares are the
// ones shellgate's own sandbox test runs (TestSandboxEverydayTasks,
// wherever its package now lives), character for character.
func TestSameTasksAsShellgatesOwn(t *testing.T) {
	self, err := os.ReadFile("tasks_linux_test.go")
	if err != nil {
		t.Fatal(err)
	}
	want := taskBlock(string(self))
	if want == "" {
		t.Fatal("tasks_linux_test.go has no everydayTasks list")
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	var found []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == ".git" || p == filepath.Join(root, "e2e", "sandboxes")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, "_test.go") {
			b, err := os.ReadFile(p)
			if err == nil && strings.Contains(string(b), "func TestSandboxEverydayTasks(") {
				found = append(found, p)
				if diff := cmp.Diff(taskBlock(string(b)), want); diff != "" {
					t.Errorf("the tasks differ from %s's (-theirs +ours); copy them into tasks_linux_test.go:\n%s", p, diff)
				}
			}
		}
		return nil
	})
	if len(found) != 1 {
		t.Errorf("TestSandboxEverydayTasks found in %q, want one file", found)
	}
}
