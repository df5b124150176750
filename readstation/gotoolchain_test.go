package readstation

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellgate/shellgate/classify"
)

// goSetup is a directory tree for the go toolchain oracle: files (an
// "envfile" name is the GOENV file), the cwd, and the variables set.
type goSetup struct {
	name  string
	files map[string]string
	cwd   string
	env   map[string]string // GOTOOLCHAIN, GOWORK, GOENV ("off", or "" for $T/envfile), GO111MODULE
}

var goSetups = []goSetup{
	{name: "go line newer, auto", files: map[string]string{"envfile": "GOTOOLCHAIN=auto\n", "m/go.mod": "module m\n\ngo 1.99\n"}, cwd: "m"},
	{name: "go line older, auto", files: map[string]string{"envfile": "GOTOOLCHAIN=auto\n", "m/go.mod": "module m\n\ngo 1.22\n"}, cwd: "m"},
	{name: "go line equal, auto", files: map[string]string{"envfile": "GOTOOLCHAIN=auto\n", "m/go.mod": "module m\n\ngo 1.26.8\n"}, cwd: "m"},
	{name: "go line rc newer, auto", files: map[string]string{"envfile": "GOTOOLCHAIN=auto\n", "m/go.mod": "module m\n\ngo 1.27rc1\n"}, cwd: "m"},
	{name: "go line invalid, auto", files: map[string]string{"envfile": "GOTOOLCHAIN=auto\n", "m/go.mod": "module m\n\ngo 1.99x\n"}, cwd: "m"},
	{name: "toolchain line, auto", files: map[string]string{"envfile": "GOTOOLCHAIN=auto\n", "m/go.mod": "module m\n\ngo 1.20\ntoolchain go1.99.1 // pinned\n"}, cwd: "m/sub"},
	{name: "toolchain with suffix", files: map[string]string{"envfile": "GOTOOLCHAIN=auto\n", "m/go.mod": "module m\n\ngo 1.20\ntoolchain go1.99.1-custom\n"}, cwd: "m"},
	{name: "toolchain default", files: map[string]string{"envfile": "GOTOOLCHAIN=auto\n", "m/go.mod": "module m\n\ngo 1.20\ntoolchain default\n"}, cwd: "m"},
	{name: "toolchain default, go newer", files: map[string]string{"envfile": "GOTOOLCHAIN=auto\n", "m/go.mod": "module m\n\ngo 1.99\ntoolchain default\n"}, cwd: "m"},
	{name: "toolchain older", files: map[string]string{"envfile": "GOTOOLCHAIN=auto\n", "m/go.mod": "module m\n\ngo 1.20\ntoolchain go1.21.0\n"}, cwd: "m"},
	{name: "local in the env file", files: map[string]string{"envfile": "GOTOOLCHAIN=local\n", "m/go.mod": "module m\n\ngo 1.99\n"}, cwd: "m"},
	{name: "local in the environment", files: map[string]string{"envfile": "GOTOOLCHAIN=auto\n", "m/go.mod": "module m\n\ngo 1.99\n"}, cwd: "m", env: map[string]string{"GOTOOLCHAIN": "local"}},
	{name: "auto in the environment", files: map[string]string{"envfile": "GOTOOLCHAIN=local\n", "m/go.mod": "module m\n\ngo 1.99\n"}, cwd: "m", env: map[string]string{"GOTOOLCHAIN": "auto"}},
	{name: "local+auto", files: map[string]string{"m/go.mod": "module m\n\ngo 1.99\n"}, cwd: "m", env: map[string]string{"GOTOOLCHAIN": "local+auto"}},
	{name: "min+auto older", files: map[string]string{"m/go.mod": "module m\n\ngo 1.99\n"}, cwd: "m", env: map[string]string{"GOTOOLCHAIN": "go1.20+auto"}},
	{name: "path mode", files: map[string]string{"envfile": "GOTOOLCHAIN=path\n", "m/go.mod": "module m\n\ngo 1.99\n"}, cwd: "m"},
	{name: "fixed newer in the env file", files: map[string]string{"envfile": "GOTOOLCHAIN=go1.99.0\n"}, cwd: "."},
	{name: "fixed older in the env file", files: map[string]string{"envfile": "# comment\nGOTOOLCHAIN=go1.20\n"}, cwd: "."},
	{name: "env file with CR", files: map[string]string{"envfile": "GOTOOLCHAIN=auto\r\n", "m/go.mod": "module m\n\ngo 1.99\n"}, cwd: "m"},
	{name: "later line wins", files: map[string]string{"envfile": "GOTOOLCHAIN=local\nGOTOOLCHAIN=auto\n", "m/go.mod": "module m\n\ngo 1.99\n"}, cwd: "m"},
	{name: "parent go.work", files: map[string]string{"envfile": "GOTOOLCHAIN=auto\n", "go.work": "go 1.99\n\nuse ./m\n", "m/go.mod": "module m\n\ngo 1.22\n"}, cwd: "m"},
	{name: "parent go.work, GOWORK=off", files: map[string]string{"envfile": "GOTOOLCHAIN=auto\n", "go.work": "go 1.99\n\nuse ./m\n", "m/go.mod": "module m\n\ngo 1.22\n"}, cwd: "m", env: map[string]string{"GOWORK": "off"}},
	{name: "GOWORK names a file", files: map[string]string{"envfile": "GOTOOLCHAIN=auto\n", "w/x.work": "go 1.99\n", "m/go.mod": "module m\n\ngo 1.22\n"}, cwd: "m", env: map[string]string{"GOWORK": "$T/w/x.work"}},
	{name: "GOWORK off in the env file", files: map[string]string{"envfile": "GOTOOLCHAIN=auto\nGOWORK=off\n", "go.work": "go 1.99\n", "m/go.mod": "module m\n\ngo 1.22\n"}, cwd: "m"},
	{name: "go.work older, go.mod newer", files: map[string]string{"envfile": "GOTOOLCHAIN=auto\n", "go.work": "go 1.22\n", "m/go.mod": "module m\n\ngo 1.99\n"}, cwd: "m"},
	{name: "GO111MODULE off", files: map[string]string{"envfile": "GOTOOLCHAIN=auto\nGO111MODULE=off\n", "m/go.mod": "module m\n\ngo 1.99\n"}, cwd: "m"},
	{name: "no go.mod", files: map[string]string{"envfile": "GOTOOLCHAIN=auto\n", "d/f": "x"}, cwd: "d"},
	{name: "GOENV off", files: map[string]string{"m/go.mod": "module m\n\ngo 1.99\n"}, cwd: "m", env: map[string]string{"GOENV": "off"}},
	{name: "indented go line", files: map[string]string{"envfile": "GOTOOLCHAIN=auto\n", "m/go.mod": "module m\n\n\tgo 1.99\n"}, cwd: "m"},
	{name: "go line in a comment", files: map[string]string{"envfile": "GOTOOLCHAIN=auto\n", "m/go.mod": "module m\n// go 1.99\ngo 1.22\n"}, cwd: "m"},
}

