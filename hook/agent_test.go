package hook

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestValidate checks the registry as go/analysis checks its analyzers.
func TestValidate(t *testing.T) {
	if err := Validate(Specs()); err != nil {
		t.Fatal(err)
	}
	var names []Agent
	for _, s := range Specs() {
		names = append(names, s.Name)
		if a, err := ParseAgent(strings.ToUpper(string(s.Name))); err != nil || a != s.Name {
			t.Errorf("ParseAgent(%q) = %q, %v", strings.ToUpper(string(s.Name)), a, err)
		}
		if s.Name.Spec() != s {
			t.Errorf("%s.Spec() is not its registered spec", s.Name)
		}
	}
	if diff := cmp.Diff(names, Agents); diff != "" {
		t.Errorf("Agents is not the registry's order (-registry +Agents):\n%s", diff)
	}
	if Agent("vim").Spec() != nil || Agent("vim").CanAsk() || Agent("vim").AskAsApplies() {
		t.Error("an agent not registered has a spec")
	}
}

// TestValidateRejects: each broken spec is refused, saying why.
func TestValidateRejects(t *testing.T) {
	good := func() AgentSpec { return *Claude.Spec() }
	for _, tt := range []struct {
		name   string
		mutate func(s *AgentSpec)
		want   string
	}{
		{"bad name", func(s *AgentSpec) { s.Name = "Claude Code" }, "not lower-case"},
		{"no title", func(s *AgentSpec) { s.Title = "" }, "no Title"},
		{"no order", func(s *AgentSpec) { s.Order = 0 }, "no Order"},
		{"no pre events", func(s *AgentSpec) { s.PreEvents = nil }, "no PreEvents"},
		{"empty event", func(s *AgentSpec) { s.PostEvents = append(s.PostEvents, "") }, "empty event name"},
		{"pre and post", func(s *AgentSpec) { s.PostEvents = []string{"PreToolUse"} }, "both a pre and a post"},
		{"post without renderer", func(s *AgentSpec) { s.renderPost = nil }, "PostEvents and a post-run renderer"},
		{"modes without none", func(s *AgentSpec) { s.AskingModes = []string{"default"} }, `AskingModes lacks ""`},
		{"cannot ask, no ask-as", func(s *AgentSpec) { s.CanAsk = false }, "--ask-as must apply"},
		{"no settings file", func(s *AgentSpec) { s.File = "" }, "no settings Dir or File"},
		{"package without program", func(s *AgentSpec) { s.Program = "" }, "a Package without a Program"},
		{"no hooks", func(s *AgentSpec) { s.hooks = nil }, "no hook entries"},
		{"flat with matchers", func(s *AgentSpec) { s.Flat = true }, "a matcher, unless Flat"},
		{"hook for an event not parsed", func(s *AgentSpec) { s.hooks = []hookSpec{{"BeforeTool", "Bash", claudeEntry}} }, "which the payload parser does not read"},
		{"hook for another tool", func(s *AgentSpec) { s.hooks = []hookSpec{{"PreToolUse", "Shell", claudeEntry}} }, `not the shell tool "Bash"`},
		{"first hook is post", func(s *AgentSpec) { s.hooks = []hookSpec{{"PostToolUse", "Bash", claudeEntry}} }, "must gate a shell command"},
		{"no renderer", func(s *AgentSpec) { s.render = nil }, "no answer renderer"},
		{"no doctor", func(s *AgentSpec) { s.doctor = nil }, "no doctor checks"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := good()
			tt.mutate(&s)
			err := Validate([]*AgentSpec{&s})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate: %v, want %q", err, tt.want)
			}
		})
	}
	t.Run("duplicates", func(t *testing.T) {
		a, b := good(), good()
		b.Name = "CLAUDE"
		err := Validate([]*AgentSpec{&a, &b, nil})
		for _, want := range []string{"registered twice", "Order 10 is claude's too", "settings file .claude/settings.json is claude's too", "a nil agent"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Validate: %v, want %q", err, want)
			}
		}
	})
}

// TestAgentsInCI: every agent with an npm package is installed by .ci/run,
// at the pinned version, for its end-to-end tests.
func TestAgentsInCI(t *testing.T) {
	f, err := os.Open(filepath.Join("..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	installed := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if w := strings.Fields(sc.Text()); len(w) == 3 && w[0] == "npm_agent" {
			installed[w[1]] = w[2]
		}
	}
	for _, s := range Specs() {
		if s.Package == "" {
			continue
		}
		if got := installed[s.Program]; got != s.Package {
			t.Errorf("%s: .ci/run installs %s as %q, want npm_agent %s %s", s.Name, s.Program, got, s.Program, s.Package)
		}
	}
}

// TestAgentNames: the sentence the help shows lists every agent.
func TestAgentNames(t *testing.T) {
	got := AgentNames()
	for i, a := range Agents {
		if !strings.Contains(got, string(a)) {
			t.Errorf("AgentNames() = %q lacks %s", got, a)
		}
		if i == len(Agents)-1 && len(Agents) > 1 && !strings.HasSuffix(got, " or "+string(a)) {
			t.Errorf("AgentNames() = %q does not end with %q", got, " or "+string(a))
		}
	}
}

// TestEveryAgent holds each registered agent to what every agent must do:
// its installed settings file reads back (as the agent reads it) with the
// hook under its gating event, a deny is never rendered as anything that
// lets the command run, and a call for another tool is passed.
func TestEveryAgent(t *testing.T) {
	for _, s := range Specs() {
		t.Run(string(s.Name), func(t *testing.T) {
			const command = "shellgate-hook AGENT"
			home := t.TempDir()
			in, err := s.Install(InstallOptions{Scope: ScopeProject, ProjectDir: t.TempDir(), Home: home,
				Getenv: func(string) string { return "" }, Command: command, DryRun: true})
			if err != nil {
				t.Fatal(err)
			}
			root, err := s.DecodeSettings(in.Content)
			if err != nil {
				t.Fatalf("the installed settings do not read back: %v", err)
			}
			hooks, _ := root["hooks"].(map[string]any)
			if _, ok := hooks[s.HookEvent()]; !ok || !strings.Contains(string(in.Content), in.Command[:len(command)]) {
				t.Errorf("no hook under %s in\n%s", s.HookEvent(), in.Content)
			}
			p := Payload{Agent: s.Name, Event: EventPre, EventName: s.PreEvents[0]}
			for _, action := range []string{Allow, Ask, Deny} {
				ans := Render(p, Verdict{Action: action, Reasons: []Reason{{Code: "x", Message: "why"}}}, Options{})
				out := strings.TrimSpace(string(ans.Stdout))
				if ans.Exit != 0 || (out == "" && !s.EmptyNoOpinion) {
					t.Errorf("%s: exit %d, output %q", action, ans.Exit, out)
				}
				if action == Deny && (!strings.Contains(out, "deny") || strings.Contains(out, "allow")) {
					t.Errorf("deny rendered as %s", out)
				}
			}
			if ans := DenyError(s.Name, "", ErrEmpty); !strings.Contains(string(ans.Stdout), "deny") {
				t.Errorf("DenyError: %s", ans.Stdout)
			}
			if s.ShellTool != "" {
				p, err := Parse(s.Name, []byte(`{"hook_event_name":"`+s.PreEvents[0]+`","tool_name":"Read","tool_input":{"path":"x"}}`))
				if err != nil || p.Event != EventOther {
					t.Errorf("another tool: event %v, %v", p.Event, err)
				}
			}
		})
	}
}
