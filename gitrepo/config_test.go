package gitrepo

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var errNotDir = syscall.ENOTDIR

// configCases are tricky config files, each written as the repository's
// .git/config (and the other files it names), and read by git and by us.
var configCases = []struct {
	name  string
	files map[string]string // by path under the world's root
	env   map[string]string
}{
	{name: "plain", files: map[string]string{"repo/.git/config": "[core]\n\tfsmonitor = ./evil\n"}},
	{name: "bom", files: map[string]string{"repo/.git/config": "\xef\xbb\xbf[core]\n\tfsmonitor = ./evil\n"}},
	{name: "partial bom", files: map[string]string{"repo/.git/config": "\xef\xbb[core]\n\tfsmonitor = ./evil\n"}},
	{name: "bom twice", files: map[string]string{"repo/.git/config": "\xef\xbb\xbf\xef\xbb\xbf[core]\n\tfsmonitor = ./evil\n"}},
	{name: "crlf", files: map[string]string{"repo/.git/config": "[core]\r\n\tfsmonitor = ./evil\r\n\tpager = less\r\n"}},
	{name: "lone cr", files: map[string]string{"repo/.git/config": "[core]\r\tfsmonitor = ./evil\r\n"}},
	{name: "cr in value", files: map[string]string{"repo/.git/config": "[core]\n\tfsmonitor = ./e\rvil\n"}},
	{name: "subsection escapes", files: map[string]string{"repo/.git/config": "[diff \"a\\\"b\\\\c\\d\"]\n\ttextconv = x\n"}},
	{name: "subsection spaces", files: map[string]string{"repo/.git/config": "[diff  \t \"My Driver\"]\n\ttextconv = x\n"}},
	{name: "subsection then space", files: map[string]string{"repo/.git/config": "[diff \"x\" ]\n\ttextconv = x\n"}},
	{name: "subsection newline", files: map[string]string{"repo/.git/config": "[diff \"x\ny\"]\n\ttextconv = x\n"}},
	{name: "legacy dotted", files: map[string]string{"repo/.git/config": "[Diff.My]\n\tTextConv = x\n[CORE]\n\tFSMonitor = y\n"}},
	{name: "dotted and quoted", files: map[string]string{"repo/.git/config": "[a.B \"C\"]\n\tk = v\n"}},
	{name: "empty section", files: map[string]string{"repo/.git/config": "[]\n\tk = v\n"}},
	{name: "dot section", files: map[string]string{"repo/.git/config": "[.]\n\tk = v\n[.a.]\n\tk = w\n"}},
	{name: "header and key on a line", files: map[string]string{"repo/.git/config": "[core]fsmonitor=x\n[core] pager = y ; c\n"}},
	{name: "inline comments and quotes", files: map[string]string{"repo/.git/config": "[core]\n\ta = \"x;y\" ; c\n\tb = x#y\n\tc = \"x\" \"y\" z  #\n\td = \"  spaced  \"\n\te = a\t\tb   c\n"}},
	{name: "open quote", files: map[string]string{"repo/.git/config": "[core]\n\tfsmonitor = \"./evil\n"}},
	{name: "escapes", files: map[string]string{"repo/.git/config": "[core]\n\ta = x\\ty\\nz\\bw\\\\v\\\"u\n"}},
	{name: "bad escape", files: map[string]string{"repo/.git/config": "[core]\n\ta = x\\qy\n"}},
	{name: "continuation", files: map[string]string{"repo/.git/config": "[core]\n\tfsmonitor = ./ev\\\nil\n\tpager = \"a\\\n b\"\n"}},
	{name: "continuation crlf", files: map[string]string{"repo/.git/config": "[core]\n\tfsmonitor = ./ev\\\r\nil\r\n"}},
	{name: "continuation at eof", files: map[string]string{"repo/.git/config": "[core]\n\tfsmonitor = ./evil\\"}},
	{name: "keys with dashes", files: map[string]string{"repo/.git/config": "[core]\n\tfs-monitor = x\n\tfsmonitor-x = y\n"}},
	{name: "key starting with digit", files: map[string]string{"repo/.git/config": "[core]\n\t1x = y\n"}},
	{name: "key starting with dash", files: map[string]string{"repo/.git/config": "[core]\n\t-x = y\n"}},
	{name: "bare keys", files: map[string]string{"repo/.git/config": "[core]\n\tfsmonitor\n\tbare   \n\tx\t\n"}},
	{name: "bare key then comment", files: map[string]string{"repo/.git/config": "[core]\n\tfsmonitor # c\n"}},
	{name: "key space equals", files: map[string]string{"repo/.git/config": "[core]\n\tfsmonitor \t = \t x\n"}},
	{name: "key with underscore", files: map[string]string{"repo/.git/config": "[core]\n\tfs_monitor = x\n"}},
	{name: "key cr before equals", files: map[string]string{"repo/.git/config": "[core]\n\tfsmonitor\r= x\n"}},
	{name: "vertical tab and form feed", files: map[string]string{"repo/.git/config": "[core]\n\v\tfsmonitor = x\n"}},
	{name: "form feed in value", files: map[string]string{"repo/.git/config": "[core]\n\tfsmonitor = \fx\f\n"}},
	{name: "key before section", files: map[string]string{"repo/.git/config": "fsmonitor = x\n[core]\n\tpager = y\n"}},
	{name: "nul in value", files: map[string]string{"repo/.git/config": "[core]\n\tfsmonitor = ./ev\x00il\n"}},
	{name: "nul in comment", files: map[string]string{"repo/.git/config": "[core]\n# \x00\n\tfsmonitor = x\n"}},
	{name: "nul at line start", files: map[string]string{"repo/.git/config": "[core]\n\x00\tfsmonitor = x\n"}},
	{name: "nul in subsection", files: map[string]string{"repo/.git/config": "[diff \"a\x00b\"]\n\ttextconv = x\n"}},
	{name: "utf-8 key", files: map[string]string{"repo/.git/config": "[core]\n\tfsmönitor = x\n"}},
	{name: "utf-8 subsection", files: map[string]string{"repo/.git/config": "[diff \"dré\"]\n\ttextconv = x\n"}},
	{name: "long line", files: map[string]string{"repo/.git/config": "[core]\n\tpager = " + strings.Repeat("a", 100000) + "\n\tfsmonitor = x\n"}},
	{name: "no newline at end", files: map[string]string{"repo/.git/config": "[core]\n\tfsmonitor = x"}},
	{name: "bare key at eof", files: map[string]string{"repo/.git/config": "[core]\n\tfsmonitor"}},
	{name: "section at eof", files: map[string]string{"repo/.git/config": "[core"}},
	{name: "empty file", files: map[string]string{"repo/.git/config": ""}},
	{name: "only comments", files: map[string]string{"repo/.git/config": "; a\n# b\n   \n"}},
	{name: "stray bracket", files: map[string]string{"repo/.git/config": "[core]]\n\tfsmonitor = x\n"}},
	{name: "garbage after good lines", files: map[string]string{"repo/.git/config": "[core]\n\tfsmonitor = x\n!!!\n"}},
	{name: "include relative", files: map[string]string{
		"repo/.git/config": "[include]\n\tpath = inc\n[core]\n\tpager = after\n",
		"repo/.git/inc":    "[core]\n\tfsmonitor = ./evil\n"}},
	{name: "include dotdot", files: map[string]string{
		"repo/.git/config": "[include]\n\tpath = ../cfg/../cfg/inc\n",
		"repo/cfg/inc":     "[core]\n\tfsmonitor = ./evil\n"}},
	{name: "include home", files: map[string]string{
		"repo/.git/config": "[include]\n\tpath = ~/inc\n",
		"home/inc":         "[core]\n\tfsmonitor = ./evil\n"}},
	{name: "include tilde alone", files: map[string]string{"repo/.git/config": "[include]\n\tpath = ~\n"}},
	{name: "include absolute", files: map[string]string{
		"repo/.git/config": "[include]\n\tpath = $ROOT/abs\n",
		"abs":              "[core]\n\tfsmonitor = ./evil\n"}},
	{name: "include missing", files: map[string]string{"repo/.git/config": "[include]\n\tpath = nope\n[core]\n\tfsmonitor = x\n"}},
	{name: "include no value", files: map[string]string{"repo/.git/config": "[include]\n\tpath\n"}},
	{name: "include empty", files: map[string]string{"repo/.git/config": "[include]\n\tpath =\n"}},
	{name: "include directory", files: map[string]string{
		"repo/.git/config": "[include]\n\tpath = d\n",
		"repo/.git/d/x":    ""}},
	{name: "include bad file", files: map[string]string{
		"repo/.git/config": "[include]\n\tpath = inc\n",
		"repo/.git/inc":    "[core\n"}},
	{name: "include cycle", files: map[string]string{
		"repo/.git/config": "[include]\n\tpath = a\n",
		"repo/.git/a":      "[include]\n\tpath = b\n[core]\n\tfsmonitor=x\n",
		"repo/.git/b":      "[include]\n\tpath = a\n"}},
	{name: "include depth 10", files: includeChain(10)},
	{name: "include depth 11", files: includeChain(11)},
	{name: "include subsection is not an include", files: map[string]string{
		"repo/.git/config": "[include \"x\"]\n\tpath = inc\n[Include]\n\tPath = inc2\n",
		"repo/.git/inc":    "[core]\n\tfsmonitor = ./evil\n",
		"repo/.git/inc2":   "[core]\n\tpager = p\n"}},
	{name: "included key before section", files: map[string]string{
		"repo/.git/config": "[core]\n\tpager = p\n[include]\n\tpath = inc\n",
		"repo/.git/inc":    "fsmonitor = x\n"}},
	{name: "includeIf gitdir", files: map[string]string{
		"repo/.git/config": "[includeIf \"gitdir:$ROOT/repo/\"]\n\tpath = yes\n[includeIf \"gitdir:$ROOT/other/\"]\n\tpath = no\n[includeIf \"gitdir:repo/.git\"]\n\tpath = yes2\n[includeIf \"gitdir:**/re*/\"]\n\tpath = yes3\n[includeIf \"gitdir:*/repo\"]\n\tpath = no2\n",
		"repo/.git/yes":    "[core]\n\tfsmonitor = yes\n",
		"repo/.git/yes2":   "[core]\n\tfsmonitor = yes2\n",
		"repo/.git/yes3":   "[core]\n\tfsmonitor = yes3\n",
		"repo/.git/no":     "[core]\n\tfsmonitor = no\n",
		"repo/.git/no2":    "[core]\n\tfsmonitor = no2\n"}},
	{name: "includeIf gitdir/i", files: map[string]string{
		"repo/.git/config": "[includeIf \"gitdir/i:$ROOT/REPO/\"]\n\tpath = yes\n[includeIf \"gitdir:$ROOT/REPO/\"]\n\tpath = no\n",
		"repo/.git/yes":    "[core]\n\tfsmonitor = yes\n",
		"repo/.git/no":     "[core]\n\tfsmonitor = no\n"}},
	{name: "includeIf gitdir relative", files: map[string]string{
		"repo/.git/config": "[includeIf \"gitdir:./\"]\n\tpath = yes\n[includeIf \"gitdir:./x/\"]\n\tpath = no\n",
		"repo/.git/yes":    "[core]\n\tfsmonitor = yes\n",
		"repo/.git/no":     "[core]\n\tfsmonitor = no\n"}},
	{name: "includeIf gitdir home", files: map[string]string{
		"home/.gitconfig": "[includeIf \"gitdir:~/../repo/\"]\n\tpath = yes\n[includeIf \"gitdir:~/\"]\n\tpath = no\n",
		"home/yes":        "[core]\n\tfsmonitor = yes\n",
		"home/no":         "[core]\n\tfsmonitor = no\n"}},
	{name: "includeIf gitdir bracket", files: map[string]string{
		"repo/.git/config": "[includeIf \"gitdir:$ROOT/re[p]o/\"]\n\tpath = yes\n",
		"repo/.git/yes":    "[core]\n\tfsmonitor = yes\n"}},
	{name: "includeIf onbranch", files: map[string]string{
		"repo/.git/config": "[includeIf \"onbranch:main\"]\n\tpath = yes\n[includeIf \"onbranch:ma*\"]\n\tpath = yes2\n[includeIf \"onbranch:dev\"]\n\tpath = no\n",
		"repo/.git/yes":    "[core]\n\tfsmonitor = yes\n",
		"repo/.git/yes2":   "[core]\n\tfsmonitor = yes2\n",
		"repo/.git/no":     "[core]\n\tfsmonitor = no\n"}},
	{name: "includeIf onbranch slash", files: map[string]string{
		"repo/.git/HEAD":   "ref: refs/heads/feature/x\n",
		"repo/.git/config": "[includeIf \"onbranch:feature/\"]\n\tpath = yes\n[includeIf \"onbranch:feature\"]\n\tpath = no\n",
		"repo/.git/yes":    "[core]\n\tfsmonitor = yes\n",
		"repo/.git/no":     "[core]\n\tfsmonitor = no\n"}},
	{name: "includeIf hasconfig", files: map[string]string{
		"repo/.git/config": "[remote \"origin\"]\n\turl = https://example.com/x\n[includeIf \"hasconfig:remote.*.url:https://example.com/**\"]\n\tpath = yes\n[includeIf \"hasconfig:remote.*.url:nope\"]\n\tpath = no\n",
		"repo/.git/yes":    "[core]\n\tfsmonitor = yes\n",
		"repo/.git/no":     "[core]\n\tfsmonitor = no\n"}},
	{name: "includeIf unknown and case", files: map[string]string{
		"repo/.git/config": "[includeIf \"GitDir:/\"]\n\tpath = no\n[includeIf \"bogus:x\"]\n\tpath = no\n[IncludeIf \"gitdir:/\"]\n\tPATH = yes\n[includeif]\n\tpath = no\n",
		"repo/.git/yes":    "[core]\n\tfsmonitor = yes\n",
		"repo/.git/no":     "[core]\n\tfsmonitor = no\n"}},
	{name: "global xdg and home", files: map[string]string{
		"home/.config/git/config": "[core]\n\tfsmonitor = xdg\n",
		"home/.gitconfig":         "[core]\n\tfsmonitor = home\n"}},
	{name: "global XDG_CONFIG_HOME", files: map[string]string{
		"xdg/git/config":          "[core]\n\tfsmonitor = xdg\n",
		"home/.config/git/config": "[core]\n\tfsmonitor = not-read\n"},
		env: map[string]string{"XDG_CONFIG_HOME": "$ROOT/xdg"}},
	{name: "GIT_CONFIG_GLOBAL", files: map[string]string{
		"g":               "[core]\n\tfsmonitor = g\n",
		"home/.gitconfig": "[core]\n\tfsmonitor = not-read\n"},
		env: map[string]string{"GIT_CONFIG_GLOBAL": "$ROOT/g"}},
	{name: "GIT_CONFIG_SYSTEM", files: map[string]string{"s": "[core]\n\tfsmonitor = s\n[include]\n\tpath = s2\n", "s2": "[core]\n\tpager = s2\n"},
		env: map[string]string{"GIT_CONFIG_SYSTEM": "$ROOT/s", "GIT_CONFIG_NOSYSTEM": "0"}},
	{name: "GIT_CONFIG_NOSYSTEM yes", files: map[string]string{"s": "[core]\n\tfsmonitor = s\n"},
		env: map[string]string{"GIT_CONFIG_SYSTEM": "$ROOT/s", "GIT_CONFIG_NOSYSTEM": "yes"}},
	{name: "GIT_CONFIG_NOSYSTEM bad", env: map[string]string{"GIT_CONFIG_NOSYSTEM": "maybe"}},
	{name: "GIT_CONFIG_COUNT", env: map[string]string{"GIT_CONFIG_COUNT": "2",
		"GIT_CONFIG_KEY_0": "Core.FSMonitor", "GIT_CONFIG_VALUE_0": "./evil",
		"GIT_CONFIG_KEY_1": "Diff.My Driver.TextConv", "GIT_CONFIG_VALUE_1": "x"}},
	{name: "GIT_CONFIG_COUNT include", files: map[string]string{"inc": "[core]\n\tfsmonitor = inc\n"},
		env: map[string]string{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "include.path", "GIT_CONFIG_VALUE_0": "$ROOT/inc"}},
	{name: "GIT_CONFIG_COUNT relative include", env: map[string]string{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "include.path", "GIT_CONFIG_VALUE_0": "inc"}},
	{name: "GIT_CONFIG_COUNT bad key", env: map[string]string{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.1x", "GIT_CONFIG_VALUE_0": "x"}},
	{name: "GIT_CONFIG_COUNT no section", env: map[string]string{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "fsmonitor", "GIT_CONFIG_VALUE_0": "x"}},
	{name: "GIT_CONFIG_COUNT missing key", env: map[string]string{"GIT_CONFIG_COUNT": "2", "GIT_CONFIG_KEY_0": "core.a", "GIT_CONFIG_VALUE_0": "x"}},
	{name: "GIT_CONFIG_COUNT bogus", env: map[string]string{"GIT_CONFIG_COUNT": "1x"}},
	{name: "GIT_CONFIG_COUNT spaced", env: map[string]string{"GIT_CONFIG_COUNT": " +1", "GIT_CONFIG_KEY_0": "core.a", "GIT_CONFIG_VALUE_0": "x"}},
	{name: "format version 2", files: map[string]string{"repo/.git/config": "[core]\n\trepositoryformatversion = 2\n\tfsmonitor = x\n"}},
	{name: "worktree config on", files: map[string]string{
		"repo/.git/config":          "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tworktreeConfig = true\n",
		"repo/.git/config.worktree": "[core]\n\tfsmonitor = wt\n"}},
	{name: "worktree config off", files: map[string]string{
		"repo/.git/config":          "[core]\n\trepositoryformatversion = 1\n",
		"repo/.git/config.worktree": "[core]\n\tfsmonitor = wt\n"}},
	{name: "worktree config version 0", files: map[string]string{
		"repo/.git/config":          "[extensions]\n\tworktreeConfig\n",
		"repo/.git/config.worktree": "[core]\n\tfsmonitor = wt\n"}},
	{name: "worktree config included", files: map[string]string{
		"repo/.git/config":          "[include]\n\tpath = inc\n",
		"repo/.git/inc":             "[extensions]\n\tworktreeConfig = true\n",
		"repo/.git/config.worktree": "[core]\n\tfsmonitor = wt\n"}},
}

// includeChain is a chain of n includes from the repository's config.
func includeChain(n int) map[string]string {
	m := map[string]string{"repo/.git/config": "[include]\n\tpath = i1\n"}
	for i := 1; i <= n; i++ {
		next := ""
		if i < n {
			next = "[include]\n\tpath = i" + itoa(i+1) + "\n"
		}
		m["repo/.git/i"+itoa(i)] = next + "[core]\n\tfsmonitor = depth" + itoa(i) + "\n"
	}
	return m
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestConfigMatchesGit: each tricky config is read by us exactly as git
// reads it (or, where git refuses it, not at all).
func TestConfigMatchesGit(t *testing.T) {
	needGit(t)
	for _, tc := range configCases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.write(t, tc.files)
			for k, v := range tc.env {
				w.env[k] = w.expand(v)
			}
			w.compare(t, tc.name)
		})
	}
}

