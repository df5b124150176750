package readstation

import (
	"bytes"
	"cmp"
	"debug/buildinfo"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The go command chooses the toolchain it runs before it looks at its
// command line (cmd/go/internal/toolchain.Select): with GOTOOLCHAIN=auto
// (upstream's default, from $GOROOT/go.env) a go or toolchain line in the
// go.work or go.mod it finds that asks for a newer Go than its own makes
// it run that Go from PATH or download and run it. GOTOOLCHAIN comes from
// the environment, then the user's go env file ($GOENV, else
// os.UserConfigDir()/go/env), then $GOROOT/go.env; GOROOT itself from the
// environment, the user's env file, or where the go binary lives. The
// station reads all of them as go does, and finds the local version in
// the go binary the agent's PATH would run (its build information: the
// go command is built by its own toolchain). What it cannot establish
// (a variable it does not know, a file it cannot read, a go binary it
// cannot read) is not established.

// goEnv is the go command's configuration as it would read it: the
// environment first, then the user's env file, then $GOROOT/go.env.
type goEnv struct {
	h        *hiddenRun
	user     map[string]string
	userFile string
	root     map[string]string
	rootFile string
	goroot   string
	exe      string // the go binary PATH finds
	ok       bool   // false when something above could not be established
}

// loadGoEnv reads the go command's configuration files for a segment.
func loadGoEnv(h *hiddenRun) *goEnv {
	g := &goEnv{h: h, ok: true}
	fail := func(p, msg string) {
		h.j.notEstablished(h.s, p, h.who+": "+msg+", so the Go toolchain it runs and what it downloads cannot be established")
		g.ok = false
	}
	// The user's env file.
	switch v, known := h.env("GOENV"); {
	case !known:
		fail("$GOENV", "GOENV is not known")
		return g
	case v == "off":
	case v != "":
		g.userFile = v
	default:
		dir := ""
		if x, known := h.env("XDG_CONFIG_HOME"); !known {
			fail("$XDG_CONFIG_HOME", "XDG_CONFIG_HOME is not known")
			return g
		} else if x != "" && filepath.IsAbs(x) {
			dir = x
		} else if h.j.b.Home != "" {
			dir = filepath.Join(h.j.b.Home, ".config")
		}
		if dir != "" {
			g.userFile = filepath.Join(dir, "go", "env")
		}
	}
	if g.userFile != "" {
		bad := h.bad
		data, _ := h.read(g.userFile)
		g.user = parseGoEnvFile(data)
		if h.bad > bad {
			g.ok = false
		}
	}
	// GOROOT and the go binary.
	exe, known := h.lookPath("go")
	if !known {
		fail("$PATH", "PATH is not known")
		return g
	}
	g.exe = exe
	if v, known := h.env("GOROOT"); !known {
		fail("$GOROOT", "GOROOT is not known")
		return g
	} else if v != "" {
		g.goroot = filepath.Clean(v)
	} else if v := g.user["GOROOT"]; v != "" {
		g.goroot = filepath.Clean(v)
	} else if exe != "" {
		isRoot := func(d string) bool {
			fi, err := os.Stat(filepath.Join(d, "pkg", "tool"))
			return err == nil && fi.IsDir()
		}
		for _, e := range []string{exe, evalOr(exe)} {
			if d := filepath.Join(e, "../.."); isRoot(d) {
				g.goroot = d
				break
			}
			if d := filepath.Join(e, "../../.."); isRoot(d) {
				g.goroot = d
				break
			}
		}
		if g.goroot == "" {
			fail(exe, "the GOROOT of "+show(exe)+" cannot be found")
			return g
		}
	}
	if g.goroot != "" {
		g.rootFile = filepath.Join(g.goroot, "go.env")
		bad := h.bad
		data, _ := h.read(g.rootFile)
		if h.bad > bad {
			g.ok = false
		}
		g.root = parseGoEnvFile(data)
	}
	return g
}

// evalOr is p with its symbolic links resolved, or p.
func evalOr(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// get returns a setting as the go command reads it (cmd/go/internal/cfg
// Getenv), where it came from ("the environment", a file), and whether it
// is known.
func (g *goEnv) get(name string) (val, from string, known bool) {
	v, known := g.h.env(name)
	if !known {
		return "", "", false
	}
	if v != "" {
		return v, "the environment", true
	}
	if v, ok := g.user[name]; ok {
		return v, g.userFile, true
	}
	if v, ok := g.root[name]; ok {
		return v, g.rootFile, true
	}
	return "", "", true
}

// parseGoEnvFile reads a go env file as cmd/go's readEnvFile does: KEY=VALUE
// lines whose key begins with an upper-case letter, a later line winning.
func parseGoEnvFile(data []byte) map[string]string {
	m := map[string]string{}
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = line[:i], data[i+1:]
		} else {
			data = nil
		}
		i := bytes.IndexByte(line, '=')
		if i < 0 || line[0] < 'A' || 'Z' < line[0] {
			continue
		}
		m[string(line[:i])] = string(line[i+1:])
	}
	return m
}

