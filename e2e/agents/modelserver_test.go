package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// modelServer is a scripted model on 127.0.0.1: it asks the agent to run
// one shell command, then, once the agent sends the command's result
// back, answers "done". It records every request body.
type modelServer struct {
	t   *testing.T
	url string
	cmd string

	mu        sync.Mutex
	bodies    [][]byte
	toolCalls int
	// results are the tool results the agent sent for the scripted call.
	results []string
	// perTurn makes the model ask for the command again at every prompt
	// of the person (a terminal session), not once per conversation; the
	// calls' ids are anthropicToolID_N, N counting the prompts.
	perTurn bool
}

func (m *modelServer) record(body []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.bodies = append(m.bodies, body)
}

// saw reports whether any request the agent sent holds s.
func (m *modelServer) saw(s string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, b := range m.bodies {
		if bytes.Contains(b, []byte(s)) {
			return true
		}
	}
	return false
}

// result is the one tool result the agent sent back for the scripted
// command; the test fails when the model never asked for it or the agent
// never answered.
func (m *modelServer) result(run agentRun) string {
	m.t.Helper()
	m.mu.Lock()
	calls, results, n := m.toolCalls, append([]string(nil), m.results...), len(m.bodies)
	m.mu.Unlock()
	if calls == 0 {
		m.t.Fatalf("the agent never got the scripted tool call (%d model requests)\nstdout:\n%s\nstderr:\n%s", n, run.stdout, run.stderr)
	}
	if len(results) == 0 {
		m.t.Fatalf("the agent sent no result for the tool call %q (%d model requests)\nstdout:\n%s\nstderr:\n%s", m.cmd, n, run.stdout, run.stderr)
	}
	m.t.Logf("tool result the model got: %q", results[len(results)-1])
	return results[len(results)-1]
}

// toolResultCount is how many results for the scripted call arrived.
func (m *modelServer) toolResultCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.results)
}

func newModelServer(t *testing.T, cmd string, h func(m *modelServer, w http.ResponseWriter, r *http.Request, body []byte)) *modelServer {
	m := &modelServer{t: t, cmd: cmd}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		m.record(body)
		h(m, w, r, body)
	}))
	t.Cleanup(srv.Close)
	m.url = srv.URL
	return m
}

const anthropicToolID = "toolu_shellgate_e2e_1"

// newAnthropicServer speaks the Anthropic Messages API as Claude Code uses
// it (POST /v1/messages, streamed as server-sent events, or not).
func newAnthropicServer(t *testing.T, cmd string) *modelServer {
	return newModelServer(t, cmd, func(m *modelServer, w http.ResponseWriter, r *http.Request, body []byte) {
		if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1/messages") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"type":"error","error":{"type":"not_found_error","message":"not served by the test"}}`)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/count_tokens") {
			writeJSON(w, map[string]any{"input_tokens": 1})
			return
		}
		var req struct {
			Model  string `json:"model"`
			Stream bool   `json:"stream"`
			Tools  []struct {
				Name string `json:"name"`
			} `json:"tools"`
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		hasBash := false
		for _, tl := range req.Tools {
			hasBash = hasBash || tl.Name == "Bash"
		}
		answered := false
		toolID := anthropicToolID
		if m.perTurn && len(req.Messages) > 0 {
			// A request whose last block is a tool result has been
			// answered; any other (a new prompt of the person, which
			// Claude Code may append to the message holding the last
			// result) gets a new call, numbered after the results so far.
			type block struct {
				Type      string `json:"type"`
				ToolUseID string `json:"tool_use_id"`
			}
			n := 0
			var last []block
			for _, msg := range req.Messages {
				var blocks []block
				if json.Unmarshal(msg.Content, &blocks) != nil {
					last = nil
					continue
				}
				last = blocks
				for _, b := range blocks {
					if b.Type == "tool_result" && strings.HasPrefix(b.ToolUseID, anthropicToolID) {
						n++
					}
				}
			}
			if len(last) > 0 && last[len(last)-1].Type == "tool_result" {
				toolID = last[len(last)-1].ToolUseID
			} else {
				toolID = fmt.Sprintf("%s_%d", anthropicToolID, n+1)
			}
		}
		for _, msg := range req.Messages {
			var blocks []struct {
				Type      string          `json:"type"`
				ToolUseID string          `json:"tool_use_id"`
				Content   json.RawMessage `json:"content"`
			}
			if json.Unmarshal(msg.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				if b.Type == "tool_result" && b.ToolUseID == toolID {
					answered = true
					m.mu.Lock()
					m.results = append(m.results, anthropicText(b.Content))
					m.mu.Unlock()
				}
			}
		}
		var block map[string]any
		var stop string
		var input map[string]any
		if hasBash && !answered {
			m.mu.Lock()
			m.toolCalls++
			m.mu.Unlock()
			input = map[string]any{"command": m.cmd, "description": "Run the command the test gives"}
			block = map[string]any{"type": "tool_use", "id": toolID, "name": "Bash", "input": map[string]any{}}
			stop = "tool_use"
		} else {
			block = map[string]any{"type": "text", "text": ""}
			stop = "end_turn"
		}
		model := req.Model
		if model == "" {
			model = "claude-test"
		}
		if !req.Stream {
			content := map[string]any{"type": "text", "text": "done"}
			if input != nil {
				content = map[string]any{"type": "tool_use", "id": toolID, "name": "Bash", "input": input}
			}
			writeJSON(w, map[string]any{
				"id": "msg_e2e", "type": "message", "role": "assistant", "model": model,
				"content": []any{content}, "stop_reason": stop, "stop_sequence": nil,
				"usage": map[string]any{"input_tokens": 10, "output_tokens": 5},
			})
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		ev := func(name string, data any) {
			b, _ := json.Marshal(data)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		}
		ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{
			"id": "msg_e2e", "type": "message", "role": "assistant", "model": model, "content": []any{},
			"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 10, "output_tokens": 1},
		}})
		ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": block})
		if input != nil {
			js, _ := json.Marshal(input)
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(js)}})
		} else {
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": "done"}})
		}
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
		ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
		ev("message_stop", map[string]any{"type": "message_stop"})
	})
}

