//go:build linux

package sandboxes

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The workspace and the 16 tasks are gate's (gate/sandbox_tasks_linux_test.go,
// TestSandboxEverydayTasks), copied so that this harness does not depend on
// gate's test files while its sandbox moves; keep them in step.

// taskWorkspace lays out a workspace with a Go module (one dependency
// from the user's module cache), a Python package, a Rust crate with no
// dependencies, an npm package with a local file dependency and a git
// repository around them, as a developer's checkout looks.
func taskWorkspace(t *testing.T, ws string) string {
	t.Helper()
	files := map[string]string{
		"go/go.mod":              "module example.com/app\n\ngo 1.22\n\nrequire github.com/google/go-cmp v0.7.0\n",
		"go/main.go":             "package main\n\nimport (\n\t\"fmt\"\n\n\t\"github.com/google/go-cmp/cmp\"\n)\n\nfunc main() { fmt.Println(\"diff:\", cmp.Diff(1, 1) == \"\") }\n",
		"go/main_test.go":        "package main\n\nimport \"testing\"\n\nfunc TestOne(t *testing.T) {}\n",
		"py/app/__init__.py":     "",
		"py/app/core.py":         "def add(a, b):\n    return a + b\n",
		"py/test_core.py":        "import unittest\nfrom app.core import add\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n\nif __name__ == '__main__':\n    unittest.main()\n",
		"rs/Cargo.toml":          "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
		"rs/rust-toolchain.toml": "[toolchain]\nchannel = \"stable\"\n",
		"rs/src/main.rs":         "fn add(a: i32, b: i32) -> i32 { a + b }\nfn main() { println!(\"{}\", add(1, 2)); }\n#[cfg(test)]\nmod tests { #[test] fn t() { assert_eq!(super::add(1, 2), 3); } }\n",
		"js/package.json":        "{\"name\":\"app\",\"version\":\"1.0.0\",\"private\":true,\"scripts\":{\"test\":\"node test.js\"},\"dependencies\":{\"lib\":\"file:../jslib\"}}\n",
		"js/test.js":             "const lib = require('lib');\nif (lib.add(1, 2) !== 3) process.exit(1);\nconsole.log('ok');\n",
		"jslib/package.json":     "{\"name\":\"lib\",\"version\":\"1.0.0\",\"main\":\"index.js\"}\n",
		"jslib/index.js":         "exports.add = (a, b) => a + b;\n",
		"README.md":              "tasks\n",
		".gitignore":             "go/app\nrs/target/\njs/node_modules/\n__pycache__/\n.venv/\n",
	}
	for name, body := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// go.sum from the module cache, outside the sandbox (no network).
	if gobin, err := exec.LookPath("go"); err == nil {
		cmd := exec.Command(gobin, "mod", "tidy")
		cmd.Dir = filepath.Join(ws, "go")
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOSUMDB=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("go mod tidy (the Go rows will fail): %v\n%s", err, out)
		}
	}
	if git, err := exec.LookPath("git"); err == nil {
		for _, args := range [][]string{
			{"init", "-q", "-b", "main"},
			{"add", "-A"},
			{"-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "first"},
		} {
			cmd := exec.Command(git, args...)
			cmd.Dir = ws
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
	}
	return ws
}

// everydayTask is one row of the everyday tasks a sandbox developers keep
// on must let through (issue 26).
type everydayTask struct {
	name string
	// needs are the programs the row drives (looked up on PATH; a path
	// beginning with ~/ is under the real home).
	needs []string
	cmd   string
}

var everydayTasks = []everydayTask{
	{"go build", []string{"go"}, "cd go && go build ./..."},
	{"go build -o (a new file in the workspace)", []string{"go"}, "cd go && go build -o app . && ./app"},
	{"go test", []string{"go"}, "cd go && go test -count=1 ./..."},
	{"go vet", []string{"go"}, "cd go && go vet ./..."},
	{"go run", []string{"go"}, "cd go && go run ."},
	{"gofmt -l", []string{"gofmt"}, "cd go && test -z \"$(gofmt -l .)\""},
	{"python3 through the pyenv shim", []string{"~/.pyenv/shims/python3"}, "~/.pyenv/shims/python3 -c 'import sys; print(sys.version)'"},
	{"python3 -m unittest", []string{"~/.pyenv/shims/python3"}, "cd py && ~/.pyenv/shims/python3 -m unittest -q test_core"},
	{"python3 -m pip list", []string{"~/.pyenv/shims/python3"}, "~/.pyenv/shims/python3 -m pip list --disable-pip-version-check >/dev/null"},
	{"python3 -m venv (base interpreter)", []string{"~/.pyenv/shims/python3"}, "cd py && ~/.pyenv/shims/python3 -m venv --without-pip .venv && .venv/bin/python -c 'import sys; print(sys.prefix)'"},
	{"cargo build --offline", []string{"cargo"}, "cd rs && cargo build --offline -q"},
	{"cargo test --offline", []string{"cargo"}, "cd rs && cargo test --offline -q"},
	{"node", []string{"node"}, "node -e 'console.log(1+1)'"},
	{"npm install --offline (a file: dependency)", []string{"npm"}, "cd js && npm install --offline --no-audit --no-fund"},
	{"npm test", []string{"npm"}, "cd js && npm install --offline --no-audit --no-fund >/dev/null && npm test"},
	{"git commit", []string{"git"}, "echo more >> README.md && git add README.md && git -c user.name=T -c user.email=t@example.com commit -q -m second && git log --oneline | wc -l"},
}

// taskResult is the tasks' table and what the overhead measurement needs.
type taskResult struct {
	rows []row
	// ws is each sandbox's task workspace, after its tasks ran.
	ws []string
	// worked[i][j]: task i worked in sandbox j.
	worked [][]bool
}

// compareTasks runs the 16 tasks in each sandbox, in a task workspace of
// its own, with the toolchains in the real home (the environment is the
// test's own).
func compareTasks(t *testing.T, all []sandbox, base string) taskResult {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	var tr taskResult
	for _, sb := range all {
		tr.ws = append(tr.ws, taskWorkspace(t, filepath.Join(base, "tasks-"+sb.name)))
	}
	for _, tc := range everydayTasks {
		r := row{name: tc.name}
		missing := ""
		for _, n := range tc.needs {
			p := n
			if rel, ok := strings.CutPrefix(n, "~/"); ok {
				p = filepath.Join(home, rel)
			}
			if _, err := exec.LookPath(p); err != nil {
				missing = n + " is not installed"
			}
		}
		var worked []bool
		for j, sb := range all {
			var v verdict
			if missing != "" {
				v = verdict{"not run", missing}
			} else {
				o := run(sb, tr.ws[j], os.Environ(), tc.cmd, 6*time.Minute)
				v = taskVerdict(o, map[string]string{tr.ws[j]: "$WS", home: "~"})
				t.Logf("task %q in %s: %s\n%s", tc.name, sb.name, v, o.out)
			}
			r.cells = append(r.cells, v)
			worked = append(worked, v.kind == "worked")
		}
		tr.rows = append(tr.rows, r)
		tr.worked = append(tr.worked, worked)
	}
	return tr
}
