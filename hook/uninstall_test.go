package hook

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnmerge(t *testing.T) {
	for _, tt := range []struct {
		name     string
		agent    Agent
		in, want string
		changed  bool
	}{
		{"no file", Claude, "", "", false},
		{"no hooks", Claude, `{"a":1}`, `{"a":1}`, false},
		{"only others' hooks: left as written", Claude, `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./lint.sh"}]}]}}`,
			`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./lint.sh"}]}]}}`, false},
		{"ours beside others in a group", Claude, `{"z":0,"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"shellgate-hook claude"},{"type":"command","command":"./lint.sh"}]}],"Stop":[]},"a":1}`,
			"{\n  \"z\": 0,\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"Bash\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"./lint.sh\"\n          }\n        ]\n      }\n    ],\n    \"Stop\": []\n  },\n  \"a\": 1\n}\n", true},
		{"ours alone: group, event and hooks go", Gemini, `{"hooks":{"BeforeTool":[{"matcher":"run_shell_command","hooks":[{"name":"shellgate","type":"command","command":"/x/shellgate hook gemini --ask-as deny"}]}]}}`,
			"{}\n", true},
		{"flat", Cursor, `{"version":1,"hooks":{"beforeShellExecution":[{"command":"shellgate-hook cursor"},{"command":"audit.sh"}]}}`,
			"{\n  \"version\": 1,\n  \"hooks\": {\n    \"beforeShellExecution\": [\n      {\n        \"command\": \"audit.sh\"\n      }\n    ]\n  }\n}\n", true},
		{"codex fail-closed command", Codex, string(must(Merge(Codex, nil, CodexFailClosed("shellgate-hook codex")))), "{}\n", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, changed, err := Unmerge(tt.agent, []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(out)); diff != "" || changed != tt.changed {
				t.Errorf("changed %v, want %v (-want +got):\n%s", changed, tt.changed, diff)
			}
		})
	}
	for _, in := range []string{`[]`, `{"hooks":[]}`, `{"a":`} {
		if _, _, err := Unmerge(Claude, []byte(in)); err == nil {
			t.Errorf("Unmerge(%s) gave no error", in)
		}
	}
}

func must(b []byte, _ bool, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// FuzzUnmerge: uninstall undoes install. For any settings file Merge
// accepts that holds no shellgate hook, Unmerge(Merge(x)) is x as Merge
// writes it (indented, keys in order), less the top-level defaults Merge
// added (Cursor's version) and the hook events (and "hooks") that were
// empty; and Unmerge leaves no shellgate command.
func FuzzUnmerge(f *testing.F) {
	for _, s := range []string{
		"", "{}", `{"theme":"dark","hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"other"}]}]}}`,
		`{"version":2,"hooks":{"beforeShellExecution":[{"command":"x"}]}}`, `{"hooks":{"PreToolUse":[1,"x",null]}}`,
		`{"hooks":{"BeforeTool":[{"matcher":"run_shell_command","hooks":[]}],"AfterTool":[]}}`, `{"a":{"b":[{"c":null}]}}`,
	} {
		for i := range Agents {
			f.Add(i, s)
		}
	}
	f.Fuzz(func(t *testing.T, agentIdx int, existing string) {
		agent := Agents[(agentIdx%len(Agents)+len(Agents))%len(Agents)]
		if _, had, err := Unmerge(agent, []byte(existing)); err != nil || had {
			return // not a settings file, or one with shellgate in it
		}
		merged, _, err := Merge(agent, []byte(existing), "shellgate-hook "+string(agent))
		if err != nil {
			return
		}
		out, changed, err := Unmerge(agent, merged)
		if err != nil || !changed {
			t.Fatalf("Unmerge(Merge(x)): changed %v, %v\n%s", changed, err, merged)
		}
		if strings.Contains(string(out), "shellgate-hook") {
			t.Fatalf("a shellgate command is left:\n%s", out)
		}
		want := []byte("{}\n")
		if len(bytes.TrimSpace([]byte(existing))) > 0 {
			v, err := decodeOrdered([]byte(existing))
			if err != nil {
				t.Fatal(err)
			}
			// An event list Merge wrote into was emptied again by Unmerge
			// and goes, as does "hooks" left empty: the same as if it had
			// not been there.
			if o, ok := v.(*object); ok {
				if h, ok := o.vals["hooks"].(*object); ok {
					for _, hs := range agent.Spec().hooks {
						if l, ok := h.vals[hs.event].([]any); ok && len(l) == 0 {
							h.del(hs.event)
						}
					}
					if len(h.keys) == 0 {
						o.del("hooks")
					}
				}
			}
			var buf, ind bytes.Buffer
			if err := encodeOrdered(&buf, v); err != nil {
				t.Fatal(err)
			}
			if err := json.Indent(&ind, buf.Bytes(), "", "  "); err != nil {
				t.Fatal(err)
			}
			want = append(ind.Bytes(), '\n')
		}
		got := out
		if spec := agent.Spec(); len(spec.defaults) > 0 {
			// Take out what Merge added at the top level.
			v, _ := decodeOrdered(out)
			o := v.(*object)
			w, _ := decodeOrdered(want)
			wo := w.(*object)
			for i := 0; i+1 < len(spec.defaults); i += 2 {
				if _, ok := wo.get(spec.defaults[i].(string)); !ok {
					o.del(spec.defaults[i].(string))
				}
			}
			var buf, ind bytes.Buffer
			encodeOrdered(&buf, o)
			json.Indent(&ind, buf.Bytes(), "", "  ")
			got = append(ind.Bytes(), '\n')
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Fatalf("Unmerge(Merge(x)) is not x (-x +got):\n%s", diff)
		}
	})
}
