package hook

import "encoding/json"

// Cursor is Cursor: beforeShellExecution in .cursor/hooks.json.
const Cursor Agent = "cursor"

func init() {
	register(&AgentSpec{
		Name:          Cursor,
		Title:         "Cursor",
		Order:         40,
		PreEvents:     []string{"beforeShellExecution"},
		CommandAtTop:  true,
		CanAsk:        true,
		Dir:           ".cursor",
		File:          "hooks.json",
		Flat:          true,
		ProjectDirVar: "CURSOR_PROJECT_DIR",
		hooks: []hookSpec{{"beforeShellExecution", "", func(c string) *object {
			return obj("command", c)
		}}},
		defaults: []any{"version", json.Number("1")},
		render: func(_ Payload, action, reason string) Answer {
			o := map[string]any{"permission": action}
			if action != Allow {
				o["user_message"] = reason
				o["agent_message"] = reason
			}
			return Answer{Stdout: marshal(o)}
		},
		doctor: func(DoctorEnv) []Check {
			return []Check{{Name: "fail-closed", Advisory: true,
				Message: "Cursor has no fail-closed setting for hooks: if the hook cannot run, Cursor decides (shellgate-hook itself always answers, with a deny at worst)"}}
		},
	})
}
