package readstation

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRows(t *testing.T) {
	b := Boundary{Roots: []string{"/w/repo"}, Home: "/h", Cwd: "/w/repo"}
	tests := []struct {
		row  string
		hits []string
		miss []string
	}{
		{"~/.ssh/**", []string{"/h/.ssh", "/h/.ssh/id_rsa", "/h/.ssh/a/b"}, []string{"/h/.sshx", "/h/x/.ssh", "/w/.ssh/id_rsa"}},
		{"~/.netrc", []string{"/h/.netrc", "/h/.netrc/x"}, []string{"/h/.netrcx", "/h/a/.netrc"}},
		{"**/.env", []string{"/.env", "/w/repo/.env", "/a/b/.env/c"}, []string{"/w/.envx", "/w/x.env"}},
		{"**/.env.*", []string{"/w/.env.local"}, []string{"/w/.env", "/w/x.env.local"}},
		{"*.pem", []string{"/a/b.pem", "/a/x.pem/inner"}, []string{"/a/pem", "/a/b.pem.txt"}},
		{"**/id_rsa*", []string{"/h/id_rsa", "/h/id_rsa.pub"}, []string{"/h/my_id_rsa"}},
		{"/proc/*/environ", []string{"/proc/1/environ", "/proc/self/environ"}, []string{"/proc/environ", "/proc/1/2/environ"}},
		{"/etc/shadow", []string{"/etc/shadow"}, []string{"/etc/shadow-", "/etc/x/shadow"}},
		{"secrets/*.txt", []string{"/w/repo/secrets/a.txt"}, []string{"/w/secrets/a.txt", "/w/repo/x/secrets/a.txt"}},
		{"**/a/**/b", []string{"/a/b", "/x/a/y/z/b", "/a/b/c"}, []string{"/a/c", "/b/a"}},
		{"/var/[lr]og/*.[ch]", []string{"/var/log/x.c", "/var/rog/y.h"}, []string{"/var/bog/x.c", "/var/log/x.o"}},
		{"**/we\\*ird", []string{"/x/we*ird"}, []string{"/x/weXird"}},
		{"~", []string{"/h", "/h/anything"}, []string{"/hx", "/"}},
		{"build/", []string{"/w/repo/build", "/w/repo/build/x", "/w/repo/x/build"}, []string{"/w/repo/builds"}},
	}
	for _, tc := range tests {
		b.DenyRows = []string{tc.row}
		m := compileMatcher(b)
		if m.err != nil {
			t.Fatalf("%s: %v", tc.row, m.err)
		}
		var got, want []string
		for _, p := range append(append([]string{}, tc.hits...), tc.miss...) {
			if _, ok := m.denied(p); ok {
				got = append(got, p)
			}
		}
		want = tc.hits
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("row %q: matched paths (-want +got):\n%s", tc.row, diff)
		}
	}
}

