package agents

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

const openAIToolCallID = "call_shellgate_e2e_1"

// newOpenAIServer speaks OpenAI's chat completions API as Qwen Code and
// GitHub Copilot CLI use it (POST /v1/chat/completions, streamed as
// server-sent events, or not; GET /v1/models). The first request that
// offers a shell tool (one of shellTools) gets the scripted call; a request
// that carries its result gets "done", and the result is recorded.
func newOpenAIServer(t *testing.T, cmd string, shellTools ...string) *modelServer {
	return newModelServer(t, cmd, func(m *modelServer, w http.ResponseWriter, r *http.Request, body []byte) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
			writeJSON(w, map[string]any{"object": "list", "data": []any{map[string]any{"id": "test-model", "object": "model", "owned_by": "shellgate-e2e"}}})
			return
		}
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":{"message":"not served by the test","type":"invalid_request_error"}}`)
			return
		}
		var req struct {
			Stream bool `json:"stream"`
			Tools  []struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tools"`
			Messages []struct {
				Role       string          `json:"role"`
				ToolCallID string          `json:"tool_call_id"`
				Content    json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		shell := ""
		for _, tl := range req.Tools {
			for _, s := range shellTools {
				if tl.Function.Name == s && shell == "" {
					shell = s
				}
			}
		}
		var result *string
		for _, msg := range req.Messages {
			if msg.Role == "tool" && msg.ToolCallID == openAIToolCallID {
				s := anthropicText(msg.Content) // a string, or text parts
				result = &s
			}
		}
		m.mu.Lock()
		call := shell != "" && result == nil && m.toolCalls == 0
		if call {
			m.toolCalls++
		}
		if result != nil {
			m.results = append(m.results, *result)
		}
		m.mu.Unlock()
		msg := map[string]any{"role": "assistant", "content": "done"}
		finish := "stop"
		if call {
			args, _ := json.Marshal(map[string]any{"command": m.cmd, "description": "Run the command the test gives"})
			msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
				"index": 0, "id": openAIToolCallID, "type": "function",
				"function": map[string]any{"name": shell, "arguments": string(args)},
			}}}
			finish = "tool_calls"
		}
		usage := map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
		if !req.Stream {
			writeJSON(w, map[string]any{"id": "chatcmpl-e2e", "object": "chat.completion", "created": 1, "model": "test-model",
				"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta map[string]any, finish any, usage any) {
			c := map[string]any{"id": "chatcmpl-e2e", "object": "chat.completion.chunk", "created": 1, "model": "test-model",
				"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
			if usage != nil {
				c["usage"] = usage
			}
			b, _ := json.Marshal(c)
			fmt.Fprintf(w, "data: %s\n\n", b)
		}
		chunk(msg, nil, nil)
		chunk(map[string]any{}, finish, usage)
		io.WriteString(w, "data: [DONE]\n\n")
	})
}
