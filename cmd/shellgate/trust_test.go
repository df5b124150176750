package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellgate/shellgate/classify/agentenv"
	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/internal/mcptest"
	"github.com/shellgate/shellgate/serve"
)

// pythonSystem is the command a repository must not be able to grant
// itself: any Python program at all.
const pythonSystem = `python3 -c "import os; os.system('x')"`

// pytestRun is a command a grant can allow with no wildcard over code
// (python3 -m pytest **): a project's grant that wildcards code never
// applies, even trusted, so the trust tests of a config grant use this.
const pytestRun = `python3 -m pytest -x tests`

// trustHome gives the test a HOME, a user config dir and a state dir of
// its own (nothing of the real HOME is read or written) and returns a git
// workspace in it.
func trustHome(t *testing.T) string {
	t.Helper()
	proj := mcptest.Workspace(t)
	t.Setenv("XDG_STATE_HOME", filepath.Join(filepath.Dir(proj), "state"))
	return proj
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// outcome is a front end's answer: the action and whether a reason with
// code project-config-untrusted came with it.
type outcome struct {
	Action    string
	Untrusted bool
}

// frontEnd decides pythonSystem (or cmd) run in proj through one of
// shellgate's front ends.
type frontEnd struct {
	name   string
	decide func(t *testing.T, proj, cmd string) outcome
}

func runJSON(t *testing.T, args []string, stdin string, v any) string {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	if err := json.Unmarshal(out.Bytes(), v); err != nil {
		t.Fatalf("shellgate %s: exit %d: %v\n%s%s", strings.Join(args, " "), code, err, out.String(), errb.String())
	}
	return out.String()
}

type reasonCodes struct {
	Action  string `json:"action"`
	Reasons []struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"reasons"`
}

func (r reasonCodes) outcome() outcome {
	o := outcome{Action: r.Action}
	for _, x := range r.Reasons {
		if x.Code == "project-config-untrusted" {
			o.Untrusted = true
		}
	}
	return o
}

func claudePayload(t *testing.T, proj, cmd string) string {
	b, err := json.Marshal(map[string]any{
		"session_id": "s", "transcript_path": "/t.jsonl", "cwd": proj, "permission_mode": "default",
		"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "tool_use_id": "toolu_1",
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// claudeOutcome reads Claude Code's PreToolUse answer.
func claudeOutcome(t *testing.T, stdout []byte) outcome {
	t.Helper()
	var a struct {
		Out struct {
			Decision string `json:"permissionDecision"`
			Reason   string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(stdout, &a); err != nil {
		t.Fatalf("hook answer %q: %v", stdout, err)
	}
	return outcome{Action: a.Out.Decision, Untrusted: strings.Contains(a.Out.Reason, "project-config-untrusted")}
}

var frontEnds = []frontEnd{
	{"check", func(t *testing.T, proj, cmd string) outcome {
		var r reasonCodes
		runJSON(t, []string{"check", "--json", "--cwd", proj, cmd}, "", &r)
		return r.outcome()
	}},
	{"check --batch", func(t *testing.T, proj, cmd string) outcome {
		var r reasonCodes
		line, _ := json.Marshal(map[string]string{"command": cmd})
		runJSON(t, []string{"check", "--batch", "--input", "jsonl", "--cwd", proj}, string(line)+"\n", &r)
		return r.outcome()
	}},
	{"explain", func(t *testing.T, proj, cmd string) outcome {
		var r struct {
			Decision reasonCodes `json:"decision"`
		}
		runJSON(t, []string{"explain", "--json", "--cwd", proj, cmd}, "", &r)
		return r.Decision.outcome()
	}},
	{"run", func(t *testing.T, proj, cmd string) outcome {
		var r struct {
			Decision reasonCodes `json:"decision"`
		}
		runJSON(t, []string{"run", "--json", "--no", "--cwd", proj, cmd}, "", &r)
		return r.Decision.outcome()
	}},
	{"hook claude", func(t *testing.T, proj, cmd string) outcome {
		var out, errb bytes.Buffer
		wd, _ := os.Getwd()
		defer os.Chdir(wd)
		if err := os.Chdir(proj); err != nil {
			t.Fatal(err)
		}
		run([]string{"hook", "claude"}, strings.NewReader(claudePayload(t, proj, cmd)), &out, &errb)
		return claudeOutcome(t, out.Bytes())
	}},
	{"serve engine", func(t *testing.T, proj, cmd string) outcome {
		// A fresh engine per call would hide staleness: one engine per
		// test, kept in engines. The request carries what the hook client
		// sends of the agent's environment (hook.ParseFlags).
		en := engineFor(t)
		ans := en.Handle(context.Background(), hook.Request{Agent: hook.Claude, Flags: hook.Flags{Cwd: proj, Env: agentenv.Values()}, Payload: claudePayload(t, proj, cmd)})
		return claudeOutcome(t, ans.Stdout)
	}},
	{"mcp check", func(t *testing.T, proj, cmd string) outcome {
		cs := mcpFor(t, proj)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "check", Arguments: map[string]any{"command": cmd}})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var r reasonCodes
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("mcp check: %s: %v", b, err)
		}
		return r.outcome()
	}},
}

// engines and servers keep one resident engine and one MCP server per
// test, as a real one lives across decisions.
var (
	engines = map[*testing.T]*serve.Engine{}
	servers = map[*testing.T]*mcp.ClientSession{}
)

func engineFor(t *testing.T) *serve.Engine {
	if en, ok := engines[t]; ok {
		return en
	}
	en := serve.NewEngine()
	engines[t] = en
	t.Cleanup(func() { delete(engines, t) })
	return en
}

func mcpFor(t *testing.T, proj string) *mcp.ClientSession {
	if cs, ok := servers[t]; ok {
		return cs
	}
	cs := inMemory(t, false, proj)
	servers[t] = cs
	t.Cleanup(func() { delete(servers, t) })
	return cs
}

// TestProjectConfigTrust: what a repository ships may only tighten until
// the user trusts it, through every front end: untrusted, then trusted,
// then edited (untrusted again).
func TestProjectConfigTrust(t *testing.T) {
	grantMod := `package shellgate

allow contains {"code": "team-python", "message": "the team runs python", "span": seg.span, "segment": i} if {
	some i, seg in input.report.segments
	seg.name == "python3"
}
`
	helperMod := `package shellgate

granted_segments contains i if {
	some i, seg in input.report.segments
	seg.name == "python3"
}
`
	denyMod := `package shellgate

deny contains {"code": "no-python", "message": "no python here", "span": seg.span, "segment": i} if {
	some i, seg in input.report.segments
	seg.name == "python3"
}
`
	for _, tc := range []struct {
		name  string
		files map[string]string
		// edit changes the project after it was trusted.
		edit func(t *testing.T, proj string)
		// untrusted, trusted, edited: the outcome in each state.
		want [3]outcome
		all  bool   // through every front end (else check and the engine)
		cmd  string // the command decided (default pythonSystem)
	}{
		{
			name:  "config grant",
			files: map[string]string{".shellgate.yaml": "grants: [\"python3 -m pytest **\"]\n"},
			edit: func(t *testing.T, proj string) {
				writeFiles(t, proj, map[string]string{".shellgate.yaml": "grants: [\"python3 -m pytest **\"]\n# edited\n"})
			},
			want: [3]outcome{{"ask", true}, {"allow", false}, {"ask", true}},
			all:  true,
			cmd:  pytestRun,
		},
		{
			// Even trusted, a project's grant does not allow code through a
			// wildcard; untrusted, ignoring it changes nothing, so there is
			// no project-config-untrusted reason.
			name:  "config grant over code",
			files: map[string]string{".shellgate.yaml": "grants: [\"python3 **\"]\n"},
			edit: func(t *testing.T, proj string) {
				writeFiles(t, proj, map[string]string{".shellgate.yaml": "grants: [\"python3 **\"]\n# edited\n"})
			},
			want: [3]outcome{{"ask", false}, {"ask", false}, {"ask", false}},
			all:  true,
		},
		{
			name:  "policy allow rule",
			files: map[string]string{".shellgate.yaml": "policy_dirs: [pol]\n", "pol/team.rego": grantMod},
			edit: func(t *testing.T, proj string) {
				writeFiles(t, proj, map[string]string{"pol/NOTES": "a new file in a trusted policy dir\n"})
			},
			want: [3]outcome{{"ask", true}, {"allow", false}, {"ask", true}},
		},
		{
			name:  "policy helper set",
			files: map[string]string{".shellgate.yaml": "policy_dirs: [pol]\n", "mods/a.rego": helperMod, "mods/b.rego": helperMod},
			edit: func(t *testing.T, proj string) {
				// The same content behind a re-pointed symlink.
				link := filepath.Join(proj, "pol", "team.rego")
				if err := os.Remove(link); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink("../mods/b.rego", link); err != nil {
					t.Fatal(err)
				}
			},
			want: [3]outcome{{"ask", true}, {"allow", false}, {"ask", true}},
		},
		{
			name:  "policy deny rule",
			files: map[string]string{".shellgate.yaml": "policy_dirs: [pol]\n", "pol/team.rego": denyMod},
			edit: func(t *testing.T, proj string) {
				writeFiles(t, proj, map[string]string{"pol/team.rego": denyMod + "\n# edited\n"})
			},
			want: [3]outcome{{"deny", false}, {"deny", false}, {"deny", false}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proj := trustHome(t)
			writeFiles(t, proj, tc.files)
			if tc.name == "policy helper set" {
				if err := os.MkdirAll(filepath.Join(proj, "pol"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink("../mods/a.rego", filepath.Join(proj, "pol", "team.rego")); err != nil {
					t.Fatal(err)
				}
			}
			fes := frontEnds
			if !tc.all {
				fes = []frontEnd{frontEnds[0], frontEnds[5]}
			}
			for state, step := range []func(){
				func() {},
				func() {
					var out, errb bytes.Buffer
					if code := run([]string{"trust", proj}, strings.NewReader(""), &out, &errb); code != 0 {
						t.Fatalf("trust: exit %d: %s%s", code, out.String(), errb.String())
					}
				},
				func() { tc.edit(t, proj) },
			} {
				step()
				cmd := tc.cmd
				if cmd == "" {
					cmd = pythonSystem
				}
				for _, fe := range fes {
					got := fe.decide(t, proj, cmd)
					if diff := cmp.Diff(tc.want[state], got); diff != "" {
						t.Errorf("%s, %s: %s (-want +got):\n%s", fe.name, []string{"untrusted", "trusted", "edited"}[state], cmd, diff)
					}
				}
			}
		})
	}
}

// TestEngineNeverStale: a config made stricter applies at the very next
// decision of the resident engine, with no wait (the edit keeps the size).
func TestEngineNeverStale(t *testing.T) {
	proj := trustHome(t)
	cfg := filepath.Join(proj, ".shellgate.yaml")
	writeFiles(t, proj, map[string]string{".shellgate.yaml": "deny_reads: [\"other.txt\"]\n"})
	en := serve.NewEngine()
	decide := func() outcome {
		ans := en.Handle(context.Background(), hook.Request{Agent: hook.Claude, Flags: hook.Flags{Cwd: proj, Env: agentenv.Values()}, Payload: claudePayload(t, proj, "cat notes.txt")})
		return claudeOutcome(t, ans.Stdout)
	}
	if got := decide(); got.Action != "allow" {
		t.Fatalf("before the edit: %+v, want allow", got)
	}
	if err := os.WriteFile(cfg, []byte("deny_reads: [\"notes.txt\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := decide(); got.Action != "deny" {
		t.Errorf("the decision right after the config was made stricter: %+v, want deny", got)
	}
	// The explicit --config of a hook command is watched the same way.
	explicit := filepath.Join(t.TempDir(), "cfg.yaml")
	if err := os.WriteFile(explicit, []byte("mode: default\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := serve.NewGates(hook.Flags{Config: explicit})
	q := hook.Query{Command: "touch x", Cwd: proj}
	if v, err := c.Decide(context.Background(), q); err != nil || v.Action != "ask" {
		t.Fatalf("before: %+v %v, want ask", v, err)
	}
	if err := os.WriteFile(explicit, []byte("mode: readonly\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, err := c.Decide(context.Background(), q); err != nil || v.Action != "deny" {
		t.Errorf("right after mode: readonly: %+v %v, want deny", v, err)
	}
}

// TestTrustStoreRefused: a trust store that is corrupt or writable by
// others trusts nothing, and says why on stderr and in the reason.
func TestTrustStoreRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(t *testing.T, store string)
		want  string
	}{
		{"corrupt", func(t *testing.T, store string) {
			if err := os.WriteFile(store, []byte(`{"version": 1, "entries": [`), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "not a trust store"},
		{"world-writable", func(t *testing.T, store string) {
			if err := os.Chmod(store, 0o666); err != nil {
				t.Fatal(err)
			}
		}, "writable by others"},
		{"a directory", func(t *testing.T, store string) {
			if err := os.Remove(store); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(store, 0o700); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proj := trustHome(t)
			writeFiles(t, proj, map[string]string{".shellgate.yaml": "grants: [\"python3 -m pytest **\"]\n"})
			var out, errb bytes.Buffer
			if code := run([]string{"trust", proj}, strings.NewReader(""), &out, &errb); code != 0 {
				t.Fatalf("trust: exit %d: %s", code, errb.String())
			}
			tc.spoil(t, filepath.Join(os.Getenv("XDG_STATE_HOME"), "shellgate", "trust.json"))
			out.Reset()
			errb.Reset()
			run([]string{"check", "--json", "--cwd", proj, pytestRun}, strings.NewReader(""), &out, &errb)
			var r reasonCodes
			if err := json.Unmarshal(out.Bytes(), &r); err != nil {
				t.Fatalf("%v: %s%s", err, out.String(), errb.String())
			}
			if got := r.outcome(); got != (outcome{"ask", true}) {
				t.Errorf("check with a spoiled store: %+v, want ask with project-config-untrusted", got)
			}
			if !strings.Contains(errb.String(), tc.want) {
				t.Errorf("stderr %q does not say %q", errb.String(), tc.want)
			}
			msg := ""
			for _, x := range r.Reasons {
				if x.Code == "project-config-untrusted" {
					msg = x.Message
				}
			}
			if !strings.Contains(msg, tc.want) {
				t.Errorf("the reason %q does not say %q", msg, tc.want)
			}
			// trust refuses to write over it.
			errb.Reset()
			if code := run([]string{"trust", proj}, strings.NewReader(""), &out, &errb); code != exitUsage || !strings.Contains(errb.String(), tc.want) {
				t.Errorf("trust over a spoiled store: exit %d, stderr %q", code, errb.String())
			}
		})
	}
}