// TestDefaultRows: the default rows deny the well-known credential files
// (keys, tokens of cloud, deploy and coding-agent CLIs, secrets in a
// tree) and leave their neighbours alone.
func TestDefaultRows(t *testing.T) {
	b := Boundary{Roots: []string{"/w/repo"}, Home: "/h", Cwd: "/w/repo", DenyRows: DefaultDenyRows}
	m := compileMatcher(b)
	if m.err != nil {
		t.Fatal(m.err)
	}
	denied := []string{
		"/h/.ssh/id_ed25519", "/h/.aws/credentials", "/h/.pgpass", "/h/.my.cnf", "/h/.gitcookies",
		"/h/.config/sops/age/keys.txt", "/h/.config/containers/auth.json", "/run/user/1000/containers/auth.json",
		"/h/.claude/.credentials.json", "/h/.codex/auth.json", "/h/.gemini/oauth_creds.json",
		"/h/.config/github-copilot/apps.json", "/h/.config/.wrangler/config/default.toml",
		"/h/.fly/config.yml", "/h/.local/share/com.vercel.cli/auth.json",
		"/h/Library/Application Support/com.vercel.cli/auth.json", "/h/.config/configstore/firebase-tools.json",
		"/h/.pulumi/credentials.json", "/h/.databrickscfg", "/h/.config/ngrok/ngrok.yml",
		"/h/.supabase/access-token", "/w/repo/.env", "/w/repo/app/.dev.vars", "/w/repo/.dev.vars.staging",
		"/w/repo/.streamlit/secrets.toml", "/w/repo/deploy/.netrc", "/w/repo/.pypirc", "/w/repo/keys/server.ppk",
		"/w/repo/config/master.key", "/w/repo/infra/terraform.tfstate",
		"/w/repo/.npmrc", "/w/repo/web/.npmrc", "/w/repo/.yarnrc", "/w/repo/.yarnrc.yml", "/w/repo/.gem/credentials",
		"/w/repo/.docker/config.json", "/w/repo/ci/.kube/config", "/w/repo/deploy/kubeconfig", "/w/repo/prod.kubeconfig",
		"/w/repo/kubeconfig.yaml", "/w/repo/.terraformrc", "/w/repo/infra/prod.tfvars", "/w/repo/infra/x.tfvars.json",
		"/w/repo/.cargo/credentials.toml",
		"/w/repo/.aws/credentials", "/w/repo/ci/.boto", "/w/repo/db/.my.cnf", "/w/repo/.m2/settings.xml",
		"/w/repo/.composer/auth.json", "/w/repo/.databrickscfg", "/w/repo/.pulumi/credentials.json",
		"/w/repo/.terraform.d/credentials.tfrc.json", "/w/repo/gcp/application_default_credentials.json",
		"/w/repo/.azure/msal_token_cache.json", "/w/repo/.huggingface/token",
	}
	allowed := []string{
		"/h/.claude/settings.json", "/h/.claude/CLAUDE.md", "/h/.codex/config.toml", "/h/.gemini/settings.json",
		"/h/.config/sops/config.yaml", "/w/repo/secrets.toml",
		"/w/repo/.streamlit/config.toml", "/w/repo/README.md", "/w/repo/.envrc.d",
		"/w/repo/.docker/daemon.json", "/w/repo/.kube/cache/x", "/w/repo/infra/main.tf", "/w/repo/.cargo/config.toml",
		"/w/repo/.aws/config", "/w/repo/pom.xml", "/w/repo/composer.json", "/w/repo/.azure/config",
	}
	for _, p := range denied {
		if _, ok := m.denied(p); !ok {
			t.Errorf("%s is not denied", p)
		}
	}
	for _, p := range allowed {
		if row, ok := m.denied(p); ok {
			t.Errorf("%s is denied by %q", p, row)
		}
	}
}

func TestValidateRow(t *testing.T) {
	tests := []struct {
		row  string
		want string
	}{
		{"~/.ssh/**", ""},
		{"*.pem", ""},
		{"", `deny row "": empty row`},
		{"!keep.pem", `deny row "!keep.pem": negation is not supported`},
		{"~bob/.ssh", `deny row "~bob/.ssh": ~user is not supported`},
		{"/a/[b", `deny row "/a/[b": bad pattern component "[b"`},
		{"a/../b", `deny row "a/../b": ".." is not allowed in a row`},
		{"# note", `deny row "# note": a row cannot start with #`},
	}
	for _, tc := range tests {
		got := ""
		if err := ValidateRow(tc.row); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("ValidateRow(%q) = %q, want %q", tc.row, got, tc.want)
		}
	}
	for _, row := range DefaultDenyRows {
		if err := ValidateRow(row); err != nil {
			t.Errorf("default row: %v", err)
		}
	}
}

func TestRowsFoldCase(t *testing.T) {
	defer func(f bool) { foldCase = f }(foldCase)
	b := Boundary{Roots: []string{"/w/repo"}, Home: "/Users/Me", Cwd: "/w/repo", DenyRows: []string{"~/.ssh/**", "**/.env", "*.PEM"}}
	for _, tc := range []struct {
		fold bool
		want []string
	}{
		{false, []string{"/Users/Me/.ssh/id_rsa", "/w/repo/.env"}},
		{true, []string{"/Users/Me/.ssh/id_rsa", "/users/me/.SSH/ID_RSA", "/w/repo/.env", "/w/repo/.ENV", "/w/x.pem"}},
	} {
		foldCase = tc.fold
		m := compileMatcher(b)
		var got []string
		for _, p := range []string{"/Users/Me/.ssh/id_rsa", "/users/me/.SSH/ID_RSA", "/w/repo/.env", "/w/repo/.ENV", "/w/x.pem", "/w/x.txt"} {
			if _, ok := m.denied(p); ok {
				got = append(got, p)
			}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("fold %v: (-want +got):\n%s", tc.fold, diff)
		}
	}
}

