package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/internal/mcptest"
	"github.com/shellgate/shellgate/internal/testenv"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/rego/fleet"
	"github.com/shellgate/shellgate/serve"
)

// needTool returns the path of a program the test drives (testenv.LookPath:
// skipped without it on a developer's machine, a failure in CI).
func needTool(t testing.TB, name string, candidates ...string) string {
	t.Helper()
	return testenv.LookPath(t, append([]string{name}, candidates...)...)
}

// freePort returns a port on 127.0.0.1 nothing listens on now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// nginxServer is Debian's nginx serving dir/www on 127.0.0.1 (with ETags).
type nginxServer struct {
	dir, www, url string
	cmd           *exec.Cmd
}

func startNginx(t testing.TB) *nginxServer {
	t.Helper()
	bin := needTool(t, "nginx", "/usr/sbin/nginx")
	dir := t.TempDir()
	s := &nginxServer{dir: dir, www: filepath.Join(dir, "www")}
	if err := os.MkdirAll(filepath.Join(s.www), 0o755); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	s.url = fmt.Sprintf("http://127.0.0.1:%d", port)
	user := ""
	if os.Getuid() == 0 {
		user = "user root;\n" // workers read the test's 0700 temp dirs
	}
	conf := fmt.Sprintf(`%sworker_processes 1;
pid %[2]s/nginx.pid;
error_log %[2]s/error.log;
events { worker_connections 64; }
http {
  access_log %[2]s/access.log;
  client_body_temp_path %[2]s/tmp_body;
  proxy_temp_path %[2]s/tmp_proxy;
  fastcgi_temp_path %[2]s/tmp_fastcgi;
  uwsgi_temp_path %[2]s/tmp_uwsgi;
  scgi_temp_path %[2]s/tmp_scgi;
  server {
    listen 127.0.0.1:%[3]d;
    root %[4]s;
    etag on;
  }
}
`, user, dir, port, s.www)
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	s.cmd = exec.Command(bin, "-p", dir, "-c", filepath.Join(dir, "nginx.conf"), "-g", "daemon off;")
	var stderr bytes.Buffer
	s.cmd.Stderr = &stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.stop)
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			break
		}
		if i > 100 {
			t.Fatalf("nginx did not start: %v\n%s", err, stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return s
}

func (s *nginxServer) stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(os.Interrupt)
		_ = s.cmd.Wait()
		s.cmd = nil
	}
}

// collector is the other end of OPA's decision-log protocol: it receives
// gzip'd JSON arrays of events.
type collector struct {
	mu     sync.Mutex
	events []map[string]any
	raw    [][]byte
	url    string
}

func startCollector(t testing.TB) *collector {
	t.Helper()
	c := &collector{}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := startCollectorOn(t, c, l)
	t.Cleanup(func() { srv.Close() })
	return c
}

// startCollectorOn serves c on l.
func startCollectorOn(t testing.TB, c *collector, l net.Listener) *http.Server {
	t.Helper()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		b, err := io.ReadAll(zr)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		var evs []map[string]any
		if err := json.Unmarshal(b, &evs); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		c.mu.Lock()
		c.raw = append(c.raw, b)
		c.events = append(c.events, evs...)
		c.mu.Unlock()
	})}
	go srv.Serve(l)
	c.url = "http://" + l.Addr().String()
	return srv
}

// rsaKeys writes a private key file and returns it with the PEM public key.
func rsaKeys(t testing.TB, dir, name string) (privFile, pubPEM string) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	priv := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
	pub, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	privFile = filepath.Join(dir, name+".pem")
	if err := os.WriteFile(privFile, priv, 0o600); err != nil {
		t.Fatal(err)
	}
	return privFile, string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}))
}

