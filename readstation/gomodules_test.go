package readstation

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestGoModulesOracle holds the go-modules check to the real go command:
// in a module that requires golang.org/x/sync (taken from this machine's
// module cache), go list -m all, go doc, go list -deps and go list ./...
// run against a GOPROXY on 127.0.0.1 that counts requests. When go asks
// the proxy, the station must have found the download; with the module
// in the cache, go asks nothing and the station finds nothing.
func TestGoModulesOracle(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	goBin = evalOr(goBin)
	real := strings.TrimSpace(mustOutput(t, goBin, "env", "GOMODCACHE"))
	src := filepath.Join(real, "cache", "download", "golang.org", "x", "sync", "@v")
	if _, err := os.Stat(filepath.Join(src, "v0.24.0.zip")); err != nil {
		t.Skip("golang.org/x/sync v0.24.0 is not in this machine's module cache")
	}
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	gomod := "module m\n\ngo 1.26\n\nrequire golang.org/x/sync v0.24.0\n"
	gosum := "golang.org/x/sync v0.24.0 h1:iqiDrGoDgyuvAKrhLQthUEzU/R378N78gXbBjxed7oA=\ngolang.org/x/sync v0.24.0/go.mod h1:sUUOizhqBxiL6pEWpqNLUiaJn1ShEbZ6BBqskPbjZm0=\n"
	setups := []struct {
		name  string
		cache []string // files of x/sync's download cache entry copied in
		env   map[string]string
		src   string
	}{
		{name: "empty cache"},
		{name: "go.mod only in the cache", cache: []string{"v0.24.0.mod"}},
		{name: "full cache", cache: []string{"v0.24.0.mod", "v0.24.0.zip", "v0.24.0.ziphash", "v0.24.0.info"}},
		{name: "GOPROXY off", env: map[string]string{"GOPROXY": "off"}},
		{name: "-mod=mod, an import no module provides", cache: []string{"v0.24.0.mod", "v0.24.0.zip", "v0.24.0.ziphash", "v0.24.0.info"},
			env: map[string]string{"GOFLAGS": "-mod=mod"}, src: "package m\n\nimport _ \"example.com/missing/pkg\"\n"},
	}
	for _, s := range setups {
		for _, args := range [][]string{{"list", "-m", "all"}, {"doc"}, {"list", "-deps", "./..."}, {"list", "./..."}} {
			t.Run(s.name+" go "+strings.Join(args, " "), func(t *testing.T) {
				dir := t.TempDir()
				if r, err := filepath.EvalSymlinks(dir); err == nil {
					dir = r
				}
				body := cmpOr(s.src, "package m\n\nimport _ \"golang.org/x/sync/errgroup\"\n")
				writeTree(t, dir, map[string]string{"m/go.mod": gomod, "m/go.sum": gosum, "m/a.go": body,
					"home/.config/go/telemetry/mode": "off"})
				cache := filepath.Join(dir, "modcache")
				dst := filepath.Join(cache, "cache", "download", "golang.org", "x", "sync", "@v")
				for _, f := range s.cache {
					data, err := os.ReadFile(filepath.Join(src, f))
					must(t, err)
					writeTree(t, dst, map[string]string{f: string(data)})
				}
				env := EnvMap{"PATH": filepath.Dir(goBin), "GOENV": "off", "XDG_CONFIG_HOME": "", "GOROOT": "", "GOTOOLCHAIN": "local",
					"GO111MODULE": "", "GOWORK": "", "TMPDIR": "", "GOPROXY": srv.URL, "GOFLAGS": "", "GOMODCACHE": cache, "GOPATH": ""}
				for k, v := range s.env {
					env[k] = v
				}
				cmd := exec.Command(goBin, args...)
				cmd.Dir = filepath.Join(dir, "m")
				cmd.Env = []string{"HOME=" + filepath.Join(dir, "home"), "GOSUMDB=off", "GOFLAGS=-modcacherw " + env["GOFLAGS"]}
				for k, v := range env {
					if v != "" && k != "GOFLAGS" {
						cmd.Env = append(cmd.Env, k+"="+v)
					}
				}
				before := hits.Load()
				out, _ := cmd.CombinedOutput()
				asked := hits.Load() > before
				st := judge(t, "go "+strings.Join(args, " "), Boundary{Roots: []string{dir}, Cwd: filepath.Join(dir, "m"), Home: filepath.Join(dir, "home"), DenyRows: DefaultDenyRows, Env: env})
				got := hiddenGot(st, dir)
				if asked && len(got) == 0 {
					t.Errorf("go asked the proxy, the station found nothing\ngo said: %s", out)
				}
				if !asked && s.name == "full cache" && len(got) > 0 {
					t.Errorf("go asked nothing, the station found %q", got)
				}
				t.Logf("go asked the proxy: %v; station: %q", asked, got)
			})
		}
	}
}