// FuzzConfigMatchesGit: any bytes as the repository's config are read by
// us as git reads them.
func FuzzConfigMatchesGit(f *testing.F) {
	for _, tc := range configCases {
		if c, ok := tc.files["repo/.git/config"]; ok && len(tc.env) == 0 && len(tc.files) == 1 {
			f.Add([]byte(c))
		}
	}
	needGit(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		w := newWorld(t)
		w.write(t, map[string]string{"repo/.git/config": string(data), "repo/.git/inc": "[core]\n\tpager = inc\n"})
		w.compare(t, "fuzz")
	})
}

// TestParseBool: git_parse_maybe_bool, then git_parse_int.
func TestParseBool(t *testing.T) {
	tests := []struct {
		in    string
		b, ok bool
	}{
		{"", false, true}, {"TRUE", true, true}, {"Off", false, true}, {"yes", true, true},
		{"0", false, true}, {"2", true, true}, {" 1", true, true}, {"0x10", true, true}, {"-1", true, true},
		{"1k", true, true}, {"0k", false, true}, {"3g", false, false}, {"1 ", false, false},
		{"0o7", false, false}, {"0B1", false, false}, {"1_0", false, false}, {"maybe", false, false},
	}
	for _, tc := range tests {
		b, ok := parseBool(tc.in, false)
		if b != tc.b || ok != tc.ok {
			t.Errorf("parseBool(%q) = %v, %v, want %v, %v", tc.in, b, ok, tc.b, tc.ok)
		}
	}
}