// goVersionCache caches the Go version of a go binary by its stamp.
var goVersionCache sync.Map // path → goVersionEntry

type goVersionEntry struct {
	size int64
	mod  time.Time
	ver  string
}

// localGoToolchain returns the toolchain name of the go binary exe
// ("go1.26.8"), "" when it cannot be read.
func localGoToolchain(exe string) string {
	fi, err := os.Stat(exe)
	if err != nil || !fi.Mode().IsRegular() {
		return "" // a FIFO or a device named go is never opened
	}
	if e, ok := goVersionCache.Load(exe); ok {
		if e := e.(goVersionEntry); e.size == fi.Size() && e.mod.Equal(fi.ModTime()) {
			return e.ver
		}
	}
	fsCalls.Add(1)
	bi, err := buildinfo.ReadFile(exe)
	if err != nil {
		return ""
	}
	goVersionCache.Store(exe, goVersionEntry{fi.Size(), fi.ModTime(), bi.GoVersion})
	return bi.GoVersion
}

// findGoWork returns the go.work file the go command would use from cwd
// (cmd/go/internal/modload FindGoWork): $GOWORK, or the nearest go.work
// up to (not across) GOROOT; "" for none; false when not established.
func (g *goEnv) findGoWork(cwd string) (string, bool) {
	v, _, known := g.get("GOWORK")
	if !known {
		g.h.j.notEstablished(g.h.s, "$GOWORK", g.h.who+": GOWORK is not known, so the go.work file it reads cannot be established")
		return "", false
	}
	switch v {
	case "off":
		return "", true
	case "", "auto":
	default:
		if !filepath.IsAbs(v) {
			return "", true // go fails: "invalid GOWORK"
		}
		if fi, err := os.Stat(v); err != nil || fi.IsDir() {
			return "", true
		}
		return v, true
	}
	for d := cwd; ; {
		f := filepath.Join(d, "go.work")
		fsCalls.Add(1)
		if fi, err := os.Stat(f); err == nil && !fi.IsDir() {
			return f, true
		}
		parent := filepath.Dir(d)
		if parent == d || (g.goroot != "" && parent == g.goroot) {
			return "", true
		}
		d = parent
	}
}