// goOracleEnv returns the variables for a setup, as shellgate is told
// them and as the real go command runs with them.
func goOracleEnv(t *testing.T, dir string, s goSetup, goBin string) EnvMap {
	t.Helper()
	env := EnvMap{"PATH": filepath.Dir(goBin), "GOENV": filepath.Join(dir, "envfile"), "XDG_CONFIG_HOME": "", "GOROOT": "",
		"GOTOOLCHAIN": "", "GO111MODULE": "", "GOWORK": "", "TMPDIR": "", "GOPROXY": "off", "GOFLAGS": "",
		"GOMODCACHE": filepath.Join(dir, "modcache"), "GOPATH": ""}
	for k, v := range s.env {
		env[k] = strings.ReplaceAll(v, "$T", dir)
	}
	return env
}

// TestGoToolchainOracle holds the station's reading of Go's toolchain
// choice to the real go command's: for each setup of go.mod, go.work and
// go env files, go version runs with GOPROXY=off (a switch fails with
// "downloading go1.x" or "cannot find ... in PATH"); the station must find
// a hidden input exactly when go switches. go env GOTOOLCHAIN must print
// what the station reads.
func TestGoToolchainOracle(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	goBin = evalOr(goBin)
	for _, s := range goSetups {
		t.Run(s.name, func(t *testing.T) {
			dir := t.TempDir()
			if r, err := filepath.EvalSymlinks(dir); err == nil {
				dir = r
			}
			writeTree(t, dir, s.files)
			cwd := filepath.Join(dir, s.cwd)
			must(t, os.MkdirAll(cwd, 0o755))
			// Telemetry off: go would otherwise write below home while
			// the test removes it.
			writeTree(t, dir, map[string]string{"home/.config/go/telemetry/mode": "off"})
			env := goOracleEnv(t, dir, s, goBin)

			run := func(args ...string) string {
				cmd := exec.Command(goBin, args...)
				cmd.Dir = cwd
				cmd.Env = []string{"HOME=" + filepath.Join(dir, "home")}
				for k, v := range env {
					if v != "" {
						cmd.Env = append(cmd.Env, k+"="+v)
					}
				}
				out, _ := cmd.CombinedOutput()
				return string(out)
			}
			out := run("version")
			switched := strings.Contains(out, "downloading go1") || strings.Contains(out, "in PATH")
			if !switched && !strings.HasPrefix(out, "go version ") && !strings.Contains(out, "go.mod") && !strings.Contains(out, "GOTOOLCHAIN") {
				t.Logf("go version: %s", out)
			}
			st := judge(t, "go version", Boundary{Roots: []string{dir}, Cwd: cwd, Home: filepath.Join(dir, "home"), DenyRows: DefaultDenyRows, Env: env})
			got := hiddenGot(st, dir)
			if asks := len(got) > 0; asks != switched {
				t.Errorf("go version: go switched=%v, station found %q\ngo said: %s", switched, got, out)
			}
			// go env GOTOOLCHAIN against the station's reading of the env files.
			if !strings.Contains(s.files["envfile"], "\r") {
				h, j := testHiddenRun(dir, cwd, env)
				g := loadGoEnv(h)
				v, _, _ := g.get("GOTOOLCHAIN")
				if want := strings.TrimSpace(run("env", "GOTOOLCHAIN")); v != want || len(j.extra) > 0 {
					t.Errorf("GOTOOLCHAIN: station read %q (not established: %v), go env says %q", v, j.extra, want)
				}
			}
		})
	}
}