// TestBoolMatchesGit: GIT_CONFIG_NOSYSTEM and extensions.worktreeConfig
// read as git reads a boolean (or refused where git dies).
func TestBoolMatchesGit(t *testing.T) {
	needGit(t)
	for _, v := range []string{"", "TRUE", "Off", "2", " 1", "0x10", "-1", "1k", "0k", "3g", "1 ", "0o7", "0B1", "1_0", "maybe", "010"} {
		w := newWorld(t)
		w.write(t, map[string]string{"s": "[core]\n\tfsmonitor = s\n",
			"repo/.git/config":          "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tworktreeConfig = " + v + "\n",
			"repo/.git/config.worktree": "[core]\n\tpager = wt\n"})
		w.env["GIT_CONFIG_SYSTEM"] = w.root + "/s"
		w.env["GIT_CONFIG_NOSYSTEM"] = v
		w.compare(t, "boolean "+strconv.Quote(v))
	}
}

// FuzzIncludeIfMatchesGit: an includeIf gitdir:, gitdir/i: or onbranch:
// pattern includes a file exactly when git includes it (the wildmatch
// port, the ~/ and ./ expansions, the trailing-slash rule).
func FuzzIncludeIfMatchesGit(f *testing.F) {
	for _, p := range []string{"**/repo/", "$ROOT/re*/", "*/repo", "~/", "./", "repo/.git", "**/r?po/**", "/**/.git", "$ROOT/*/.git", "$ROOT/**/", "re*", "**", "*", "~/../re*/.git", "./.git"} {
		f.Add(p, uint8(0))
	}
	f.Add("ma*", uint8(2))
	f.Add("m**", uint8(2))
	f.Add("*/x", uint8(2))
	f.Add("$ROOT/REPO/", uint8(1))
	needGit(f)
	f.Fuzz(func(t *testing.T, pattern string, kind uint8) {
		if len(pattern) > 200 || strings.ContainsAny(pattern, "\n\x00") {
			return
		}
		cond := []string{"gitdir:", "gitdir/i:", "onbranch:"}[int(kind)%3]
		q := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(pattern)
		w := newWorld(t)
		w.write(t, map[string]string{
			"repo/.git/config": "[includeIf \"" + cond + q + "\"]\n\tpath = yes\n",
			"repo/.git/yes":    "[core]\n\tfsmonitor = yes\n",
		})
		w.compare(t, cond+pattern)
	})
}

