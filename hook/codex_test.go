package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCodexHookHash pins the hash to values the real Codex 0.171.0 reported
// for the same entries (codex app-server, hooks/list, currentHash). The
// end-to-end test TestCodex/trust checks the installed entry against
// the installed Codex on every CI run.
func TestCodexHookHash(t *testing.T) {
	bash := "Bash"
	status := "checking…"
	for _, c := range []struct {
		name    string
		matcher *string
		h       codexHandler
		want    string
	}{
		{"installed entry", &bash, codexHandler{command: "/usr/local/bin/shellgate-hook codex", timeout: 30}, "sha256:ef8618f17d402b78e6fb2779570bb61761b05257b19123ea8c1858ef3533fffe"},
		// The others are computed by the same rule (Python's json.dumps
		// with sort_keys and compact separators, ensure_ascii off, as
		// serde_json writes): a change of the rule must show here.
		{"no matcher", nil, codexHandler{command: "shellgate-hook codex", timeout: 600}, "sha256:" + sha("{\"event_name\":\"pre_tool_use\",\"hooks\":[{\"async\":false,\"command\":\"shellgate-hook codex\",\"timeout\":600,\"type\":\"command\"}]}")},
		{"status and quotes", &bash, codexHandler{command: "a \"b\" \\ é\t", timeout: 5, async: true, statusMessage: &status}, "sha256:" + sha("{\"event_name\":\"pre_tool_use\",\"hooks\":[{\"async\":true,\"command\":\"a \\\"b\\\" \\\\ é\\t\",\"statusMessage\":\"checking…\",\"timeout\":5,\"type\":\"command\"}],\"matcher\":\"Bash\"}")},
		{"control character", &bash, codexHandler{command: "x\x01y", timeout: 1}, "sha256:" + sha("{\"event_name\":\"pre_tool_use\",\"hooks\":[{\"async\":false,\"command\":\"x\\u0001y\",\"timeout\":1,\"type\":\"command\"}],\"matcher\":\"Bash\"}")},
	} {
		if got := codexHookHash("pre_tool_use", c.matcher, c.h); got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// codexFixture is a temporary CODEX_HOME with a hooks file.
type codexFixture struct {
	home, hooks, config string
}

func newCodexFixture(t *testing.T, hooksJSON, configTOML string) codexFixture {
	t.Helper()
	f := codexFixture{home: filepath.Join(t.TempDir(), ".codex")}
	f.hooks = filepath.Join(f.home, "hooks.json")
	f.config = filepath.Join(f.home, "config.toml")
	if err := os.MkdirAll(f.home, 0o700); err != nil {
		t.Fatal(err)
	}
	if hooksJSON != "" {
		if err := os.WriteFile(f.hooks, []byte(hooksJSON), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if configTOML != "" {
		if err := os.WriteFile(f.config, []byte(strings.ReplaceAll(configTOML, "%HOOKS%", f.hooks)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

const installedHooks = `{"hooks":{"PreToolUse":[
  {"matcher":"Edit","hooks":[{"type":"command","command":"./lint.sh"}]},
  {"matcher":"Bash","hooks":[{"type":"command","command":"./other.sh"},{"type":"command","command":"/usr/local/bin/shellgate-hook codex","timeout":30}]}
]}}`

const installedHash = "sha256:ef8618f17d402b78e6fb2779570bb61761b05257b19123ea8c1858ef3533fffe"

func TestCodexHookTrust(t *testing.T) {
	key := func(f codexFixture) string { return f.hooks + ":pre_tool_use:1:1" }
	for _, c := range []struct {
		name, hooks, config string
		status              CodexTrustStatus
		active, featureOff  bool
		problem             string
	}{
		{"no hooks file", "", "", CodexNotInstalled, false, false, "does not exist: run shellgate install codex --user"},
		{"no shellgate entry", `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./x.sh"}]}]}}`, "", CodexNotInstalled, false, false, "has no shellgate PreToolUse hook"},
		{"untrusted", installedHooks, "model = \"o3\"\n", CodexUntrusted, false, false, "does not run the hook until you trust it (untrusted)"},
		{"trusted", installedHooks, "[hooks.state.\"%HOOKS%:pre_tool_use:1:1\"]\ntrusted_hash = \"" + installedHash + "\"\n", CodexTrusted, true, false, "no fail-closed fallback"},
		{"modified", installedHooks, "[hooks.state.\"%HOOKS%:pre_tool_use:1:1\"]\ntrusted_hash = \"sha256:old\"\n", CodexModified, false, false, "(modified)"},
		{"trust at another position", installedHooks, "[hooks.state.\"%HOOKS%:pre_tool_use:0:0\"]\ntrusted_hash = \"" + installedHash + "\"\n", CodexUntrusted, false, false, "(untrusted)"},
		{"disabled", installedHooks, "[hooks.state.\"%HOOKS%:pre_tool_use:1:1\"]\ntrusted_hash = \"" + installedHash + "\"\nenabled = false\n", CodexDisabled, false, false, "disables the hook"},
		{"hooks feature off", installedHooks, "[features]\nhooks = false\n[hooks.state.\"%HOOKS%:pre_tool_use:1:1\"]\ntrusted_hash = \"" + installedHash + "\"\n", CodexTrusted, false, true, "[features] hooks = false"},
		{"dotted and inline forms", installedHooks, "hooks.state = { \"%HOOKS%:pre_tool_use:1:1\" = { trusted_hash = \"" + installedHash + "\" } }\n", CodexTrusted, true, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newCodexFixture(t, c.hooks, c.config)
			st, err := CodexHookTrust(f.home, f.hooks)
			if err != nil {
				t.Fatal(err)
			}
			if st.Status != c.status || st.Active != c.active || st.HooksFeatureOff != c.featureOff {
				t.Errorf("got status %s active %v feature off %v, want %s %v %v", st.Status, st.Active, st.HooksFeatureOff, c.status, c.active, c.featureOff)
			}
			if c.status != CodexNotInstalled && (st.Key != key(f) || st.CurrentHash != installedHash) {
				t.Errorf("key %s hash %s, want %s %s", st.Key, st.CurrentHash, key(f), installedHash)
			}
			if all := strings.Join(st.Problems, "\n"); c.problem != "" && !strings.Contains(all, c.problem) {
				t.Errorf("problems %q do not say %q", all, c.problem)
			}
		})
	}
}

func TestCodexTrustEntry(t *testing.T) {
	key, hash, err := CodexTrustEntry("/p/.codex/hooks.json", []byte(installedHooks))
	if err != nil || key != "/p/.codex/hooks.json:pre_tool_use:1:1" || hash != installedHash {
		t.Errorf("got %q %q %v", key, hash, err)
	}
	if _, _, err := CodexTrustEntry("/p/.codex/hooks.json", []byte(`{"hooks":{}}`)); err == nil {
		t.Errorf("a file without the hook has a trust entry")
	}
}

func TestCodexHookTrustBadInput(t *testing.T) {
	for _, c := range []struct{ name, hooks, config, want string }{
		{"config not TOML", installedHooks, "model = \n", "is not valid TOML: line 1"},
		{"config not UTF-8", installedHooks, "model = \"\xff\"\n", "not valid UTF-8"},
		{"hooks not JSON", `{"hooks":`, "", "is not a valid hooks file"},
		{"timeout not a number", `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"shellgate-hook codex","timeout":"30"}]}]}}`, "", "not a whole number"},
		{"hash not a string", installedHooks, "[hooks.state.\"%HOOKS%:pre_tool_use:1:1\"]\ntrusted_hash = 1\n", "is not a string"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newCodexFixture(t, c.hooks, c.config)
			st, err := CodexHookTrust(f.home, f.hooks)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error with %q", err, c.want)
			}
			if st.Active {
				t.Errorf("an unreadable state reads as active")
			}
		})
	}
}

func TestCodexProjectTrust(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	sub := filepath.Join(proj, "sub")
	for _, d := range []string{filepath.Join(proj, ".git"), filepath.Join(sub, ".codex"), filepath.Join(proj, ".codex")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, config, hooksDir, want string
	}{
		{"unset", "", proj, CodexProjectUnset},
		{"trusted root", "[projects.\"" + proj + "\"]\ntrust_level = \"trusted\"\n", proj, CodexProjectTrusted},
		{"sub folder under a trusted root", "[projects.\"" + proj + "\"]\ntrust_level = \"trusted\"\n", sub, CodexProjectTrusted},
		{"sub folder's own entry wins", "[projects.\"" + proj + "\"]\ntrust_level = \"trusted\"\n[projects.\"" + sub + "\"]\ntrust_level = \"untrusted\"\n", sub, CodexProjectUntrusted},
		{"untrusted", "projects = { \"" + proj + "\" = { trust_level = \"untrusted\" } }\n", proj, CodexProjectUntrusted},
		{"other project", "[projects.\"" + root + "\"]\ntrust_level = \"trusted\"\n", proj, CodexProjectUnset},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, err := parseTOML(c.config)
			if err != nil {
				t.Fatal(err)
			}
			if got := codexProjectTrust(doc, c.hooksDir); got != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}

	// Through CodexHookTrust: a trusted hook in an unset project is not
	// active, and the problem names the fix.
	home := filepath.Join(root, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	hooks := filepath.Join(proj, ".codex", "hooks.json")
	if err := os.WriteFile(hooks, []byte(installedHooks), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := TrustCodexHook(home, hooks, false); err != nil {
		t.Fatal(err)
	}
	st, err := CodexHookTrust(home, hooks)
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != CodexTrusted || st.Active || st.ProjectDir != proj || st.ProjectTrust != CodexProjectUnset {
		t.Errorf("got %+v", st)
	}
	if !strings.Contains(strings.Join(st.Problems, "\n"), "[projects.\""+proj+"\"]\ntrust_level = \"trusted\"") {
		t.Errorf("the fix is not spelled out: %q", st.Problems)
	}
}

func TestTrustCodexHook(t *testing.T) {
	k := "%HOOKS%:pre_tool_use:1:1"
	entry := "[hooks.state.\"" + k + "\"]\ntrusted_hash = \"" + installedHash + "\"\n"
	for _, c := range []struct {
		name, config, want string
		changed            bool
	}{
		{"new config", "", entry, true},
		{"kept content", "# mine\nmodel = \"o3\" # the model\n\n[features]\nhooks = true\n", "# mine\nmodel = \"o3\" # the model\n\n[features]\nhooks = true\n\n" + entry, true},
		{"no final newline", "model = \"o3\"", "model = \"o3\"\n\n" + entry, true},
		{"old hash replaced in place", "[hooks.state.\"" + k + "\"]\nenabled = true\ntrusted_hash = \"sha256:old\" # note\n[other]\nx = 1\n", "[hooks.state.\"" + k + "\"]\nenabled = true\ntrusted_hash = \"" + installedHash + "\" # note\n[other]\nx = 1\n", true},
		{"table without a hash", "[hooks.state.\"" + k + "\"]\nenabled = true\n[other]\nx = 1\n", "[hooks.state.\"" + k + "\"]\ntrusted_hash = \"" + installedHash + "\"\nenabled = true\n[other]\nx = 1\n", true},
		{"other hooks kept", "[hooks.state.\"other:stop:0:0\"]\ntrusted_hash = \"sha256:x\"\n", "[hooks.state.\"other:stop:0:0\"]\ntrusted_hash = \"sha256:x\"\n\n" + entry, true},
		{"already trusted", entry, entry, false},
		{"literal key", "[hooks.state.'" + k + "']\ntrusted_hash = '" + installedHash + "'\n", "[hooks.state.'" + k + "']\ntrusted_hash = '" + installedHash + "'\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newCodexFixture(t, installedHooks, c.config)
			r, err := TrustCodexHook(f.home, f.hooks, false)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.ReplaceAll(c.want, "%HOOKS%", f.hooks)
			got, err := os.ReadFile(f.config)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, string(got)); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
			if r.Changed != c.changed {
				t.Errorf("changed %v, want %v", r.Changed, c.changed)
			}
			if old := strings.ReplaceAll(c.config, "%HOOKS%", f.hooks); c.changed && old != "" {
				b, err := os.ReadFile(f.config + BackupSuffix)
				if err != nil || string(b) != old {
					t.Errorf("backup %q, %v; want the old config", b, err)
				}
			}
			st, err := CodexHookTrust(f.home, f.hooks)
			if err != nil || st.Status != CodexTrusted {
				t.Errorf("after trusting: %s, %v", st.Status, err)
			}
		})
	}
}

func TestTrustCodexHookRefuses(t *testing.T) {
	k := "%HOOKS%:pre_tool_use:1:1"
	for _, c := range []struct{ name, hooks, config, want string }{
		{"invalid TOML", installedHooks, "model = [\n", "is not valid TOML"},
		{"inline state", installedHooks, "hooks = { state = { \"" + k + "\" = { enabled = true } } }\n", "hooks is an inline table"},
		{"inline entry", installedHooks, "[hooks.state]\n\"" + k + "\" = { enabled = true }\n", "not written as a [table]"},
		{"hash inside an inline table", installedHooks, "[hooks]\nstate = { \"" + k + "\" = { trusted_hash = \"sha256:old\" } }\n", "hooks.state is an inline table"},
		{"no shellgate hook", `{"hooks":{}}`, "", "no shellgate PreToolUse hook to trust"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newCodexFixture(t, c.hooks, c.config)
			_, err := TrustCodexHook(f.home, f.hooks, false)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
			if c.hooks == installedHooks && !strings.Contains(err.Error(), "trusted_hash = \""+installedHash+"\"") {
				t.Errorf("the error does not say what to add by hand: %v", err)
			}
			got, _ := os.ReadFile(f.config)
			if string(got) != strings.ReplaceAll(c.config, "%HOOKS%", f.hooks) {
				t.Errorf("the config changed: %q", got)
			}
			if _, err := os.Stat(f.config + BackupSuffix); err == nil {
				t.Errorf("a backup was written")
			}
		})
	}
}

func TestCodexFailClosed(t *testing.T) {
	c := CodexFailClosed("'/opt/sg/shellgate-hook' codex --ask-as deny")
	if CodexFailClosed(c) != c || !IsCodexFailClosed(c) || !IsShellgateCommand(c) {
		t.Errorf("not idempotent or not recognized: %s", c)
	}
	if IsCodexFailClosed("shellgate-hook codex") {
		t.Errorf("a bare command reads as fail-closed")
	}
}

func TestCodexHome(t *testing.T) {
	t.Setenv("CODEX_HOME", "")
	if got, err := CodexHome("/home/u"); err != nil || got != "/home/u/.codex" {
		t.Errorf("got %q, %v", got, err)
	}
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CODEX_HOME", link)
	want, _ := filepath.EvalSymlinks(real)
	if got, err := CodexHome("/home/u"); err != nil || got != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	t.Setenv("CODEX_HOME", filepath.Join(real, "missing"))
	if _, err := CodexHome("/home/u"); err == nil {
		t.Errorf("a missing CODEX_HOME is accepted (Codex refuses it)")
	}
}

func TestSettingsPathCodexHome(t *testing.T) {
	t.Setenv("CODEX_HOME", "")
	if got := SettingsPath(Codex, ScopeUser, "/p", "/home/u"); got != "/home/u/.codex/hooks.json" {
		t.Errorf("got %s", got)
	}
	ch := t.TempDir()
	t.Setenv("CODEX_HOME", ch)
	want, _ := filepath.EvalSymlinks(ch)
	if got := SettingsPath(Codex, ScopeUser, "/p", "/home/u"); got != filepath.Join(want, "hooks.json") {
		t.Errorf("got %s, want it in CODEX_HOME %s", got, want)
	}
	if got := SettingsPath(Codex, ScopeProject, "/p", "/home/u"); got != "/p/.codex/hooks.json" {
		t.Errorf("project file moved with CODEX_HOME: %s", got)
	}
}