// policyDir writes a policy dir whose module denies "ls" with code.
func policyDir(t testing.TB, root, code string) string {
	t.Helper()
	d := filepath.Join(root, "org-"+code)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	mod := fmt.Sprintf(`package shellgate

import rego.v1

deny contains {"code": %q, "message": "the organisation forbids ls here"} if {
	some s in input.report.segments
	s.program == "ls"
}
`, code)
	if err := os.WriteFile(filepath.Join(d, "org.rego"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := "deny_reads:\n  - '**/org-secret.txt'\n"
	if err := os.WriteFile(filepath.Join(d, "shellgate.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return d
}

// publishCount makes each published bundle's mtime distinct: nginx's ETag
// is the file's mtime (in seconds) and size, and two bundles written in the
// same second with the same size would share it.
var publishCount int

func touchPublished(t testing.TB, path string) {
	t.Helper()
	publishCount++
	at := time.Now().Add(time.Duration(publishCount) * time.Hour)
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

// bundleCLI runs shellgate policy bundle.
func bundleCLI(t testing.TB, out, key, rev string, dirs ...string) {
	t.Helper()
	defer touchPublished(t, out)
	args := []string{"policy", "bundle", "-o", out, "--revision", rev}
	if key != "" {
		args = append(args, "--sign-key", key)
	}
	var so, se bytes.Buffer
	if code := run(append(args, dirs...), nil, &so, &se); code != 0 {
		t.Fatalf("policy bundle: exit %d: %s", code, se.String())
	}
}

func opaConfig(t testing.TB, dir, bundleURL, logsURL, pubPEM, persist string) string {
	t.Helper()
	ind := "      " + strings.ReplaceAll(strings.TrimSpace(pubPEM), "\n", "\n      ")
	cfg := fmt.Sprintf(`services:
  bundles:
    url: %s
  collector:
    url: %s
bundles:
  shellgate:
    service: bundles
    resource: shellgate.tar.gz
    persist: true
    polling:
      min_delay_seconds: 1
      max_delay_seconds: 1
    signing:
      keyid: shellgate
keys:
  shellgate:
    algorithm: RS256
    key: |
%s
decision_logs:
  service: collector
  reporting:
    min_delay_seconds: 1
    max_delay_seconds: 1
persistence_directory: %s
`, bundleURL, logsURL, ind, persist)
	p := filepath.Join(dir, "opa.yaml")
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// decideWith decides command in cwd with the fleet's pipeline in force.
func decideWith(t testing.TB, f *fleet.Engine, command, cwd string) policy.Decision {
	t.Helper()
	d := &decider{Decider: fleetDecider(f), req: policy.Request{Cwd: cwd}}
	in, _, _ := d.input(policy.Request{Command: command})
	dec, _, err := d.Decide(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return dec
}

func codes(d policy.Decision) []string {
	var out []string
	for _, r := range d.Reasons {
		out = append(out, r.Code)
	}
	return out
}

// TestFleetBundleServer runs the engine against a real bundle server
// (nginx on 127.0.0.1) and a real decision-log collector.
func TestFleetBundleServer(t *testing.T) {
	srv := startNginx(t)
	col := startCollector(t)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	old := fleetWait
	fleetWait = 10 * time.Second
	t.Cleanup(func() { fleetWait = old })

	work := t.TempDir()
	priv, pub := rsaKeys(t, work, "org")
	wrong, _ := rsaKeys(t, work, "wrong")
	persist := filepath.Join(work, "persist")
	cfg := opaConfig(t, work, srv.url, col.url, pub, persist)
	served := filepath.Join(srv.www, "shellgate.tar.gz")
	bundleCLI(t, served, priv, "v1", policyDir(t, work, "org-v1"))
	cwd := t.TempDir()

	f, err := startFleet(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Revision(); got != "shellgate@v1" {
		t.Fatalf("revision in force = %q, want shellgate@v1 (status %+v)", got, f.Agent().Status())
	}
	d := decideWith(t, f, "ls", cwd)
	if diff := cmp.Diff([]string{"org-v1"}, codes(d)); d.Action != policy.Deny || diff != "" {
		t.Fatalf("v1: %s %v (-want +got):\n%s", d.Action, codes(d), diff)
	}
	// The resident engine (serve --opa-config) answers hook calls the same.
	v, err := serve.BundleDecider{Decider: fleetDecider(f)}.Decide(context.Background(), hook.Query{Command: "ls", Cwd: cwd})
	if err != nil || v.Action != "deny" || len(v.Reasons) != 1 || v.Reasons[0].Code != "org-v1" {
		t.Fatalf("serve's hook decider: %+v %v", v, err)
	}
	v, err = serve.BundleDecider{Decider: fleetDecider(f), Flags: hook.Flags{Config: "/x.yaml"}}.Decide(context.Background(), hook.Query{Command: "true", Cwd: cwd})
	if err != nil || v.Action != "deny" || v.Reasons[0].Code != fleet.PolicyBundleUnavailable {
		t.Fatalf("serve's hook decider with a hook --config: %+v %v", v, err)
	}
	// So does the MCP server (mcp --opa-config).
	mo, err := newMCPServerFleet(false, cwd, nil, "", f)
	if err != nil {
		t.Fatal(err)
	}
	ct, sst := mcp.NewInMemoryTransports()
	ss, err := mo.MCP().Connect(context.Background(), sst, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	_, isErr, md := mcptest.Call(t, mcptest.Connect(t, context.Background(), ct), "check", map[string]any{"command": "ls"})
	if rs, _ := md["reasons"].([]any); isErr || md["action"] != "deny" || len(rs) != 1 || rs[0].(map[string]any)["code"] != "org-v1" {
		t.Fatalf("mcp check under bundle v1: %+v", md)
	}
	// The bundle's config is in force: its deny row denies the read.
	if err := os.WriteFile(filepath.Join(cwd, "org-secret.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := decideWith(t, f, "cat org-secret.txt", cwd); d.Action != policy.Deny || !cmp.Equal(codes(d), []string{"read-denied"}) {
		t.Fatalf("bundle deny row: %s %v", d.Action, codes(d))
	}
	// A project config only tightens the bundle: its deny row applies, its
	// grant does not.
	proj := t.TempDir()
	if err := os.WriteFile(filepath.Join(proj, ".shellgate.yaml"), []byte("grants:\n  - make deploy\ndeny_reads:\n  - '**/proj-secret.txt'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, "proj-secret.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := decideWith(t, f, "cat proj-secret.txt", proj); d.Action != policy.Deny || !cmp.Equal(codes(d), []string{"read-denied"}) {
		t.Errorf("project deny row under a bundle: %s %v", d.Action, codes(d))
	}
	if d := decideWith(t, f, "make deploy", proj); d.Action == policy.Allow {
		t.Errorf("a project grant widened the bundle: make deploy allowed")
	}
	if d := decideWith(t, f, "make deploy", cwd); d.Action == policy.Allow {
		t.Errorf("make deploy allowed outside the project")
	}
	// A command with a secret in an assignment, for the decision log.
	decideWith(t, f, "TOKEN=abc123 ls", cwd)

	// Rotated: the next decision after the poll uses v2.
	bundleCLI(t, served, priv, "v2", policyDir(t, work, "org-v2"))
	waitFor(t, "bundle v2", func() bool { return f.Revision() == "shellgate@v2" })
	if d := decideWith(t, f, "ls", cwd); !cmp.Equal(codes(d), []string{"org-v2"}) {
		t.Fatalf("v2: %s %v", d.Action, codes(d))
	}

	// shellgate run decides with the bundle too.
	if out, code := runCLI(t, "run", "--opa-config", cfg, "--cwd", cwd, "--json", "ls"); code != 125 || !strings.Contains(out, `"org-v2"`) {
		t.Errorf("run ls under bundle v2: exit %d\n%s", code, out)
	}
	if out, code := runCLI(t, "run", "--opa-config", cfg, "--cwd", cwd, "echo", "hi"); code != 0 || !strings.Contains(out, "hi") {
		t.Errorf("run echo hi under bundle v2: exit %d\n%s", code, out)
	}

	// The one-shot hook (the thin client's fallback) follows
	// $SHELLGATE_OPA_CONFIG.
	t.Setenv(OPAConfigEnv, cfg)
	payload := `{"session_id":"s","transcript_path":"/t.jsonl","cwd":"` + cwd + `","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"toolu_1"}`
	var hout, herr bytes.Buffer
	run([]string{"hook", "claude"}, strings.NewReader(payload), &hout, &herr)
	if !strings.Contains(hout.String(), "deny") || !strings.Contains(hout.String(), "org-v2") {
		t.Errorf("hook claude with %s: %s%s", OPAConfigEnv, hout.String(), herr.String())
	}
	t.Setenv(OPAConfigEnv, "")

	// Tampered: signed with another key. Refused; v2 keeps deciding.
	bundleCLI(t, served, wrong, "v3-tampered", policyDir(t, work, "org-v3"))
	waitFor(t, "the tampered bundle to be seen and refused", func() bool {
		return len(f.Agent().Status().Bundles) > 0
	})
	if got := f.Revision(); got != "shellgate@v2" {
		t.Fatalf("after a tampered bundle, revision = %q, want shellgate@v2", got)
	}
	if d := decideWith(t, f, "ls", cwd); !cmp.Equal(codes(d), []string{"org-v2"}) {
		t.Fatalf("after a tampered bundle: %s %v", d.Action, codes(d))
	}
	st := fmt.Sprint(f.Agent().Status().Bundles)
	if !strings.Contains(st, "verif") && !strings.Contains(st, "signature") {
		t.Errorf("status does not say the signature failed: %s", st)
	}

	// Signed, but its config does not load: OPA activates it, shellgate
	// refuses it, and v2 keeps deciding.
	bad, err := fleet.Build(fleet.BundleOptions{Dirs: []string{policyDir(t, work, "org-v4")}, Revision: "v4-bad-config"})
	if err != nil {
		t.Fatal(err)
	}
	bad.Data[fleet.DataRoot] = map[string]any{"config": "mode: sometimes\n"}
	if err := bad.GenerateSignature(bundle.NewSigningConfig(priv, "RS256", ""), "shellgate", true); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := bundle.NewWriter(&buf).UseModulePath(true).DisableFormat(true).Write(*bad); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(served, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	touchPublished(t, served)
	waitFor(t, "the bad-config bundle to be refused", func() bool { return f.Agent().Status().Refused != "" })
	if st := f.Agent().Status(); !strings.Contains(st.Refused, "v4-bad-config") || !strings.Contains(st.Refused, "sometimes") || f.Revision() != "shellgate@v2" {
		t.Fatalf("bad-config bundle: revision %q, status %+v", f.Revision(), st)
	}
	if d := decideWith(t, f, "ls", cwd); !cmp.Equal(codes(d), []string{"org-v2"}) {
		t.Fatalf("after a bad-config bundle: %s %v", d.Action, codes(d))
	}
	f.Stop()

	// The decision logs reached the collector, masked.
	waitFor(t, "decision logs", func() bool {
		col.mu.Lock()
		defer col.mu.Unlock()
		return len(col.events) >= 5
	})
	col.mu.Lock()
	var sawToken bool
	for _, b := range col.raw {
		if bytes.Contains(b, []byte("abc123")) {
			t.Errorf("an uploaded batch shows the secret abc123: %s", b)
		}
	}
	for _, ev := range col.events {
		in, _ := ev["input"].(map[string]any)
		res, _ := ev["result"].(map[string]any)
		if in == nil || res == nil {
			t.Errorf("event without input or result: %v", ev)
			continue
		}
		if _, ok := in["secrets"]; ok {
			t.Errorf("the secrets list was uploaded: %v", in)
		}
		if in["command"] == "TOKEN=*** ls" {
			sawToken = true
		}
		if res["revision"] == "" || res["action"] == "" {
			t.Errorf("event without revision or action: %v", ev)
		}
		if bs, _ := ev["bundles"].(map[string]any); bs["shellgate"] == nil {
			t.Errorf("event without the bundle revision: %v", ev)
		}
	}
	col.mu.Unlock()
	if !sawToken {
		t.Errorf("no uploaded record of TOKEN=*** ls")
	}

	// The server down at start: the persisted bundle (v2) decides.
	srv.stop()
	f2, err := startFleet(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d := decideWith(t, f2, "ls", cwd); !cmp.Equal(codes(d), []string{"org-v2"}) {
		t.Fatalf("offline with a persisted bundle: %s %v", d.Action, codes(d))
	}
	f2.Agent().StopQuiet(context.Background())

	// Neither a server nor a persisted bundle: deny, saying why.
	fleetWait = 300 * time.Millisecond
	cfg3 := opaConfig(t, t.TempDir(), srv.url, col.url, pub, filepath.Join(t.TempDir(), "empty"))
	f3, err := startFleet(cfg3)
	if err != nil {
		t.Fatal(err)
	}
	d = decideWith(t, f3, "ls", cwd)
	f3.Agent().StopQuiet(context.Background())
	if out, code := runCLI(t, "run", "--opa-config", cfg3, "--cwd", cwd, "--json", "true"); code != 125 || !strings.Contains(out, fleet.PolicyBundleUnavailable) {
		t.Errorf("run with no bundle: exit %d\n%s", code, out)
	}
	if d.Action != policy.Deny || !cmp.Equal(codes(d), []string{fleet.PolicyBundleUnavailable}) || !strings.Contains(d.Reasons[0].Message, "no policy bundle has been loaded") {
		t.Fatalf("no bundle: %s %+v", d.Action, d.Reasons)
	}
}

func runCLI(t testing.TB, args ...string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errb)
	return out.String() + errb.String(), code
}

func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for start := time.Now(); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Since(start) > time.Minute { // an event waited for: only a failure takes this long
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestPolicyBundleInspect reads what shellgate policy bundle wrote with
// OPA's own bundle reader (what opa inspect does), verifying the signature.
func TestPolicyBundleInspect(t *testing.T) {
	work := t.TempDir()
	priv, pub := rsaKeys(t, work, "org")
	out := filepath.Join(work, "b.tar.gz")
	bundleCLI(t, out, priv, "r1", policyDir(t, work, "org-r1"))
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	vc := bundle.NewVerificationConfig(map[string]*bundle.KeyConfig{"shellgate": {Key: pub, Algorithm: "RS256"}}, "shellgate", "", nil)
	b, err := bundle.NewReader(f).WithBundleVerificationConfig(vc).Read()
	if err != nil {
		t.Fatal(err)
	}
	if b.Manifest.Revision != "r1" || b.Manifest.Roots == nil || !cmp.Equal(*b.Manifest.Roots, fleet.Roots) {
		t.Errorf("manifest = %+v", b.Manifest)
	}
	var paths []string
	for _, m := range b.Modules {
		paths = append(paths, m.Path)
	}
	want := []string{"/default/engine.rego", "/default/shellgate.rego", "/policy/org-org-r1/org.rego", "/system/log/mask.rego"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("modules (-want +got):\n%s", diff)
	}
	data, _ := b.Data[fleet.DataRoot].(map[string]any)
	if data["config"] != "deny_reads:\n  - '**/org-secret.txt'\n" {
		t.Errorf("data.%s = %v", fleet.DataRoot, b.Data)
	}
	if len(b.Signatures.Signatures) != 1 {
		t.Errorf("signatures = %v", b.Signatures)
	}
}
