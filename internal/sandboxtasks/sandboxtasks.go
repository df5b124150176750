// Package sandboxtasks holds the everyday tasks a sandbox developers keep on
// must let through (issue 26) and the workspace they run in, so that gate's
// TestSandboxEverydayTasks and e2e/sandboxes' comparison with other
// sandboxes run the same ones. It is test support: Workspace takes a
// testing.TB.
package sandboxtasks

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Task is one everyday task.
type Task struct {
	// Name names the row.
	Name string
	// Needs are the programs the row drives (looked up on PATH; a path
	// beginning with ~/ is under the real home).
	Needs []string
	// Cmd is the command, run in the workspace.
	Cmd string
}

// Tasks are the 16 everyday tasks: Go (build, test, vet, run with a
// dependency from the module cache), a pyenv python, rustup and cargo,
// node and npm with a file: dependency, and a git commit.
var Tasks = []Task{
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

// Workspace lays out, in the directory ws, a workspace with a Go module
// (one dependency from the user's module cache), a Python package, a Rust
// crate with no dependencies, an npm package with a local file dependency
// and a git repository around them, as a developer's checkout looks; the
// Go module's go.sum comes from the module cache, outside any sandbox (no
// network).
func Workspace(tb testing.TB, ws string) {
	tb.Helper()
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
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	if gobin, err := exec.LookPath("go"); err == nil {
		cmd := exec.Command(gobin, "mod", "tidy")
		cmd.Dir = filepath.Join(ws, "go")
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOSUMDB=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Logf("go mod tidy (the Go rows will fail): %v\n%s", err, out)
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
				tb.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
	}
}
