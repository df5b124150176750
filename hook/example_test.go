package hook_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/shellgate/shellgate/hook"
)

// A Decider that allows ls and asks about everything else; the real one is
// shellgate's gate.
var decider = hook.DeciderFunc(func(_ context.Context, q hook.Query) (hook.Verdict, error) {
	if strings.HasPrefix(q.Command, "ls") {
		return hook.Verdict{Action: hook.Allow}, nil
	}
	return hook.Verdict{Action: hook.Ask, Reasons: []hook.Reason{{Code: "not-reversible", Message: "may change files"}}}, nil
})

func ExampleHandle() {
	claude := `{"session_id":"s1","cwd":"/home/u/proj","permission_mode":"default","hook_event_name":"PreToolUse",` +
		`"tool_name":"Bash","tool_input":{"command":"make install"}}`
	ans := hook.Handle(context.Background(), hook.Claude, []byte(claude), hook.Flags{}, decider, nil)
	fmt.Print(string(ans.Stdout))

	// Codex cannot ask from a hook: by default an ask becomes a deny that
	// says a person must approve.
	codex := `{"session_id":"s1","cwd":"/home/u/proj","hook_event_name":"PreToolUse","model":"gpt-5",` +
		`"permission_mode":"default","tool_name":"Bash","tool_input":{"command":"make install"},"tool_use_id":"c1"}`
	ans = hook.Handle(context.Background(), hook.Codex, []byte(codex), hook.Flags{}, decider, nil)
	fmt.Print(string(ans.Stdout))

	cursor := `{"hook_event_name":"beforeShellExecution","command":"ls -la","cwd":"/home/u/proj"}`
	ans = hook.Handle(context.Background(), hook.Cursor, []byte(cursor), hook.Flags{}, decider, nil)
	fmt.Print(string(ans.Stdout))

	// Input that cannot be read is denied, never let through.
	ans = hook.Handle(context.Background(), hook.Gemini, []byte(`{"tool_name":`), hook.Flags{}, decider, nil)
	fmt.Print(string(ans.Stdout), ans.Exit, "\n")
	// Output:
	// {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"shellgate: a person must approve this command: not-reversible: may change files"}}
	// {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"shellgate: this command needs a person's approval, which Codex hooks cannot ask for; ask the user to approve or run it: not-reversible: may change files"}}
	// {"permission":"allow"}
	// {"decision":"deny","reason":"shellgate could not decide, so the command is denied: hook payload is not a JSON object: unexpected EOF"}
	// 0
}

func ExampleMerge() {
	existing := `{"model": "opus", "hooks": {"PreToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "./lint.sh"}]}]}}`
	out, changed, err := hook.Merge(hook.Codex, []byte(existing), "shellgate-hook codex")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(changed)
	fmt.Print(string(out))
	// Output:
	// true
	// {
	//   "model": "opus",
	//   "hooks": {
	//     "PreToolUse": [
	//       {
	//         "matcher": "Edit",
	//         "hooks": [
	//           {
	//             "type": "command",
	//             "command": "./lint.sh"
	//           }
	//         ]
	//       },
	//       {
	//         "matcher": "Bash",
	//         "hooks": [
	//           {
	//             "type": "command",
	//             "command": "shellgate-hook codex",
	//             "timeout": 30
	//           }
	//         ]
	//       }
	//     ]
	//   }
	// }
}