// mustOutput runs a program and returns its output.
func mustOutput(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	must(t, err)
	return string(out)
}

// TestGoModules: what the station says about module downloads.
func TestGoModules(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	goBin = evalOr(goBin)
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	writeTree(t, dir, map[string]string{
		"m/go.mod":    "module m\n\ngo 1.22\n\nrequire (\n\tgolang.org/x/sync v0.24.0 // indirect\n\t\"example.com/Upper\" v1.0.0\n)\n",
		"old/go.mod":  "module old\n\ngo 1.16\n\nrequire golang.org/x/sync v0.24.0\n",
		"rep/go.mod":  "module rep\n\ngo 1.22\n\nrequire example.com/x v1.0.0\n\nreplace example.com/x => ../local\n",
		"none/go.mod": "module none\n\ngo 1.22\n",
		"cache/cache/download/golang.org/x/sync/@v/v0.24.0.mod": "module golang.org/x/sync\n",
		"cache/cache/download/golang.org/x/sync/@v/v0.24.0.zip": "",
		"cache/cache/download/example.com/!upper/@v/v1.0.0.mod": "module example.com/Upper\n",
		"cache/example.com/!upper@v1.0.0/go.mod":                "module example.com/Upper\n",
	})
	tests := []struct {
		cmd, cwd string
		env      EnvMap
		want     []string
	}{
		{cmd: "go list -m all", cwd: "m", want: []string{}},
		{cmd: "go doc", cwd: "m", env: EnvMap{"GOMODCACHE": "$T/empty"}, want: []string{"require $T/m/go.mod: requires golang.org/x/sync v0.24.0, which is not in the module cache $T/empty => download it (GOPROXY=https://proxy.golang.org)"}},
		{cmd: "go version", cwd: "m", env: EnvMap{"GOMODCACHE": "$T/empty"}, want: []string{}},
		{cmd: "go list -m all", cwd: "m", env: EnvMap{"GOMODCACHE": "$T/empty", "GOPROXY": "off"}, want: []string{}},
		{cmd: "go list", cwd: "rep", want: []string{}},
		{cmd: "go list", cwd: "none", env: EnvMap{"GOFLAGS": "-mod=mod"}, want: []string{"GOFLAGS $GOFLAGS: sets GOFLAGS=-mod=mod, which lets go look up the module of an import go.mod does not provide => download modules (GOPROXY=https://proxy.golang.org)"}},
		{cmd: "go list", cwd: "old", want: []string{"not-established: go list: $T/old/go.mod says go 1.16, before 1.17, so go loads the whole module graph beyond its require lines, and what go list downloads cannot be established"}},
		{cmd: "go list", cwd: "m", env: EnvMap{"GOMODCACHE": "", "GOPATH": "$T/gp"}, want: []string{"require $T/m/go.mod: requires golang.org/x/sync v0.24.0, which is not in the module cache $T/gp/pkg/mod => download it (GOPROXY=https://proxy.golang.org)"}},
		{cmd: "go list", cwd: "m", env: EnvMap{"GOPROXY": "?"}, want: []string{"not-established: go list: GOPROXY is not known, so whether it downloads modules cannot be established"}},
	}
	for _, tc := range tests {
		t.Run(tc.cwd+" "+tc.cmd, func(t *testing.T) {
			env := EnvMap{"PATH": filepath.Dir(goBin), "GOENV": "off", "XDG_CONFIG_HOME": "", "GOROOT": "", "GOTOOLCHAIN": "local",
				"GO111MODULE": "", "GOWORK": "", "TMPDIR": "", "GOPROXY": "https://proxy.golang.org", "GOFLAGS": "", "GOMODCACHE": filepath.Join(dir, "cache"), "GOPATH": ""}
			judgeHidden(t, dir, tc.cwd, tc.cmd, env, tc.env, tc.want)
		})
	}
}
