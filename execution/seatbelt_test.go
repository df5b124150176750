package execution

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSeatbeltProfile(t *testing.T) {
	read := []string{"/usr", "/bin", "/Users/me/proj", "/usr"}
	tests := []struct {
		name  string
		c     *Confinement
		write []string
		want  string
	}{
		{"full-access", &Confinement{Mode: SandboxFullAccess}, nil, ""},
		{"read-only", &Confinement{Mode: SandboxReadOnly}, nil, `(version 1)
; shellgate read-only
(deny default)
(allow process-exec process-fork)
(allow signal (target same-sandbox))
(allow sysctl-read)
(allow file-read-metadata)
(allow mach-lookup (global-name "com.apple.system.opendirectoryd.libinfo") (global-name "com.apple.system.notification_center"))
(allow file-read*
  (subpath "/Users/me/proj")
  (subpath "/bin")
  (subpath "/usr")
  (literal "/dev/null") (literal "/dev/zero") (literal "/dev/urandom") (literal "/dev/random"))
(allow file-write-data (literal "/dev/null"))
; no network: network* stays denied
`},
		{"workspace-write with network", &Confinement{Mode: SandboxWorkspaceWrite, Network: true}, []string{"/private/var/folders/x/shellgate-tmp-1", "/Users/me/proj"}, `(version 1)
; shellgate workspace-write
(deny default)
(allow process-exec process-fork)
(allow signal (target same-sandbox))
(allow sysctl-read)
(allow file-read-metadata)
(allow mach-lookup (global-name "com.apple.system.opendirectoryd.libinfo") (global-name "com.apple.system.notification_center"))
(allow file-read*
  (subpath "/Users/me/proj")
  (subpath "/bin")
  (subpath "/usr")
  (literal "/dev/null") (literal "/dev/zero") (literal "/dev/urandom") (literal "/dev/random"))
(allow file-write-data (literal "/dev/null"))
(allow file-write*
  (subpath "/Users/me/proj")
  (subpath "/private/var/folders/x/shellgate-tmp-1")
)
(allow network*)
(allow mach-lookup (global-name "com.apple.dnssd.service") (global-name "com.apple.SystemConfiguration.configd"))
`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, seatbeltProfile(tc.c, read, tc.write)); diff != "" {
				t.Errorf("profile (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSeatbeltQuoting: a path cannot end the string and add a rule.
func TestSeatbeltQuoting(t *testing.T) {
	got := seatbeltProfile(&Confinement{Mode: SandboxReadOnly}, []string{`/Users/me/a"b) (allow default) ("\`}, nil)
	want := `  (subpath "/Users/me/a\"b) (allow default) (\"\\")` + "\n"
	if !strings.Contains(got, want) {
		t.Errorf("profile:\n%s\nwant the line %q", got, want)
	}
}

// TestSeatbeltNestedNames: in workspace-write the profile refuses, by
// name, a protected name beneath a root (made or written), and allows
// what a person unprotected for the call.
func TestSeatbeltNestedNames(t *testing.T) {
	root := t.TempDir()
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	p := seatbeltProfile(&Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{root}, Unprotect: []string{filepath.Join(root, "tools")}},
		[]string{root}, []string{root})
	re := regexp.MustCompile(`\(regex #"([^"]+)"\)`)
	m := re.FindStringSubmatch(p)
	if m == nil {
		t.Fatalf("no regex rule in:\n%s", p)
	}
	names := regexp.MustCompile(m[1])
	for path, want := range map[string]bool{
		real + "/.envrc": true, real + "/sub/.envrc": true, real + "/a/b/.vscode/tasks.json": true,
		real + "/pkg/.github/hooks/x.json": true, real + "/sub/.envrc.bak": false, real + "/src/main.go": false,
		real + "/x.vscode": false,
	} {
		if got := names.MatchString(path); got != want {
			t.Errorf("%s: refused %v, want %v", path, got, want)
		}
	}
	if !strings.Contains(p, "(allow file-write*\n  (subpath "+sbString(filepath.Join(root, "tools"))+")") {
		t.Errorf("the unprotected directory is not allowed:\n%s", p)
	}
}

// TestQuoteMeta: quoteMeta quotes as regexp.QuoteMeta does.
func TestQuoteMeta(t *testing.T) {
	for _, s := range []string{"", "/home/u/ws", `a.b+c*d?e(f)g|h[i]j{k}l^m$n\o`, "é.ü/日本", "\x00\xff.", ".git", "a-b_c:d"} {
		if got, want := quoteMeta(s), regexp.QuoteMeta(s); got != want {
			t.Errorf("quoteMeta(%q) = %q, want %q", s, got, want)
		}
	}
}

// FuzzQuoteMeta: quoteMeta quotes as regexp.QuoteMeta does, for any input.
func FuzzQuoteMeta(f *testing.F) {
	f.Add(`/a.b/(c)[d]{e}\f`)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := quoteMeta(s), regexp.QuoteMeta(s); got != want {
			t.Errorf("quoteMeta(%q) = %q, want %q", s, got, want)
		}
	})
}
