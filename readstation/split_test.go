package readstation

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
				got = string(r.Verdict)
				if want, sub, ok := strings.Cut(tc.want, ": "); ok && want == string(r.Verdict) {
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

// TestSplitNamesChange: the pieces of a split name lie outside the walked
// tree, so a clean result is neither remembered across judgments nor
// left out of the admission: a piece that turns into a link out of the
// roots is seen by the next judgment and by Recheck.
func TestSplitNamesChange(t *testing.T) {
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = 5 * time.Millisecond
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	writeFiles(t, root, []string{"plain/name with spaces.txt"})
	time.Sleep(30 * time.Millisecond)
	b := rootBoundary(dir, root)
	const cmd = "find plain -type f | xargs cat"
	verdict := func(st *Station) Verdict {
		for _, r := range st.Reads {
			if r.Source == "xargs-input" {
				return r.Verdict
			}
		}
		return "no xargs-input read"
	}
	st := Judge(classify.Classify(cmd), b)
	if v := verdict(Judge(classify.Classify(cmd), b)); v != VerdictOK {
		t.Fatalf("before the change: %s, want ok", v)
	}
	// "spaces.txt" is read in the reader's directory: make it a link out.
	must(t, os.Symlink(filepath.Join(dir, "outside"), filepath.Join(root, "spaces.txt")))
	if err := st.Admission().Recheck(); !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "spaces.txt") {
		t.Errorf("Recheck after the change = %v, want a change of spaces.txt", err)
	}
	if v := verdict(Judge(classify.Classify(cmd), b)); v != VerdictNotEstablished {
		t.Errorf("after the change: %s, want not-established", v)
	}
}

// TestProducerPrintedTrees: find -name '*.go' prints a directory lib.go
// too; a recursive reader of what it prints reads lib.go's whole tree, so
// lib.go/.env is judged although its name does not match.
func TestProducerPrintedTrees(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	writeFiles(t, root, []string{"a.go", "lib.go/.env"})
	b := rootBoundary(dir, root)
	tests := []struct {
		cmd, want string
	}{
		{"find . -name '*.go' -exec grep -r x {} +", "denied **/.env"},
		{"find . -name '*.go' -print0 | xargs -0 grep -r x", "denied **/.env"},
		{"find . -name '*.go' -exec cat {} +", "ok"},
		{"find . -name '*.go' -print0 | xargs -0 cat", "ok"},
	}
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			st := Judge(classify.Classify(tc.cmd), b)
			if len(st.Reads) != 2 {
				t.Fatalf("%d reads, want 2 (find's root and the fed read)", len(st.Reads))
			}
			r := st.Reads[1]
			if diff := cmp.Diff(tc.want, strings.TrimSpace(string(r.Verdict)+" "+r.Row)); diff != "" {
				t.Errorf("%s (-want +got):\n%s\n%s", tc.cmd, diff, r.Message)
			}
		})
	}
}