// testHiddenRun is a hiddenRun for a go segment in cwd, outside Judge.
func testHiddenRun(dir, cwd string, env EnvMap) (*hiddenRun, *judger) {
	b := Boundary{Roots: []string{dir}, Cwd: cwd, Home: filepath.Join(dir, "home"), DenyRows: DefaultDenyRows, Env: env}
	r := classify.Classify("go version")
	j := &judger{r: r, b: b, adm: &Admission{b: b}, fs: &fsCache{}}
	return &hiddenRun{j: j, s: &r.Segments[0], who: "go version", cwd: cwd}, j
}

// TestGoToolchain: what the station says about a Go toolchain switch, in
// words, and what it cannot establish.
func TestGoToolchain(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	goBin = evalOr(goBin)
	local := localGoToolchain(goBin)
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	writeTree(t, dir, map[string]string{
		"envfile":          "GOTOOLCHAIN=auto\n",
		"ccenv":            "CC=/tmp/evil-cc\n",
		"m/go.mod":         "module m\n\ngo 1.99\n",
		"plain/go.mod":     "module plain\n\ngo 1.22\n",
		"t/go.mod":         "module t\n\ngo 1.22\ntoolchain go1.99.1\n",
		"pathbin/go1.99.0": "#!/bin/sh\n",
	})
	must(t, os.Chmod(filepath.Join(dir, "pathbin/go1.99.0"), 0o755))
	tests := []struct {
		cmd, cwd string
		env      EnvMap
		want     []string
	}{
		{cmd: "go version", cwd: "m", want: []string{`go $T/m/go.mod: says "go 1.99", newer than the local ` + local + ` => download and run the Go toolchain go1.99.0 (GOTOOLCHAIN=auto, from $T/envfile)`}},
		{cmd: "go env", cwd: "t", want: []string{`toolchain $T/t/go.mod: says "toolchain go1.99.1", newer than the local ` + local + ` => download and run the Go toolchain go1.99.1 (GOTOOLCHAIN=auto, from $T/envfile)`}},
		{cmd: "go list ./...", cwd: "plain", want: []string{}},
		{cmd: "go version && go env && go help", cwd: "plain", want: []string{}},
		{cmd: "go env GOTOOLCHAIN", cwd: "m", want: []string{}},
		{cmd: "go doc fmt", cwd: "m", env: EnvMap{"GOTOOLCHAIN": "local"}, want: []string{}},
		{cmd: "go version", cwd: "m", env: EnvMap{"GOTOOLCHAIN": "path", "PATH": filepath.Dir(goBin) + ":$T/pathbin"}, want: []string{`go $T/m/go.mod: says "go 1.99", newer than the local ` + local + ` => run the program go1.99.0 from PATH as its toolchain (GOTOOLCHAIN=path, from the environment)`}},
		{cmd: "go version", cwd: "m", env: EnvMap{"PATH": filepath.Dir(goBin) + ":$T/pathbin"}, want: []string{`go $T/m/go.mod: says "go 1.99", newer than the local ` + local + ` => run $T/pathbin/go1.99.0 from PATH as its toolchain (GOTOOLCHAIN=auto, from $T/envfile)`}},
		{cmd: "go list", cwd: "plain", env: EnvMap{"GOENV": "$T/ccenv", "GOTOOLCHAIN": "local"}, want: []string{`a program to run $T/ccenv: sets a program to run ("CC=/tmp/evil-cc") => run the program it names (go list runs the C compiler and pkg-config for cgo packages, GOAUTH's command to download, GOROOT's tools)`}},
		{cmd: "go version", cwd: "m", env: EnvMap{"GOTOOLCHAIN": "?"}, want: []string{"not-established: go version: GOTOOLCHAIN is not known, so whether go downloads and runs another toolchain cannot be established"}},
		{cmd: "go version", cwd: "m", env: EnvMap{"PATH": "?"}, want: []string{"not-established: go version: PATH is not known, so the Go toolchain it runs and what it downloads cannot be established"}},
		{cmd: "go version", cwd: "m", env: EnvMap{"PATH": "$T/pathbin"}, want: []string{}}, // no go: the command fails
	}
	for _, tc := range tests {
		t.Run(tc.cwd+" "+tc.cmd, func(t *testing.T) {
			env := EnvMap{"PATH": filepath.Dir(goBin), "GOENV": filepath.Join(dir, "envfile"), "XDG_CONFIG_HOME": "", "GOROOT": "",
				"GOTOOLCHAIN": "", "GO111MODULE": "", "GOWORK": "", "TMPDIR": "", "GOPROXY": "off", "GOFLAGS": "", "GOMODCACHE": "", "GOPATH": "", "BASH_ENV": ""}
			judgeHidden(t, dir, tc.cwd, tc.cmd, env, tc.env, tc.want)
		})
	}
}
