package corpus

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestExtract(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []Command
		problems []string
	}{
		{
			name: "plain lines, blank lines skipped, a leading brace is a command",
			in:   "ls -la\n\n  \ncat x | head\n",
			want: []Command{{Command: "ls -la", Line: 1, Source: "lines"}, {Command: "cat x | head", Line: 4, Source: "lines"}},
		},
		{
			name: "a first line that is not JSON means lines",
			in:   "{ ls; }\n{\"command\":\"x\"}\n",
			want: []Command{{Command: "{ ls; }", Line: 1, Source: "lines"}, {Command: `{"command":"x"}`, Line: 2, Source: "lines"}},
		},
		{
			name: "Claude Code: Bash tool calls only, with the cwd",
			in: `{"type":"user","message":{"role":"user","content":"hi"},"cwd":"/w"}
{"type":"assistant","cwd":"/w","message":{"content":[{"type":"text","text":"x"},{"type":"tool_use","name":"Bash","input":{"command":"git status"}},{"type":"tool_use","name":"Read","input":{"file_path":"a"}}]}}
{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"npm test\nnpm run lint"}}]}}
`,
			want: []Command{
				{Command: "git status", Cwd: "/w", Line: 2, Source: "claude"},
				{Command: "npm test\nnpm run lint", Line: 3, Source: "claude"},
			},
		},
		{
			name: "Codex: argv and string commands, local shell calls, exec --json items once",
			in: `{"type":"session_meta","payload":{"cwd":"/w"}}
{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"ls -la\"],\"workdir\":\"/w\"}"}}
{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"rg\",\"-n\",\"two words\"]}"}}
{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"go test ./...\"}"}}
{"type":"response_item","payload":{"type":"function_call","name":"apply_patch","arguments":"{}"}}
{"type":"response_item","payload":{"type":"local_shell_call","action":{"type":"exec","command":["cat","a b"],"working_directory":"/w2"}}}
{"type":"item.started","item":{"id":"i1","type":"command_execution","command":"bash -lc 'echo '\\''hi'\\'''"}}
{"type":"item.completed","item":{"id":"i1","type":"command_execution","command":"bash -lc 'echo '\\''hi'\\'''"}}
{"type":"function_call","name":"shell","arguments":"{\"command\":\"pwd\"}"}
`,
			want: []Command{
				{Command: "ls -la", Cwd: "/w", Line: 2, Source: "codex"},
				{Command: "rg -n 'two words'", Line: 3, Source: "codex"},
				{Command: "go test ./...", Line: 4, Source: "codex"},
				{Command: "cat 'a b'", Cwd: "/w2", Line: 6, Source: "codex"},
				{Command: "echo 'hi'", Line: 7, Source: "codex"},
				{Command: "pwd", Line: 9, Source: "codex"},
			},
		},
		{
			name: "shellgate's own JSON lines",
			in:   `{"command":"ls","cwd":"/w"}` + "\n" + `{"other":1}` + "\n",
			want: []Command{{Command: "ls", Cwd: "/w", Line: 1, Source: "jsonl"}},
		},
		{
			name: "blank commands are reported, not audited",
			in: `{"item":{"type":"command_execution","command":" "}}
{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"\\t\"]}"}
{"message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"\n"}}]}}
{"command":"  "}
`,
			problems: []string{
				"line 1: a blank codex command",
				"line 2: a blank codex command",
				"line 3: a blank claude command",
				"line 4: a blank jsonl command",
			},
		},
		{
			name: "unreadable lines are reported, not dropped",
			in: `{"command":"ls"}
not json
{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"not json"}}
{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{}}]}}
`,
			want: []Command{{Command: "ls", Line: 1, Source: "jsonl"}},
			problems: []string{
				"line 2: not a JSON object",
				"line 3: a shell function call whose arguments are not a JSON object",
				"line 4: a Bash tool call without a command string",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, problems, err := Extract(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("commands (-want +got):\n%s", diff)
			}
			if len(problems) != len(tc.problems) {
				t.Fatalf("problems = %q, want %q", problems, tc.problems)
			}
			for i, p := range tc.problems {
				if !strings.HasPrefix(problems[i], p) {
					t.Errorf("problem %d = %q, want prefix %q", i, problems[i], p)
				}
			}
		})
	}
}

// TestShellScripts: a codex command run through a shell the catalog names
// with a dialect (by name or path, with -c or -lc) is judged as its
// script; any other program, or a shell whose language shellgate does not
// read, is judged as the words given.
func TestShellScripts(t *testing.T) {
	argv := []struct {
		in   []string
		want string
	}{
		{[]string{"bash", "-lc", "ls -la"}, "ls -la"},
		{[]string{"/bin/zsh", "-c", "git status"}, "git status"},
		{[]string{"/usr/bin/dash", "-lc", "pwd"}, "pwd"},
		{[]string{"sh", "-c", "echo a; echo b"}, "echo a; echo b"},
		{[]string{"ksh", "-c", "ls"}, "ksh -c ls"},
		{[]string{"fish", "-c", "ls"}, "fish -c ls"},
		{[]string{"grep", "-c", "x"}, "grep -c x"},
		{[]string{"bash", "-x", "ls"}, "bash -x ls"},
		{[]string{"bash", "-lc", "a b", "extra"}, "bash -lc 'a b' extra"},
	}
	for _, tc := range argv {
		if got := argvCommand(tc.in); got != tc.want {
			t.Errorf("argvCommand(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for in, want := range map[string]string{
		"bash -lc 'ls -la'":                   "ls -la",
		"/bin/bash -lc 'cat x'":               "cat x",
		"zsh -lc 'git log'":                   "git log",
		"/usr/bin/zsh -c 'echo '\\''hi'\\'''": "echo 'hi'",
		"sh -c 'pwd'":                         "pwd",
		"ksh -c 'ls'":                         "ksh -c 'ls'",
		"grep -c 'x'":                         "grep -c 'x'",
		"bash -lc 'a' 'b'":                    "bash -lc 'a' 'b'",
		"bash -lc ls":                         "bash -lc ls",
		"bash":                                "bash",
		"-bash -lc 'ls'":                      "-bash -lc 'ls'",
	} {
		if got := unwrapShell(in); got != want {
			t.Errorf("unwrapShell(%q) = %q, want %q", in, got, want)
		}
	}
}
