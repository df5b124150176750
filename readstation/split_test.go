package readstation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/classify"
)

// TestSplitNames: a name with a blank reaches an xargs reader as several
// words. The words are judged where the reader opens them: a tree whose
// split names only land on harmless paths in the root is established; a
// word that leaves the roots, hits a deny row, follows a symlink out, is an
// option, or comes from xargs' own quoting is not.
func TestSplitNames(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	files := []string{
		"plain/name with spaces.txt",
		"plain/sub dir/x.txt",
		"up/q ../outside.txt", // "q .." is a directory: the words are up/q and ../outside.txt
		"opt/y --files0-from=list",
		"deny/z id_rsa",
		"quote/it's.txt",
		"dirp/a plain",
		"link/a out/x", // "a out" is a directory; out is a symlink to dir below
	}
	writeFiles(t, root, files)
	must(t, os.WriteFile(filepath.Join(root, "id_rsa"), []byte("KEY"), 0o600))
	must(t, os.Symlink(dir, filepath.Join(root, "out")))
	b := rootBoundary(dir, root)
	tests := []struct {
		cmd, want string
	}{
		{"find plain -type f | xargs cat", "ok"},
		{"find plain -type f -print0 | xargs -0 cat", "ok"},
		{"find up -type f | xargs cat", "not-established: outside the roots"},
		{"find up -type f -print0 | xargs -0 cat", "ok"},
		{"find opt -type f | xargs cat", "not-established: as an option"},
		{"find deny -type f | xargs cat", "not-established: deny row"},
		{"find quote -type f | xargs cat", "not-established: split into other paths"},
		{"find link -type f | xargs cat", "not-established: outside the roots"},
		{"cd plain && find . -type f | xargs cat", "ok"},
		{"find dirp -type f | xargs grep -r x", "not-established: the directory"},
	}
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			st := Judge(classify.Classify(tc.cmd), b)
			got := ""
			for _, r := range st.Reads {
				if r.Source != "xargs-input" {
					continue
				}
				got = r.Verdict
				if want, sub, ok := strings.Cut(tc.want, ": "); ok && want == r.Verdict {
					if strings.Contains(r.Message, sub) {
						got = tc.want
					} else {
						got += ": " + r.Message
					}
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.cmd, diff)
			}
		})
	}
}
