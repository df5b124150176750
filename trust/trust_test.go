package trust

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var digest = strings.Repeat("ab", 32)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, in, err string
	}{
		{"empty store", `{"version":1,"entries":[]}`, ""},
		{"one entry", `{"version":1,"entries":[{"path":"/p/.shellgate.yaml","kind":"file","sha256":"` + digest + `","trusted_at":"2026-01-02T03:04:05Z"}]}`, ""},
		{"not JSON", `{`, "not a trust store"},
		{"empty input", ``, "not a trust store"},
		{"two objects", `{"version":1}{"version":1}`, "data after the JSON object"},
		{"unknown key", `{"version":1,"entries":[],"extra":1}`, "unknown field"},
		{"version", `{"version":2,"entries":[]}`, "version 2"},
		{"relative path", `{"version":1,"entries":[{"path":"p","kind":"file","sha256":"` + digest + `"}]}`, "not a clean absolute path"},
		{"unclean path", `{"version":1,"entries":[{"path":"/p/../q","kind":"file","sha256":"` + digest + `"}]}`, "not a clean absolute path"},
		{"kind", `{"version":1,"entries":[{"path":"/p","kind":"link","sha256":"` + digest + `"}]}`, `kind "link"`},
		{"short digest", `{"version":1,"entries":[{"path":"/p","kind":"file","sha256":"abc"}]}`, "64 lower-case hex"},
		{"upper-case digest", `{"version":1,"entries":[{"path":"/p","kind":"file","sha256":"` + strings.ToUpper(digest) + `"}]}`, "64 lower-case hex"},
		{"twice", `{"version":1,"entries":[{"path":"/p","kind":"file","sha256":"` + digest + `"},{"path":"/p","kind":"dir","sha256":"` + digest + `"}]}`, "given twice"},
		{"wrong type", `{"version":"1"}`, "not a trust store"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.in))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if tc.err == "" && err != nil || tc.err != "" && !strings.Contains(got, tc.err) {
				t.Errorf("Parse(%s): error %q, want %q", tc.in, got, tc.err)
			}
		})
	}
}

func TestSaveLoad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "shellgate")
	path := filepath.Join(dir, FileName)
	s, err := Load(path)
	if err != nil || len(s.Entries) != 0 {
		t.Fatalf("a missing store: %+v, %v; want empty", s, err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s.Add(Entry{Path: "/b", Kind: KindDir, SHA256: digest, TrustedAt: at})
	s.Add(Entry{Path: "/a", Kind: KindFile, SHA256: digest, TrustedAt: at})
	s.Add(Entry{Path: "/a", Kind: KindFile, SHA256: strings.Repeat("cd", 32), TrustedAt: at})
	if err := s.Save(path); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{Path: "/a", Kind: KindFile, SHA256: strings.Repeat("cd", 32), TrustedAt: at},
		{Path: "/b", Kind: KindDir, SHA256: digest, TrustedAt: at},
	}
	if diff := cmp.Diff(want, got.Entries); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	if !got.Trusted("/b", KindDir, digest) || got.Trusted("/a", KindFile, digest) || got.Trusted("/b", KindFile, digest) || got.Trusted("/c", KindFile, digest) {
		t.Error("Trusted does not match path, kind and digest exactly")
	}
	if !got.Remove("/a") || got.Remove("/a") {
		t.Error("Remove")
	}
	var nilStore *Store
	if nilStore.Trusted("/b", KindDir, digest) {
		t.Error("a nil store trusts")
	}

	// Refused: writable by others, not a regular file, corrupt.
	if err := os.Chmod(path, 0o620); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("a group-writable store: %v", err)
	}
	if err := os.WriteFile(path, []byte("[]"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "nothing is trusted") {
		t.Errorf("a corrupt store: %v", err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}
}

func TestPath(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/x/state")
	if p, err := Path(); err != nil || p != "/x/state/shellgate/trust.json" {
		t.Errorf("Path with XDG_STATE_HOME: %q %v", p, err)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", "relative") // not absolute: ignored, as the spec says
	p, err := Path()
	if err != nil || !strings.HasPrefix(p, home+string(filepath.Separator)) || filepath.Base(p) != FileName {
		t.Errorf("Path without XDG_STATE_HOME: %q %v", p, err)
	}
}

// TestReadTree: every change a policy directory can undergo changes its
// digest; reading it twice unchanged does not.
func TestReadTree(t *testing.T) {
	dir := t.TempDir()
	pol := filepath.Join(dir, "pol")
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(pol, "a.rego"), "package shellgate\n")
	write(filepath.Join(dir, "x.rego"), "package shellgate\n")
	write(filepath.Join(dir, "y.rego"), "package shellgate\n")
	if err := os.Symlink("../x.rego", filepath.Join(pol, "link.rego")); err != nil {
		t.Fatal(err)
	}
	sum := func() string {
		t.Helper()
		tr, err := ReadTree(pol)
		if err != nil {
			t.Fatal(err)
		}
		return tr.SHA256
	}
	seen := map[string]string{}
	prev := sum()
	if again := sum(); again != prev {
		t.Fatal("the digest of an unchanged tree changed")
	}
	for _, step := range []struct {
		name string
		do   func()
	}{
		{"edit", func() { write(filepath.Join(pol, "a.rego"), "package shellgate\n# x\n") }},
		{"new file", func() { write(filepath.Join(pol, "sub", "README"), "hi") }},
		{"new empty dir", func() { os.Mkdir(filepath.Join(pol, "empty"), 0o755) }},
		{"rename", func() { os.Rename(filepath.Join(pol, "sub", "README"), filepath.Join(pol, "sub", "README.md")) }},
		{"re-pointed symlink, same content", func() {
			os.Remove(filepath.Join(pol, "link.rego"))
			os.Symlink("../y.rego", filepath.Join(pol, "link.rego"))
		}},
		{"symlink target edited", func() { write(filepath.Join(dir, "y.rego"), "package shellgate\n# y\n") }},
	} {
		step.do()
		now := sum()
		if now == prev {
			t.Errorf("%s: the digest did not change", step.name)
		}
		if by, dup := seen[now]; dup {
			t.Errorf("%s: the digest of %s again", step.name, by)
		}
		seen[now] = step.name
		prev = now
	}
	tr, err := ReadTree(pol)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(tr.Files[filepath.Join(pol, "link.rego")]); got != "package shellgate\n# y\n" {
		t.Errorf("the symlinked file's content %q", got)
	}
	if _, err := ReadTree(filepath.Join(pol, "a.rego")); err == nil {
		t.Error("ReadTree of a file")
	}
	if _, err := ReadTree(filepath.Join(dir, "missing")); err == nil {
		t.Error("ReadTree of a missing directory")
	}
}

// TestLoadForeignOwner: a store owned by another user is refused. Only
// root can give a file away, so the test needs root (CI runs as root).
func TestLoadForeignOwner(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to chown the store to another user")
	}
	path := filepath.Join(t.TempDir(), FileName)
	if err := (&Store{Version: Version}).Save(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "owned by uid 65534") {
		t.Errorf("a store owned by another user: %v", err)
	}
}