// TestDeniedIndexes: the indexes of the any-depth rows find the row the
// rows in order find, the first that matches, on paths with empty, dotted
// and look-alike components.
func TestDeniedIndexes(t *testing.T) {
	rows := append(append([]string(nil), DefaultDenyRows...), "*", "**/a*b/**", "**/x?y/z", "**/[ab]c", "**/id_*.pub", "**/.env.local")
	for _, fold := range []bool{false, true} {
		m := compileMatcher(Boundary{Roots: []string{"/home/me/src/proj"}, Home: "/home/me", Cwd: "/home/me/src/proj", DenyRows: rows})
		m.fold = fold
		for _, p := range []string{
			"/home/me/src/proj/a.go", "/home/me/src/proj//x", "/home/me/src/proj/.env.local", "/home/me/src/proj/id_rsa.pub",
			"/x/.aws/credentials", "/x/.aws/other", "/x/axyb/q", "/x/xqy/z", "/x/bc", "/x/kubeconfig.yaml", "/x/service-account-1.json",
			"/x/.env.prod", "/x/a/.dev.vars.x", "/home/me/.ssh", "/home/me/.ssh/id_ed25519", "/", "//", "/x//y/", "relative/.env",
		} {
			got, gok := m.denied(p)
			want, wok := deniedInOrder(m, p)
			if got != want || gok != wok {
				t.Errorf("fold %v: denied(%q) = %q %v, the rows in order say %q %v", fold, p, got, gok, want, wok)
			}
		}
	}
}

// deniedInOrder is denied without the indexes of the any-depth rows: the
// first anchored row, else the first single-name row (a literal name, then
// the rows in order), else the first deep row.
func deniedInOrder(m *matcher, p string) (string, bool) {
	if m.fold {
		p = strings.ToLower(p)
	}
	comps := splitAbs(p, nil)
	if i := func() int {
		best := -1
		for q, depth := p, len(comps); ; {
			for _, i := range m.anch[q] {
				if (best < 0 || i < best) && matchComps(m.rows[i].rest, comps[depth:]) {
					best = i
				}
			}
			if q == "/" || depth == 0 {
				return best
			}
			if j := strings.LastIndexByte(q, '/'); j <= 0 {
				q = "/"
			} else {
				q = q[:j]
			}
			depth--
		}
	}(); i >= 0 {
		return m.rows[i].src, true
	}
	isExt := func(r crow) bool { return r.rest[1].kind == segSuffix && strings.LastIndexByte(r.rest[1].s, '.') >= 0 }
	for _, c := range comps {
		if src, ok := m.name[c]; ok {
			return src, true
		}
		if k := strings.LastIndexByte(c, '.'); k >= 0 {
			for _, i := range m.ext[c[k+1:]] {
				if m.names[i].rest[1].match(c) {
					return m.names[i].src, true
				}
			}
		}
		for _, r := range m.names {
			if !isExt(r) && r.rest[1].match(c) {
				return r.src, true
			}
		}
	}
	for _, r := range m.deep {
		if matchComps(r.rest, comps) {
			return r.src, true
		}
	}
	return "", false
}

// FuzzDenied compares the indexed rows with the rows in order on any path.
func FuzzDenied(f *testing.F) {
	for _, p := range []string{"/home/me/.ssh/id_rsa", "/x//y/.env", "//", "/a/b/.aws/credentials", "rel/x.pem", "/x/id_rsa.pub"} {
		f.Add(p)
	}
	rows := append(append([]string(nil), DefaultDenyRows...), "*", "**/a*b/**", "**/x?y/z", "**/[ab]c")
	m := compileMatcher(Boundary{Roots: []string{"/home/me/src/proj"}, Home: "/home/me", Cwd: "/home/me/src/proj", DenyRows: rows})
	m0 := compileMatcher(Boundary{Roots: []string{"/home/me/src/proj"}, Home: "/home/me", Cwd: "/home/me/src/proj", DenyRows: DefaultDenyRows})
	f.Fuzz(func(t *testing.T, p string) {
		for _, m := range []*matcher{m, m0} {
			got, gok := m.denied(p)
			if want, wok := deniedInOrder(m, p); got != want || gok != wok {
				t.Fatalf("denied(%q) = %q %v, the rows in order say %q %v", p, got, gok, want, wok)
			}
		}
	})
}