// TestPrintsKeyMatchesGit: git status prints a key of ~/.gitconfig in an
// error exactly when PrintsKey says so (a key outside any section), and
// the key it prints is the entry's name.
func TestPrintsKeyMatchesGit(t *testing.T) {
	needGit(t)
	cases := []string{
		"sgcanary0123\n",
		"SgCanary-0123\n",
		"sgcanary0123 = value\n",
		"[core]\nsgcanary0123\n",
		"[core]\n\tabbrev = 12\n",
		"# sgcanary0123\n",
		"machine example.com login demo password sgcanary0123\n",
		"hvs.sgcanary0123\n",
		"ghp_sgcanary0123\n",
		"sgcanary0123\n[user]\n\tname = x\n",
	}
	for _, c := range cases {
		w := newWorld(t)
		w.write(t, map[string]string{"home/.gitconfig": c})
		cmd := exec.Command("git", "status")
		cmd.Dir, cmd.Env = w.repo, w.environ()
		outb, _ := cmd.CombinedOutput() // the error is on stderr
		out := string(outb)
		es, _ := ParseFile([]byte(c))
		var want []string
		for _, e := range es {
			e.File = w.home + "/.gitconfig"
			if e.PrintsKey() {
				want = append(want, e.Name)
			}
		}
		var got []string
		for _, line := range strings.Split(out, "\n") {
			if k, ok := strings.CutPrefix(line, "error: key does not contain a section: "); ok {
				got = append(got, k)
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("~/.gitconfig %q: keys git prints (-PrintsKey +git):\n%s\n%s", c, diff, out)
		}
	}
}
