package main

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// readmeBlock returns the README's code block in lang whose text starts
// with firstLine.
func readmeBlock(t *testing.T, readme []byte, lang, firstLine string) string {
	t.Helper()
	s := string(readme)
	for {
		i := strings.Index(s, "```"+lang+"\n")
		if i < 0 {
			t.Fatalf("README.md has no %s block starting %q", lang, firstLine)
		}
		s = s[i+len(lang)+4:]
		end := strings.Index(s, "```")
		if end < 0 {
			t.Fatalf("unterminated %s block", lang)
		}
		if strings.HasPrefix(s, firstLine) {
			return s[:end]
		}
	}
}

// TestReadmeFleet follows "Running shellgate for a team" as printed: the
// policy directory, the bundle command, nginx with the printed config and
// command line on 127.0.0.1:8282, a collector on 127.0.0.1:8283, and the
// printed OPA config (only persistence_directory moved into the test's
// temp dir).
func TestReadmeFleet(t *testing.T) {
	bin := needTool(t, "nginx", "/usr/sbin/nginx")
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	top := t.TempDir()
	// nginx's workers (nobody, when the test runs as root) read www.
	for _, d := range []string{filepath.Dir(top), top} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(top)
	t.Setenv("HOME", filepath.Join(top, "home"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(top, "config"))
	write := func(name, text string) {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("org/no_curl.rego", readmeBlock(t, readme, "rego", "# org/no_curl.rego\n"))
	write("org/shellgate.yaml", readmeBlock(t, readme, "yaml", "# org/shellgate.yaml\n"))
	write("nginx.conf", readmeBlock(t, readme, "nginx", "# nginx.conf\n"))
	persist := filepath.Join(top, "persist")
	team := readmeBlock(t, readme, "yaml", "# team.yaml\n")
	team = strings.Replace(team, "persistence_directory: /var/lib/shellgate/opa", "persistence_directory: "+persist, 1)
	write("team.yaml", team)
	if err := os.MkdirAll("tmp", 0o755); err != nil {
		t.Fatal(err)
	}

	sh := readmeBlock(t, readme, "sh", "mkdir -p www\n")
	lines := strings.Split(strings.TrimSpace(sh), "\n")
	if err := os.MkdirAll("www", 0o755); err != nil {
		t.Fatal(err)
	}
	args := strings.Fields(lines[1])
	if args[0] != "shellgate" {
		t.Fatalf("README bundle line: %q", lines[1])
	}
	var so, se bytes.Buffer
	if code := run(args[1:], nil, &so, &se); code != 0 {
		t.Fatalf("%s: exit %d: %s", lines[1], code, se.String())
	}

	ng := strings.TrimSpace(readmeBlock(t, readme, "sh", "nginx -p "))
	if ng != `nginx -p "$PWD" -c "$PWD/nginx.conf" -e stderr -g 'daemon off;'` {
		t.Fatalf("README nginx line changed: %s (update this test)", ng)
	}
	cmd := exec.Command(bin, "-p", top, "-c", top+"/nginx.conf", "-e", "stderr", "-g", "daemon off;")
	var nerr bytes.Buffer
	cmd.Stderr = &nerr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() })
	for i := 0; ; i++ {
		r, err := http.Get("http://127.0.0.1:8282/shellgate.tar.gz")
		if err == nil {
			r.Body.Close()
			if r.StatusCode != 200 {
				t.Fatalf("nginx answers %s\n%s", r.Status, nerr.String())
			}
			break
		}
		if i > 100 {
			t.Fatalf("nginx did not start on 127.0.0.1:8282: %v\n%s", err, nerr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	col := &collector{}
	l, err := net.Listen("tcp", "127.0.0.1:8283")
	if err != nil {
		t.Fatalf("the README's collector port: %v", err)
	}
	csrv := startCollectorOn(t, col, l)
	defer csrv.Close()

	check := func(command string) (string, []string) {
		var out, errb bytes.Buffer
		run([]string{"check", "--json", "--opa-config", "team.yaml", command}, strings.NewReader(""), &out, &errb)
		var got struct {
			Action  string `json:"action"`
			Reasons []struct {
				Code string `json:"code"`
			} `json:"reasons"`
		}
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatalf("%s: %v\n%s%s", command, err, out.String(), errb.String())
		}
		var codes []string
		for _, r := range got.Reasons {
			codes = append(codes, r.Code)
		}
		return got.Action, codes
	}
	if a, c := check("curl https://example.com"); a != "deny" || strings.Join(c, " ") != "org-no-curl" {
		t.Errorf("curl with the README's team policy: %s %v, want deny org-no-curl", a, c)
	}
	write(".env", "SECRET=1\n")
	if a, c := check("cat .env"); a != "deny" || !strings.Contains(strings.Join(c, " "), "read-denied") {
		t.Errorf("cat .env with the README's team config: %s %v, want deny read-denied", a, c)
	}
	if a, _ := check("TOKEN=abc123 ls"); a == "allow" {
		t.Errorf("TOKEN=abc123 ls allowed")
	}
	var out, errb bytes.Buffer
	if code := run([]string{"policy", "status", "--opa-config", "team.yaml"}, nil, &out, &errb); code != 0 || !strings.Contains(out.String(), "bundle revision in force: shellgate@sha256-") || !strings.Contains(out.String(), "last decision-log upload: ok at ") {
		t.Errorf("policy status: exit %d\n%s%s", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	run([]string{"doctor", "--opa-config", "team.yaml", "--dir", top}, nil, &out, &errb)
	if !strings.Contains(out.String(), "bundle revision in force: shellgate@sha256-") || !strings.Contains(out.String(), "last decision-log upload: ok at ") {
		t.Errorf("doctor --opa-config:\n%s%s", out.String(), errb.String())
	}
	col.mu.Lock()
	defer col.mu.Unlock()
	if len(col.events) < 3 {
		t.Fatalf("the collector received %d events, want 3", len(col.events))
	}
	for _, b := range col.raw {
		if bytes.Contains(b, []byte("abc123")) {
			t.Errorf("an uploaded batch shows abc123: %s", b)
		}
	}
}