// findGoMod returns the nearest go.mod from cwd up ("" for none, or one in
// the temporary directory itself, which go ignores).
func (g *goEnv) findGoMod(cwd string) string {
	for d := cwd; ; {
		f := filepath.Join(d, "go.mod")
		fsCalls.Add(1)
		if fi, err := os.Stat(f); err == nil && !fi.IsDir() {
			tmp, _ := g.h.env("TMPDIR")
			if tmp == "" {
				tmp = "/tmp"
			}
			if d == filepath.Clean(tmp) {
				return ""
			}
			return f
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// goModLookup returns the value of a go.mod or go.work directive as
// cmd/go/internal/gover.GoModLookup reads it (the first line that starts
// with the key and a blank, comment removed), and the line.
func goModLookup(data []byte, key string) (val, line string) {
	for len(data) > 0 {
		var l []byte
		l, data, _ = bytes.Cut(data, []byte("\n"))
		l = bytes.TrimSpace(l)
		s := string(l)
		if !strings.HasPrefix(s, key) {
			continue
		}
		rest := strings.TrimPrefix(s, key)
		if len(rest) == 0 || (rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		rest, _, _ = strings.Cut(rest, "//")
		return strings.TrimSpace(rest), s
	}
	return "", ""
}

// goToolchainSwitch is what the go command would do about its toolchain.
type goToolchainSwitch struct {
	target string // the toolchain it would run ("go1.99.0"); "" for its own
	file   string // the file that asks for it
	key    string // "go", "toolchain" or "GOTOOLCHAIN"
	line   string
	local  string // the local toolchain ("go1.26.8")
	mode   string // GOTOOLCHAIN as read
	from   string // where GOTOOLCHAIN came from
}

// goSwitch works out the go command's toolchain choice as
// cmd/go/internal/toolchain.Select does; false when it cannot be
// established (a not-established read says why).
func goSwitch(h *hiddenRun) (goToolchainSwitch, bool) {
	var sw goToolchainSwitch
	g := loadGoEnv(h)
	if !g.ok {
		return sw, false
	}
	if g.exe == "" {
		return sw, true // no go on PATH: the command fails
	}
	// GO111MODULE=off (or auto outside a module) turns toolchain selection off.
	switch v, _, known := g.get("GO111MODULE"); {
	case !known:
		h.j.notEstablished(h.s, "$GO111MODULE", h.who+": GO111MODULE is not known, so whether go switches toolchains cannot be established")
		return sw, false
	case v == "on" || v == "":
	case v == "auto":
		if g.findGoMod(h.cwd) == "" {
			return sw, true
		}
	default:
		return sw, true
	}
	gotoolchain, from, known := g.get("GOTOOLCHAIN")
	if !known {
		h.j.notEstablished(h.s, "$GOTOOLCHAIN", h.who+": GOTOOLCHAIN is not known, so whether go downloads and runs another toolchain cannot be established")
		return sw, false
	}
	sw.mode, sw.from = gotoolchain, from
	if gotoolchain == "" {
		return sw, true
	}
	local := localGoToolchain(evalOr(g.exe))
	localVers := goFromToolchain(local)
	if localVers == "" {
		h.j.notEstablished(h.s, g.exe, fmt.Sprintf("%s: the version of %s cannot be read, so whether go downloads and runs another toolchain cannot be established", h.who, show(g.exe)))
		return sw, false
	}
	sw.local = local
	minToolchain, minVers := local, localVers
	var mode string
	switch gotoolchain {
	case "auto", "path":
		mode = gotoolchain
	default:
		min, suffix, plus := strings.Cut(gotoolchain, "+")
		if min != "local" {
			v := goFromToolchain(min)
			if v == "" {
				return sw, true // go fails: invalid GOTOOLCHAIN
			}
			minToolchain, minVers = min, v
			sw.key, sw.file, sw.line = "GOTOOLCHAIN", from, "GOTOOLCHAIN="+gotoolchain
		}
		if plus && suffix != "auto" && suffix != "path" {
			return sw, true // go fails
		}
		mode = suffix
	}
	target := minToolchain
	if mode == "auto" || mode == "path" {
		file, ok := g.findGoWork(h.cwd)
		if !ok {
			return sw, false
		}
		if file == "" {
			file = g.findGoMod(h.cwd)
		}
		if file != "" {
			bad := h.bad
			data, _ := h.read(file)
			if h.bad > bad {
				return sw, false
			}
			goVers, goLine := goModLookup(data, "go")
			toolchain, toolLine := goModLookup(data, "toolchain")
			if toolchain != "default" {
				if toolchain != "" {
					toolVers := goFromToolchain(toolchain)
					if toolVers == "" || (!strings.HasPrefix(toolchain, "go") && !strings.Contains(toolchain, "-go")) {
						return sw, true // go fails: invalid toolchain
					}
					if goCompare(toolVers, minVers) > 0 {
						target, minVers = toolchain, toolVers
						sw.key, sw.file, sw.line = "toolchain", file, toolLine
					}
				}
				if goCompare(goVers, minVers) > 0 {
					target = "go" + goVers
					if goIsLang(goVers) && goCompare(goVers, "1.21") >= 0 {
						target += ".0"
					}
					sw.key, sw.file, sw.line = "go", file, goLine
				}
			}
		}
	}
	if target == "local" || target == local {
		return sw, true
	}
	if !strings.HasPrefix(target, "go1") && !strings.Contains(target, "-go1") {
		return sw, true // go fails: invalid GOTOOLCHAIN
	}
	sw.target = target
	return sw, true
}

// checkGoToolchain: the go command would run another toolchain than its
// own because a go.work, go.mod or go env file (or GOTOOLCHAIN) asks.
func checkGoToolchain(h *hiddenRun) []RepoHelper {
	// go env GOTOOLCHAIN, GOMOD and GOWORK are answered by the local
	// toolchain whatever the files say (cmd/go special-cases them).
	if h.s.Subcommand == "env" && len(h.s.Args) == 2 && h.s.Args[0].Value == "env" && h.s.Args[1].Dynamic == "" {
		switch h.s.Args[1].Value {
		case "GOTOOLCHAIN", "GOMOD", "GOWORK":
			return nil
		}
	}
	sw, ok := goSwitch(h)
	if !ok || sw.target == "" {
		return nil
	}
	does := fmt.Sprintf("download and run the Go toolchain %s (GOTOOLCHAIN=%s, from %s)", sw.target, sw.mode, show(sw.from))
	if sw.mode == "path" || strings.HasSuffix(sw.mode, "+path") {
		does = fmt.Sprintf("run the program %s from PATH as its toolchain (GOTOOLCHAIN=%s, from %s)", sw.target, sw.mode, show(sw.from))
	} else if exe, _ := h.lookPath(sw.target); exe != "" {
		does = fmt.Sprintf("run %s from PATH as its toolchain (GOTOOLCHAIN=%s, from %s)", show(exe), sw.mode, show(sw.from))
	}
	why := fmt.Sprintf("says %q, newer than the local %s", sw.line, sw.local)
	if sw.key == "GOTOOLCHAIN" {
		why = fmt.Sprintf("sets %s, a toolchain other than the local %s", sw.line, sw.local)
	}
	file := sw.file
	if file == "the environment" {
		file = "$GOTOOLCHAIN"
	}
	return []RepoHelper{{Key: sw.key, File: file, Value: sw.line, Why: why, Does: does, Segment: h.s.Index, Span: h.s.Span}}
}

// goFromToolchain returns the Go version of a toolchain name ("go1.2.3" →
// "1.2.3", "go1.2.3-bigcorp" → "1.2.3"), "" when it is not one
// (cmd/go/internal/gover.FromToolchain).
func goFromToolchain(name string) string {
	if strings.ContainsAny(name, "\\/") || !strings.HasPrefix(name, "go") {
		return ""
	}
	v := name[2:]
	if i := strings.IndexAny(v, " \t-"); i >= 0 {
		v = v[:i]
	}
	if (goParse(v) == goVersion{}) {
		return ""
	}
	return v
}

// goVersion is a parsed Go version (internal/gover.Version).
type goVersion struct{ major, minor, patch, kind, pre string }

// goCompare compares two Go versions as internal/gover.Compare does.
func goCompare(x, y string) int {
	vx, vy := goParse(x), goParse(y)
	if c := goCmpInt(vx.major, vy.major); c != 0 {
		return c
	}
	if c := goCmpInt(vx.minor, vy.minor); c != 0 {
		return c
	}
	if c := goCmpInt(vx.patch, vy.patch); c != 0 {
		return c
	}
	if c := cmp.Compare(vx.kind, vy.kind); c != 0 {
		return c
	}
	return goCmpInt(vx.pre, vy.pre)
}

// goIsLang reports whether x is a language version (1.21, not 1.21.0).
func goIsLang(x string) bool {
	v := goParse(x)
	return v != goVersion{} && v.patch == "" && v.kind == "" && v.pre == ""
}

// goParse parses a Go version as internal/gover.Parse does; the zero
// version when it is not one.
func goParse(x string) goVersion {
	var v goVersion
	var ok bool
	if v.major, x, ok = goCutInt(x); !ok {
		return goVersion{}
	}
	if x == "" {
		v.minor, v.patch = "0", "0"
		return v
	}
	if x[0] != '.' {
		return goVersion{}
	}
	if v.minor, x, ok = goCutInt(x[1:]); !ok {
		return goVersion{}
	}
	if x == "" {
		if goCmpInt(v.minor, "21") < 0 {
			v.patch = "0"
		}
		return v
	}
	if x[0] == '.' {
		if v.patch, x, ok = goCutInt(x[1:]); !ok || x != "" {
			return goVersion{}
		}
		return v
	}
	i := 0
	for i < len(x) && (x[i] < '0' || '9' < x[i]) {
		if x[i] < 'a' || 'z' < x[i] {
			return goVersion{}
		}
		i++
	}
	if i == 0 {
		return goVersion{}
	}
	v.kind, x = x[:i], x[i:]
	if x == "" {
		return v
	}
	if v.pre, x, ok = goCutInt(x); !ok || x != "" {
		return goVersion{}
	}
	return v
}

func goCutInt(x string) (n, rest string, ok bool) {
	i := 0
	for i < len(x) && '0' <= x[i] && x[i] <= '9' {
		i++
	}
	if i == 0 || x[0] == '0' && i != 1 {
		return "", "", false
	}
	return x[:i], x[i:], true
}

func goCmpInt(x, y string) int {
	if x == y {
		return 0
	}
	if len(x) != len(y) {
		return cmp.Compare(len(x), len(y))
	}
	return strings.Compare(x, y)
}
