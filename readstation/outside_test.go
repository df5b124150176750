package readstation

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/classify"
)

// TestOutsideTreeWalk: a recursive read outside the roots is asked about,
// and denied when a short walk finds a denied path near its top that no
// anchored row names; a denied path deeper than the walk's cap, or one
// inside the roots, leaves it asked (outside-roots).
func TestOutsideTreeWalk(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "work")
	files := []string{
		"work/in.pem",         // inside the roots: in-root work, not this walk's
		"near/sub/key.pem",    // found by the walk
		"hidden/.cache/a.pem", // rg skips hidden names
		"plain/readme.txt",
	}
	// far/d0/d1/.../d69/x.pem: deeper than the walk's cap.
	deep := "far"
	for i := 0; i < outsideWalkDirs+5; i++ {
		deep = filepath.Join(deep, fmt.Sprintf("d%d", i))
	}
	files = append(files, filepath.Join(deep, "x.pem"))
	writeFiles(t, dir, files)
	b := rootBoundary(dir, root)
	tests := []struct {
		cmd, want string
	}{
		{"grep -r x ../near", "denied **/*.pem"},
		{"grep -r x ../plain", "outside-roots"},
		{"grep -r x ../far", "outside-roots"},
		{"grep -r x ../hidden", "denied **/*.pem"},
		{"rg x ../hidden", "outside-roots"},
		{"grep -r x ..", "denied **/*.pem"}, // ../near, not ./in.pem
	}
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			st := Judge(classify.Classify(tc.cmd), b)
			if len(st.Reads) != 1 {
				t.Fatalf("%d reads, want 1", len(st.Reads))
			}
			r := st.Reads[0]
			got := strings.TrimSpace(string(r.Verdict) + " " + r.Row)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s\n%s", tc.cmd, diff, r.Message)
			}
			if strings.Contains(r.Message, "in.pem") {
				t.Errorf("%s: the walk judged a path inside the roots: %s", tc.cmd, r.Message)
			}
		})
	}
}
