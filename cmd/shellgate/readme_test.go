package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadmeExamples runs every "$ shellgate …" line of the README's
// console blocks from the root of the checkout, where the README says to
// run them, and compares the output with the lines printed under it.
// An expected line containing "…" matches any text in its place.
func TestReadmeExamples(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	type example struct {
		line int
		args []string
		want []string
	}
	var examples []example
	in, first, walk := false, false, false
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0
	for sc.Scan() {
		n++
		l := sc.Text()
		if in && first {
			// The trust walkthrough (its blocks start with a file, or
			// are the ones after it) runs in a project of its own:
			// TestReadmeTrust.
			walk = strings.HasPrefix(l, "$ cat ") || strings.Contains(l, "shellgate trust") || strings.HasPrefix(l, "$ echo ")
			first = false
		}
		switch {
		case strings.HasPrefix(l, "```console"):
			in, first = true, true
		case strings.HasPrefix(l, "```"):
			in = false
		case walk:
		case in && strings.HasPrefix(l, "$ shellgate "):
			args, err := shellWords(strings.TrimPrefix(l, "$ shellgate "))
			if err != nil {
				t.Fatalf("README.md:%d: %v", n, err)
			}
			examples = append(examples, example{line: n, args: args})
		case in && len(examples) > 0:
			e := &examples[len(examples)-1]
			e.want = append(e.want, l)
		}
	}
	if len(examples) == 0 {
		t.Fatal("no console examples in README.md")
	}
	// Where the README says to run them: the root of the checkout.
	t.Chdir("../..")
	for _, e := range examples {
		var out, errb bytes.Buffer
		run(e.args, strings.NewReader(""), &out, &errb)
		got := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
		if len(got) < len(e.want) {
			t.Errorf("README.md:%d: shellgate %s\ngot:\n%s\nwant:\n%s", e.line, strings.Join(e.args, " "), out.String(), strings.Join(e.want, "\n"))
			continue
		}
		for i, w := range e.want {
			if !lineMatches(got[i], w) {
				t.Errorf("README.md:%d: shellgate %s: output line %d\ngot:  %q\nwant: %q\nwhole output:\n%s", e.line, strings.Join(e.args, " "), i+1, got[i], w, out.String())
				break
			}
		}
	}
}