// anthropicText is a tool_result's content as text: a string, or the text
// of its blocks.
func anthropicText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) == nil {
		var b strings.Builder
		for _, bl := range blocks {
			b.WriteString(bl.Text)
		}
		return b.String()
	}
	return string(raw)
}

// newGeminiServer speaks the Gemini API as Gemini CLI uses it
// (POST /v1beta/models/MODEL:streamGenerateContent?alt=sse, and
// :generateContent for its JSON side requests).
func newGeminiServer(t *testing.T, cmd string) *modelServer {
	return newModelServer(t, cmd, func(m *modelServer, w http.ResponseWriter, r *http.Request, body []byte) {
		_, method, _ := strings.Cut(r.URL.Path, ":")
		if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1beta/models/") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":{"code":404,"message":"not served by the test","status":"NOT_FOUND"}}`)
			return
		}
		if method == "countTokens" {
			writeJSON(w, map[string]any{"totalTokens": 1})
			return
		}
		var req struct {
			Contents []struct {
				Role  string `json:"role"`
				Parts []struct {
					FunctionResponse *struct {
						Name     string          `json:"name"`
						Response json.RawMessage `json:"response"`
					} `json:"functionResponse"`
				} `json:"parts"`
			} `json:"contents"`
			Tools []struct {
				FunctionDeclarations []struct {
					Name string `json:"name"`
				} `json:"functionDeclarations"`
			} `json:"tools"`
			GenerationConfig struct {
				ResponseMimeType   string `json:"responseMimeType"`
				ResponseJSONSchema any    `json:"responseJsonSchema"`
				ResponseSchema     any    `json:"responseSchema"`
			} `json:"generationConfig"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		hasShell := false
		for _, tl := range req.Tools {
			for _, f := range tl.FunctionDeclarations {
				hasShell = hasShell || f.Name == "run_shell_command"
			}
		}
		var results []string
		for _, c := range req.Contents {
			for _, p := range c.Parts {
				if p.FunctionResponse != nil && p.FunctionResponse.Name == "run_shell_command" {
					results = append(results, string(p.FunctionResponse.Response))
				}
			}
		}
		var parts []any
		switch {
		case req.GenerationConfig.ResponseMimeType == "application/json":
			// A side request (routing, next speaker, ...): any answer of
			// the asked shape.
			schema := req.GenerationConfig.ResponseJSONSchema
			if schema == nil {
				schema = req.GenerationConfig.ResponseSchema
			}
			b, _ := json.Marshal(fillSchema(schema))
			parts = []any{map[string]any{"text": string(b)}}
		case hasShell && len(results) == 0:
			m.mu.Lock()
			m.toolCalls++
			m.mu.Unlock()
			parts = []any{map[string]any{"functionCall": map[string]any{
				"name": "run_shell_command",
				"args": map[string]any{"command": m.cmd, "description": "Run the command the test gives"},
			}}}
		default:
			if len(results) > 0 {
				m.mu.Lock()
				m.results = append(m.results, results[len(results)-1])
				m.mu.Unlock()
			}
			parts = []any{map[string]any{"text": "done"}}
		}
		resp := map[string]any{
			"candidates": []any{map[string]any{
				"content":      map[string]any{"role": "model", "parts": parts},
				"finishReason": "STOP",
				"index":        0,
			}},
			"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
			"modelVersion":  "gemini-test",
		}
		if method == "streamGenerateContent" {
			b, _ := json.Marshal(resp)
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: %s\r\n\r\n", b)
			return
		}
		writeJSON(w, resp)
	})
}

// fillSchema makes a value of the JSON schema's shape (Gemini's upper-case
// type names, or JSON Schema's).
func fillSchema(v any) any {
	s, ok := v.(map[string]any)
	if !ok {
		return map[string]any{}
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	typ, _ := s["type"].(string)
	switch strings.ToLower(typ) {
	case "object", "":
		out := map[string]any{}
		if props, ok := s["properties"].(map[string]any); ok {
			for k, p := range props {
				out[k] = fillSchema(p)
			}
		}
		return out
	case "array":
		return []any{}
	case "integer", "number":
		return 1
	case "boolean":
		return false
	}
	return "x"
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
