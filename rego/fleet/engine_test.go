package fleet

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
)

// bundleServer serves a bundle at /shellgate.tar.gz and collects the
// decision-log uploads (gzipped JSON) on any other path, on 127.0.0.1.
type bundleServer struct {
	url    string
	bundle []byte
	mu     sync.Mutex
	logs   []string
}

func startBundleServer(t *testing.T, bundle []byte) *bundleServer {
	t.Helper()
	s := &bundleServer{bundle: bundle}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/shellgate.tar.gz") {
			w.Write(s.bundle)
			return
		}
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		b, _ := io.ReadAll(zr)
		s.mu.Lock()
		s.logs = append(s.logs, string(b))
		s.mu.Unlock()
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	s.url = "http://" + l.Addr().String()
	return s
}

// orgBundle is a bundle whose policy denies curl (code org-no-curl) and
// whose config adds a deny row for secrets.txt.
func orgBundle(t *testing.T) []byte {
	t.Helper()
	org := filepath.Join(t.TempDir(), "org")
	if err := os.Mkdir(org, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"no_curl.rego": `package shellgate

import rego.v1

deny contains {"code": "org-no-curl", "message": "no curl here", "span": s.span} if {
	some s in input.report.segments
	s.program == "curl"
}
`,
		"shellgate.yaml": "deny_reads:\n  - \"**/secrets.txt\"\n",
	} {
		if err := os.WriteFile(filepath.Join(org, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if _, err := Write(&buf, BundleOptions{Dirs: []string{org}, Revision: "v1"}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func engineConfig(url string) []byte {
	return []byte(fmt.Sprintf(`services:
  s:
    url: %s
bundles:
  shellgate:
    service: s
    resource: shellgate.tar.gz
decision_logs:
  service: s
  reporting:
    min_delay_seconds: 300
    max_delay_seconds: 600
`, url))
}

// engineHome is a fresh home with a workspace (a .git, secrets.txt) and
// a project in it whose .shellgate.yaml says readonly.
func engineHome(t *testing.T) (ws, proj string) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	ws = filepath.Join(home, "ws")
	proj = filepath.Join(home, "proj")
	for _, d := range []string{filepath.Join(ws, ".git"), filepath.Join(proj, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, text := range map[string]string{
		filepath.Join(ws, "secrets.txt"):       "s3cret\n",
		filepath.Join(proj, ".shellgate.yaml"): "mode: readonly\n",
	} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws, proj
}

func reasonCodes(d policy.Decision) []string {
	var out []string
	for _, r := range d.Reasons {
		out = append(out, r.Code)
	}
	return out
}

// TestEngineDecidesWithTheBundle: the bundle's policy and config decide,
// a project config only tightens, every way in (Decide, Check, a gate,
// a batch) agrees, and the decision log gets each decision masked.
func TestEngineDecidesWithTheBundle(t *testing.T) {
	ws, proj := engineHome(t)
	srv := startBundleServer(t, orgBundle(t))
	e, err := NewEngine(context.Background(), engineConfig(srv.url), EngineOptions{Wait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Stop()
	if got := e.Revision(); got != "shellgate@v1" {
		t.Fatalf("revision in force = %q (status %+v)", got, e.Agent().Status())
	}
	ctx := context.Background()
	dec := gate.NewSourceDecider(e, gate.PipelineOptions{Env: readstation.ProcessEnv})
	for _, tc := range []struct {
		cmd, cwd string
		action   policy.Action
		code     string // a reason code it must carry
	}{
		{"ls", ws, policy.Allow, ""},
		{"curl https://example.com", ws, policy.Deny, "org-no-curl"},
		{"cat secrets.txt", ws, policy.Deny, ""},
		{"TOKEN=abc123 make deploy", ws, policy.Ask, ""},
		{"touch x", ws, policy.Ask, ""},
		{"touch x", proj, policy.Deny, ""}, // the project says readonly
	} {
		in, _, err := dec.Input(policy.Request{Command: tc.cmd, Cwd: tc.cwd})
		if err != nil {
			t.Fatal(err)
		}
		d, _, err := dec.Decide(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if d.Action != tc.action || (tc.code != "" && !strings.Contains(strings.Join(reasonCodes(d), " "), tc.code)) {
			t.Errorf("%s in %s: %s %v; want %s with %q", tc.cmd, tc.cwd, d.Action, reasonCodes(d), tc.action, tc.code)
		}
		res, err := dec.Check(ctx, policy.Request{Command: tc.cmd, Cwd: tc.cwd})
		if err != nil || res.Action != d.Action || !cmp.Equal(res.Reasons, d.Reasons) {
			t.Errorf("%s: Check = %s %v (%v); Decide %s", tc.cmd, res.Action, res.Reasons, err, d.Action)
		}
		g, err := dec.GateFor(tc.cwd)
		if err != nil {
			t.Fatal(err)
		}
		gd, err := g.Decide(ctx, gate.Request{Command: tc.cmd})
		if err != nil || gd.Action != d.Action {
			t.Errorf("%s: the gate decides %v (%v); Decide %s", tc.cmd, gd, err, d.Action)
		}
	}
	// A cwd that is not absolute: the policy asks (cwd-unknown), whatever
	// the station could not judge.
	in, _, _ := dec.Input(policy.Request{Command: "ls", Cwd: "ws"})
	if d, _, err := dec.Decide(ctx, in); err != nil || d.Action != policy.Ask || !slices.Contains(reasonCodes(d), "cwd-unknown") {
		t.Errorf("ls in a relative cwd: %s %v (%v); want ask with cwd-unknown", d.Action, reasonCodes(d), err)
	}
	// A batch through the engine answers as Check does.
	var out bytes.Buffer
	b := gate.Batcher{Checker: dec, Defaults: policy.Request{Cwd: ws}}
	if err := b.Stream(ctx, strings.NewReader("curl x\nls\n"), gate.BatchLines, &out); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(out.String(), "\n"); len(lines) != 3 || !strings.Contains(lines[0], `"org-no-curl"`) || !strings.Contains(lines[1], `"action":"allow"`) {
		t.Errorf("batch:\n%s", out.String())
	}
	if err := e.Agent().Flush(ctx); err != nil {
		t.Fatal(err)
	}
	srv.mu.Lock()
	logs := strings.Join(srv.logs, "\n")
	srv.mu.Unlock()
	if !strings.Contains(logs, "org-no-curl") || !strings.Contains(logs, "TOKEN=*** make deploy") {
		t.Errorf("the decision log lacks the decisions: %s", logs)
	}
	// The log names the reading the decision judged: the shell was not
	// known, so both.
	if !strings.Contains(logs, `"dialect":"bash+zsh"`) || strings.Contains(logs, `"dialect":"bash"`) {
		t.Errorf("the decision log does not name the dialect read (bash+zsh): %s", logs)
	}
	if strings.Contains(logs, "abc123") || strings.Contains(logs, `"secrets"`) {
		t.Errorf("the decision log shows a secret: %s", logs)
	}
}

// TestEngineWithoutBundle: while no bundle was ever loaded, every way in
// denies with code policy-bundle-unavailable, and inputs are still built.
func TestEngineWithoutBundle(t *testing.T) {
	ws, _ := engineHome(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close() // nothing listens there
	e, err := NewEngine(context.Background(), engineConfig(url), EngineOptions{Wait: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Agent().StopQuiet(context.Background())
	if b, _ := e.Bundle(); b != nil || e.Revision() != "" {
		t.Fatalf("a bundle is in force: %q", e.Revision())
	}
	ctx := context.Background()
	dec := gate.NewSourceDecider(e, gate.PipelineOptions{Env: readstation.ProcessEnv})
	res, err := dec.Check(ctx, policy.Request{Command: "ls", Cwd: ws})
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != policy.Deny || len(res.Reasons) != 1 || res.Reasons[0].Code != PolicyBundleUnavailable ||
		!strings.Contains(res.Reasons[0].Message, "no policy bundle has been loaded") || res.Command != "ls" || !res.Reversible {
		t.Errorf("Check = %+v", res)
	}
	g, err := dec.GateFor(ws)
	if err != nil {
		t.Fatal(err)
	}
	r := g.Run(ctx, gate.Request{Command: "true"})
	if r.Ran() || r.Decision == nil || r.Decision.Action != policy.Deny || r.Decision.Reasons[0].Code != PolicyBundleUnavailable {
		t.Errorf("the gate ran or did not deny: %+v", r)
	}
	x, err := dec.Explain(ctx, policy.Input{Command: "ls", Cwd: ws, Mode: policy.ModeDefault, Report: classify.Classify("ls")})
	if err != nil || x.Decision.Action != policy.Deny {
		t.Errorf("Explain = %+v, %v", x, err)
	}
	gr, err := dec.Grant(ctx, policy.Input{Command: "npm test", Cwd: ws, Mode: policy.ModeReadonly, Report: classify.Classify("npm test")})
	if err != nil || gr.Action != policy.Deny || len(gr.Grants) != 0 {
		t.Errorf("Grant = %+v, %v", gr, err)
	}
}

// TestSecrets: assignment values (as written and as the shell sees them)
// and the denied reads are what the mask hides.
func TestSecrets(t *testing.T) {
	in := policy.Input{Command: `TOKEN='a b' ls`, Report: classify.Classify(`TOKEN='a b' ls`)}
	if diff := cmp.Diff([]string{"'a b'", "a b"}, Secrets(in)); diff != "" {
		t.Errorf("secrets (-want +got):\n%s", diff)
	}
	if got := Secrets(policy.Input{Command: "ls"}); got != nil {
		t.Errorf("no report: %v", got)
	}
}