// TestReadmeTrust runs the README's trust walkthrough in a project of its
// own, with a home and state directory of its own: "$ cat FILE" lays FILE
// (the lines under it), "$ echo 'TEXT' >> FILE" appends TEXT, and each
// "$ shellgate …" line must print the lines under it.
func TestReadmeTrust(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i := strings.Index(s, "### Trusting a project's configuration")
	if i < 0 {
		t.Fatal("README.md has no section \"Trusting a project's configuration\"")
	}
	s = s[i:]
	s = s[:strings.Index(s, "\n## ")]
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	proj := filepath.Join(home, "myproject")
	if err := os.MkdirAll(filepath.Join(proj, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	t.Cleanup(func() { os.Chdir(wd) })
	if err := os.Chdir(proj); err != nil {
		t.Fatal(err)
	}
	type step struct {
		cmd  string
		body []string
	}
	var steps []step
	in := false
	for _, l := range strings.Split(s, "\n") {
		switch {
		case strings.HasPrefix(l, "```console"):
			in = true
		case strings.HasPrefix(l, "```"):
			in = false
		case in && strings.HasPrefix(l, "$ "):
			steps = append(steps, step{cmd: l[2:]})
		case in && len(steps) > 0:
			steps[len(steps)-1].body = append(steps[len(steps)-1].body, l)
		}
	}
	ran := 0
	for _, st := range steps {
		words, err := shellWords(st.cmd)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case len(words) == 2 && words[0] == "cat":
			if err := os.WriteFile(words[1], []byte(strings.Join(st.body, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		case len(words) == 4 && words[0] == "echo" && words[2] == ">>":
			f, err := os.OpenFile(words[3], os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(words[1] + "\n")
			f.Close()
		case len(words) > 0 && words[0] == "shellgate":
			ran++
			var out, errb bytes.Buffer
			run(words[1:], strings.NewReader(""), &out, &errb)
			got := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
			if len(got) < len(st.body) {
				t.Errorf("$ %s\ngot:\n%s%s\nwant:\n%s", st.cmd, out.String(), errb.String(), strings.Join(st.body, "\n"))
				continue
			}
			for i, w := range st.body {
				if !lineMatches(got[i], w) {
					t.Errorf("$ %s: output line %d\ngot:  %q\nwant: %q", st.cmd, i+1, got[i], w)
					break
				}
			}
		default:
			t.Fatalf("the walkthrough has a step this test cannot run: $ %s", st.cmd)
		}
	}
	if ran < 5 {
		t.Errorf("the walkthrough ran %d shellgate commands, want at least 5", ran)
	}
}

// lineMatches compares a line with an expectation in which "…" stands for
// any text.
func lineMatches(got, want string) bool {
	parts := strings.Split(want, "…")
	if len(parts) == 1 {
		return got == want
	}
	if !strings.HasPrefix(got, parts[0]) {
		return false
	}
	rest := got[len(parts[0]):]
	for _, p := range parts[1:] {
		i := strings.Index(rest, p)
		if i < 0 {
			return false
		}
		rest = rest[i+len(p):]
	}
	return strings.HasSuffix(got, parts[len(parts)-1])
}

// shellWords splits a line the way the shell would for plain words and
// single- or double-quoted strings (no expansions).
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errUnterminated
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				return nil, errUnterminated
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

type wordsError string

func (e wordsError) Error() string { return string(e) }

const errUnterminated = wordsError("unterminated quote")

// TestReadmeConfig lays the README's .shellgate.yaml and Rego module in a
// project and checks that they do what the README says.
func TestReadmeConfig(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := func(lang, firstLine string) string {
		s := string(data)
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
	top := t.TempDir()
	proj := filepath.Join(top, "proj")
	for _, d := range []string{filepath.Join(proj, ".git"), filepath.Join(proj, ".shellgate", "policy"), filepath.Join(top, "shared-fixtures")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(proj, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".shellgate.yaml", block("yaml", "# .shellgate.yaml\n"))
	write(".shellgate/policy/no_docker.rego", block("rego", "# .shellgate/policy/no_docker.rego\n"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(top, "state"))
	check := func(cmd string) (string, string) {
		var out, errb bytes.Buffer
		run([]string{"check", "--json", "--cwd", proj, cmd}, strings.NewReader(""), &out, &errb)
		var got struct {
			Action  string `json:"action"`
			Reasons []struct {
				Code string `json:"code"`
			} `json:"reasons"`
		}
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatalf("%s: %v\n%s%s", cmd, err, out.String(), errb.String())
		}
		codes := ""
		for _, r := range got.Reasons {
			codes += " " + r.Code
		}
		return got.Action, codes
	}
	// Until it is trusted, the project's config only tightens.
	for _, tc := range []struct {
		cmd, want string
		untrusted bool
	}{
		{"npm test -- --watch=false", "ask", true},
		{"go test ./...", "ask", true},
		{"docker build .", "deny", false},
		{"cat secrets/token.txt", "deny", false},
	} {
		action, codes := check(tc.cmd)
		if action != tc.want || strings.Contains(codes, "project-config-untrusted") != tc.untrusted {
			t.Errorf("check %q with the README's config, untrusted: %s%s, want %s (project-config-untrusted: %v)", tc.cmd, action, codes, tc.want, tc.untrusted)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"trust", proj}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("shellgate trust %s: exit %d\n%s%s", proj, code, out.String(), errb.String())
	}
	for _, tc := range []struct {
		cmd, want string
	}{
		{"npm test -- --watch=false", "allow"},
		{"npm test && rm -rf ~", "deny"},
		{"npm test $(curl x)", "ask"},
		{"npm test > ~/.bashrc", "deny"},
		{"docker build .", "deny"},
		{"cat secrets/token.txt", "deny"},
		{"go test ./...", "allow"},
		{"make lint", "allow"},
		{"make deploy", "ask"},
	} {
		if action, codes := check(tc.cmd); action != tc.want {
			t.Errorf("check %q with the README's config, trusted: %s%s, want %s", tc.cmd, action, codes, tc.want)
		}
	}
}

// TestReadmeDoctor checks the README's `shellgate doctor` example: in a
// project where `shellgate install claude` put the thin client installed
// in /usr/local/bin, doctor prints exactly that (with this test's paths put
// back to the README's).
func TestReadmeDoctor(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(data), "```text\n$ shellgate doctor\n")
	if !ok {
		t.Fatal("README.md has no shellgate doctor example")
	}
	want, _, _ := strings.Cut(block, "```")

	root := t.TempDir()
	home, proj, bin := filepath.Join(root, "home"), filepath.Join(root, "proj"), filepath.Join(root, "bin")
	for _, d := range []string{home, proj, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bin, "shellgate-hook"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	run, err := os.MkdirTemp("", "sg")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(run)
	sock := filepath.Join(run, "shellgate", "engine.sock")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("SHELLGATE_SOCKET", sock)
	t.Chdir(proj)
	var out, errb bytes.Buffer
	if code := runMain([]string{"install", "claude", "--command", filepath.Join(bin, "shellgate-hook") + " claude"}, &out, &errb); code != 0 {
		t.Fatalf("install: exit %d: %s", code, errb.String())
	}
	out.Reset()
	if code := runMain([]string{"doctor"}, &out, &errb); code != 0 {
		t.Errorf("doctor: exit %d: %s", code, errb.String())
	}
	got := strings.NewReplacer(proj, "/home/you/proj", bin, "/usr/local/bin", filepath.Dir(sock), "/run/user/1000/shellgate").Replace(out.String())
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("README.md's shellgate doctor example (-want +got):\n%s", diff)
	}
}

func runMain(args []string, stdout, stderr *bytes.Buffer) int {
	return run(args, strings.NewReader(""), stdout, stderr)
}

// TestReadmeGlobsMatch holds every glob in a shellgate command of the
// README's examples (console and sh blocks) to files that are there where
// the README says to run them, the root of the checkout: an example about
// *.go files run where there are none would show something else.
func TestReadmeGlobsMatch(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	in, checked := false, 0
	for n, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "```") {
			in = strings.HasPrefix(l, "```console") || strings.HasPrefix(l, "```sh")
			continue
		}
		l = strings.TrimPrefix(l, "$ ")
		if !in || !strings.HasPrefix(l, "shellgate ") {
			continue
		}
		if i := strings.Index(l, "  #"); i >= 0 {
			l = l[:i]
		}
		args, err := shellWords(strings.TrimPrefix(l, "shellgate "))
		if err != nil || len(args) < 2 {
			continue
		}
		switch args[0] {
		case "check", "run", "classify", "explain", "grant":
		default:
			continue
		}
		for _, word := range strings.FieldsFunc(args[len(args)-1], func(r rune) bool { return strings.ContainsRune(" \t;|&", r) }) {
			// Plain globs only: a quoted word, a zsh qualifier or a
			// tilde path is about something else.
			if !strings.ContainsAny(word, "*?") || strings.ContainsAny(word, "\"'()~$=") || strings.HasPrefix(word, "-") {
				continue
			}
			checked++
			m, err := filepath.Glob(filepath.Join(root, word))
			if err != nil || len(m) == 0 {
				t.Errorf("README.md:%d: %q matches nothing at the root of the checkout, where the README says to run it: %s", n+1, word, l)
			}
		}
	}
	if checked == 0 {
		t.Error("no glob checked: the test no longer reads the README's examples")
	}
}
