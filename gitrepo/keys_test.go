package gitrepo

import (
	"context"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shellgate/shellgate/internal/testenv"
)

// rowExample is the setting of row as the repository's config spells it,
// its value the program path prog (or what the row's value condition
// needs), and the extra config the row needs to be reached.
func rowExample(row HelperKey, prog, root string) string {
	sub := ""
	switch row.Sub {
	case SubRequired:
		sub = "x"
	case SubNone, SubOptional:
	default:
		sub = row.Sub
	}
	if row.SubPrefix != "" {
		sub = row.SubPrefix + prog
	}
	key := row.Key
	if key == "" {
		key = "log" // pager.log
	}
	value := prog
	extra := ""
	switch row.Value {
	case ValueBang:
		value = "!" + prog
	case ValueExt:
		value = "ext::" + prog
	case ValueAlways:
		value = "always"
	}
	switch {
	case row.Section == "log" && row.Key == "showsignature":
		value = "true"
		extra = "[gpg]\n\tprogram = " + prog + "\n"
	case row.Value == ValueSignatureFormat:
		value = "%h %G?"
		extra = "[gpg]\n\tprogram = " + prog + "\n"
	case row.Section == "core" && row.Key == "hookspath":
		value = root + "/hooks"
	case row.Section == "trace2":
		value = root + "/ran"
	case row.Section == "lfs" && row.Key == "storage":
		// git-lfs writes the objects of what it cleans there.
		value = root + "/ran"
		extra = lfsFilter
	case row.Section == "lfs":
		// An extension git-lfs runs on what its filter (selected by the
		// world's filter=x) cleans.
		sub = "extension.x"
		value = prog + " %f"
		extra = "\tpriority = 0\n" + lfsFilter
	case row.SubPrefix != "":
		value = "https://example.invalid/"
	}
	header := "[" + row.Section + "]"
	if sub != "" {
		header = "[" + row.Section + " \"" + sub + "\"]"
	}
	return header + "\n\t" + key + " = " + value + "\n" + extra
}

// lfsFilter is the filter x as `git lfs install` writes filter "lfs".
const lfsFilter = "[filter \"x\"]\n\tprocess = git-lfs filter-process\n\tclean = git-lfs clean -- %f\n\tsmudge = git-lfs smudge -- %f\n\trequired = true\n"

// TestKeysRunWhenTheTableSays: each row of Keys, set in a repository's
// config to a program that leaves a mark, runs for exactly the read-only
// commands its Runs lists (git status, git diff, git log -p, without a
// terminal, in a repository with a modified file, a file whose mtime
// changed, attributes selecting every driver, and a signed commit). This
// is what decides which rows ask in the user's own configuration.
func TestKeysRunWhenTheTableSays(t *testing.T) {
	needGit(t)
	type run struct {
		row   HelperKey
		scope Scope
	}
	var runs []run
	for _, row := range Keys {
		if !row.UserOnly {
			runs = append(runs, run{row, ScopeLocal})
		}
		// In the user's configuration: the rows that ask there, and those
		// a developer keeps there (they must not run).
		if row.UserOnly || row.RunByReadCommand() || row.When == WhenTTY || row.When == WhenEditor || row.Key == "helper" {
			runs = append(runs, run{row, ScopeGlobal})
		}
	}
	for _, r := range runs {
		row := r.row
		name := string(r.scope) + ":" + row.Section + "." + row.Sub + "." + row.Key
		t.Run(name, func(t *testing.T) {
			if row.Section == "lfs" {
				testenv.LookPath(t, "git-lfs")
			}
			w := newWorld(t)
			mark := w.root + "/ran"
			prog := w.root + "/prog"
			script := "#!/bin/sh\necho \"$0 $*\" >> " + mark + "\nif [ -f \"$1\" ]; then cat \"$1\"; fi\nexit 0\n"
			must(t, os.WriteFile(prog, []byte(script), 0o755))
			must(t, os.MkdirAll(w.root+"/hooks", 0o755))
			for _, h := range []string{"post-index-change", "pre-commit", "post-checkout", "reference-transaction", "fsmonitor-watchman"} {
				must(t, os.WriteFile(w.root+"/hooks/"+h, []byte(script), 0o755))
			}
			w.signedHistory(t)
			w.write(t, map[string]string{"repo/.gitattributes": "* diff=x filter=x merge=x\n"})
			must(t, os.WriteFile(w.repo+"/a.txt", []byte("two\n"), 0o644))
			old := time.Now().Add(-time.Hour)
			cfg := rowExample(row, prog, w.root)
			file := w.repo + "/.git/config"
			if r.scope == ScopeGlobal {
				file = w.home + "/.gitconfig"
			}
			f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
			must(t, err)
			_, err = f.WriteString(cfg)
			must(t, err)
			must(t, f.Close())
			var ran []string
			for i, cmd := range ReadCommands {
				_ = os.RemoveAll(mark)
				// b.txt's content is unchanged, its mtime not (another
				// for each command): a refresh rewrites its index entry.
				at := old.Add(time.Duration(i) * time.Minute)
				must(t, os.Chtimes(w.repo+"/b.txt", at, at))
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				c := exec.CommandContext(ctx, "git", strings.Fields(cmd)...)
				c.Dir, c.Env = w.repo, w.environ()
				out, _ := c.CombinedOutput()
				cancel()
				if _, err := os.Stat(mark); err == nil {
					ran = append(ran, cmd)
				}
				_ = out
			}
			want := slices.Clone(row.Runs)
			if want == nil {
				want = []string{}
			}
			if ran == nil {
				ran = []string{}
			}
			if diff := cmp.Diff(want, ran); diff != "" {
				t.Errorf("%s: the commands that run it (-table +git):\n%s\nconfig:\n%s", name, diff, cfg)
			}
		})
	}
}

// signedHistory commits a.txt and b.txt in a commit that carries a (fake)
// signature, so that log.showSignature makes git log verify it.
func (w *world) signedHistory(t *testing.T) {
	t.Helper()
	must(t, os.WriteFile(w.repo+"/a.txt", []byte("one\n"), 0o644))
	must(t, os.WriteFile(w.repo+"/b.txt", []byte("same\n"), 0o644))
	w.git(t, w.repo, "add", "a.txt", "b.txt")
	tree := strings.TrimSpace(w.git(t, w.repo, "write-tree"))
	commit := "tree " + tree + "\nauthor A <a@example.invalid> 1700000000 +0000\ncommitter A <a@example.invalid> 1700000000 +0000\n" +
		"gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nsigned\n"
	p := filepath.Join(w.root, "commit")
	must(t, os.WriteFile(p, []byte(commit), 0o644))
	id := strings.TrimSpace(w.git(t, w.repo, "hash-object", "-t", "commit", "-w", p))
	w.git(t, w.repo, "update-ref", "refs/heads/main", id)
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestHelpers: which settings ask, by scope: every row in the
// repository's own configuration; in the user's, the value git uses of a
// key a read-only command runs, not the settings a developer keeps there.
func TestHelpers(t *testing.T) {
	e := func(scope Scope, name, value string) Entry {
		return Entry{Scope: scope, File: string(scope), Name: name, Value: value}
	}
	cfg := &Config{Entries: []Entry{
		e(ScopeSystem, "credential.helper", "store"),
		e(ScopeGlobal, "core.pager", "delta"),
		e(ScopeGlobal, "core.editor", "vim"),
		e(ScopeGlobal, "core.fsmonitor", "true"),
		e(ScopeGlobal, "diff.external", "difft"),
		e(ScopeGlobal, "trace2.eventtarget", "/tmp/t"),
		e(ScopeGlobal, "filter.lfs.process", "git-lfs filter-process"),
		e(ScopeGlobal, "filter.lfs.clean", "git-lfs  clean -- %f"),
		e(ScopeGlobal, "filter.crypt.process", "git-crypt filter-process"),
		e(ScopeLocal, "filter.lfs2.process", "git-lfs filter-process"),
		e(ScopeLocal, "lfs.extension.ok.clean", "./ext %f"),
		e(ScopeLocal, "lfs.storage", "/elsewhere"),
		e(ScopeGlobal, "alias.st", "!evil"),
		e(ScopeGlobal, "log.showsignature", "false"),
		e(ScopeGlobal, "core.hookspath", "~/hooks"),
		e(ScopeLocal, "core.hookspath", ".githooks"),
		e(ScopeLocal, "core.pager", "./pager"),
		e(ScopeLocal, "trace2.eventtarget", "/tmp/t"),
		e(ScopeLocal, "core.fsmonitor", "true"),
		e(ScopeCommand, "diff.external", "./x"),
		e(ScopeWorktree, "filter.x.smudge", "./s"),
	}}
	var got []string
	for _, h := range Helpers(cfg, "st") {
		got = append(got, string(h.Scope)+" "+h.Name)
	}
	want := []string{
		"global trace2.eventtarget",
		"local filter.lfs2.process",
		"local lfs.extension.ok.clean",
		"local lfs.storage",
		"global alias.st",
		"local core.hookspath",
		"local core.pager",
		"local core.fsmonitor",
		"command diff.external",
		"worktree filter.x.smudge",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("helpers (-want +got):\n%s", diff)
	}
	drivers := []string{}
	for k := range Drivers(cfg) {
		drivers = append(drivers, k)
	}
	slices.Sort(drivers)
	if diff := cmp.Diff([]string{"filter=crypt", "filter=lfs2", "filter=x"}, drivers); diff != "" {
		t.Errorf("drivers (-want +got):\n%s", diff)
	}
}

// TestFileKeysPrintTheFile holds each row of FileKeys to the real git:
// with the key in the repository's config naming a file outside it, the
// row's command prints a line of that file.
func TestFileKeysPrintTheFile(t *testing.T) {
	needGit(t)
	const canary = "https://u:canary-token-7f3a@example.invalid"
	for _, row := range FileKeys {
		for _, cmd := range row.Commands {
			t.Run(row.Section+"."+row.Key+" "+cmd, func(t *testing.T) {
				w := newWorld(t)
				must(t, os.WriteFile(w.repo+"/a.txt", []byte("one\n"), 0o644))
				w.git(t, w.repo, "add", "a.txt")
				w.git(t, w.repo, "-c", "user.name=A", "-c", "user.email=a@example.invalid", "commit", "-q", "-m", "one")
				// A line whose first word is the path (an attributes
				// file's pattern) and the canary, as ~/.netrc's "machine
				// h login u password SECRET" is.
				secret := filepath.Join(w.home, "secret")
				must(t, os.WriteFile(secret, []byte("a.txt "+canary+"\n"), 0o600))
				w.git(t, w.repo, "config", row.Section+"."+row.Key, secret)
				args := []string{cmd, "a.txt"}
				if cmd == "check-attr" {
					args = []string{cmd, "-a", "a.txt"} // every attribute
				}
				c := exec.Command("git", args...)
				c.Dir, c.Env = w.repo, w.environ()
				b, _ := c.CombinedOutput() // an error prints it
				out := string(b)
				if !strings.Contains(out, canary) {
					t.Errorf("git %s with %s.%s = %s did not print the file's line:\n%s", cmd, row.Section, row.Key, secret, out)
				}
			})
		}
	}
}

// TestSignatureFormatMatchesGit holds SignatureFormat to the real git: a
// format it passes never makes git log verify the signed commit (run
// gpg.program), and one git verifies with is never passed; the names of
// formats of the configuration (pretty.<name>) are all refused, those
// that verify and those that do not.
func TestSignatureFormatMatchesGit(t *testing.T) {
	needGit(t)
	w := newWorld(t)
	mark := w.root + "/ran"
	prog := w.root + "/prog"
	must(t, os.WriteFile(prog, []byte("#!/bin/sh\necho ran >> "+mark+"\nexit 1\n"), 0o755))
	w.signedHistory(t)
	w.write(t, map[string]string{"home/.gitconfig": "[gpg]\n\tprogram = " + prog +
		"\n[pretty]\n\tsg = %h %G?\n\tmed = %GK\n\tsafe = %h\n\tfulle = %GS\n"})
	cases := []struct {
		format string
		want   bool // SignatureFormat's answer
		runs   bool // git runs gpg.program
	}{
		{"oneline", false, false}, {"ONELINE", false, false}, {"medium", false, false},
		{"fuller", false, false}, {"raw", false, false}, {"email", false, false},
		{"%h %s", false, false}, {"%%G", false, false}, {"%%%%GK", false, false}, {"%", false, false},
		{"tformat:%an", false, false}, {"format:G", false, false}, {"x%Cred%G", true, true},
		{"%G?", true, true}, {"%GK", true, true}, {"%h%GS", true, true}, {"%%%GK", true, true},
		{"tformat:%GG", true, true}, {"format:%GF", true, true}, {"%GP", true, true}, {"%GT", true, true},
		// Names git looks up in the configuration: the shortest format
		// a name begins wins, so "med" is pretty.med, not medium, and
		// "fulle" pretty.fulle, not fuller.
		{"sg", true, true}, {"SG", true, false}, {"med", true, true}, {"fulle", true, true},
		{"safe", true, false}, {"nosuch", true, false},
	}
	for _, c := range cases {
		_ = os.Remove(mark)
		_, _ = w.gitErr(w.repo, "log", "-1", "--format="+c.format)
		_, err := os.Stat(mark)
		runs := err == nil
		got := SignatureFormat(c.format)
		if got != c.want || runs != c.runs {
			t.Errorf("--format=%s: SignatureFormat %v, git ran gpg.program %v; want %v, %v", c.format, got, runs, c.want, c.runs)
		}
		if runs && !got {
			t.Errorf("--format=%s: git verifies signatures, SignatureFormat passes it", c.format)
		}
	}
}

// TestPrintedFilesMatchGit: a git directory file replaced by a link to a
// file holding a canary (as ~/.netrc holds a password) makes one of a set
// of read-only commands print the canary exactly when PrintedFiles lists
// it.
func TestPrintedFilesMatchGit(t *testing.T) {
	needGit(t)
	// The files of a paused operation print only in that state
	// (TestPrintedStateFilesMatchGit).
	candidates := slices.DeleteFunc(slices.Clone(PrintedFiles), stateFile)
	candidates = append(candidates, "HEAD", "FETCH_HEAD", "ORIG_HEAD", "logs/HEAD", "logs/refs/heads/main",
		"refs/heads/main", "refs/heads/x", "description", "info/exclude", "index", "commondir")
	cmds := [][]string{{"status"}, {"log", "--oneline", "-1"}, {"show-ref"}, {"for-each-ref"}, {"reflog"}, {"log", "-1", "FETCH_HEAD"},
		{"log", "-1", "ORIG_HEAD"}, {"check-attr", "-a", "machine"}, {"check-ignore", "-v", "--no-index", "machine"}, {"describe", "--all"}, {"branch", "-a"}}
	for _, name := range candidates {
		w := newWorld(t)
		w.signedHistory(t)
		head := strings.TrimSpace(w.git(t, w.repo, "rev-parse", "HEAD"))
		w.git(t, w.repo, "update-ref", "ORIG_HEAD", head)
		w.write(t, map[string]string{"repo/.git/FETCH_HEAD": head + "\t\tbranch 'main' of x\n",
			"secret": "machine example.com login demo password sgcanary0123\n"})
		p := filepath.Join(w.repo, ".git", filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		must(t, os.Symlink(filepath.Join(w.root, "secret"), p))
		var printed []string
		for _, c := range cmds {
			cmd := exec.Command("git", c...)
			cmd.Dir, cmd.Env = w.repo, w.environ()
			out, _ := cmd.CombinedOutput() // the errors print it
			if strings.Contains(string(out), "sgcanary0123") {
				printed = append(printed, strings.Join(c, " "))
			}
		}
		if listed := slices.Contains(PrintedFiles, name); listed != (len(printed) > 0) {
			t.Errorf(".git/%s a link to a secret: listed in PrintedFiles %v, git printed it in %q", name, listed, printed)
		}
	}
}

// stateFile reports a file of PrintedFiles that a paused rebase, merge or
// bisect leaves.
func stateFile(name string) bool {
	return strings.HasPrefix(name, "rebase-") || strings.HasPrefix(name, "worktrees/") || name == "BISECT_START" || name == "MERGE_HEAD"
}

// printedFile reports whether a name of a git directory's file is one of
// PrintedFiles (a glob there matching it).
func printedFile(name string) bool {
	return slices.ContainsFunc(PrintedFiles, func(g string) bool {
		ok, _ := path.Match(g, name)
		return ok
	})
}

// TestPrintedStateFilesMatchGit: the files a paused rebase (merge backend
// and apply backend), a merge with a conflict and a bisect leave in the
// git directory, each replaced by a link to a file holding a canary, make
// git status, git branch or git blame print the canary exactly when
// PrintedFiles lists the file: .git/rebase-merge/onto linked to ~/.netrc
// made git status print its password as the commit the rebase is onto
// (redrepo2, git 2.39.5).
func TestPrintedStateFilesMatchGit(t *testing.T) {
	needGit(t)
	env := func(w *world) {
		for k, v := range map[string]string{"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.invalid",
			"GIT_COMMITTER_NAME": "A", "GIT_COMMITTER_EMAIL": "a@example.invalid", "GIT_EDITOR": "true", "GIT_PAGER": "cat"} {
			w.env[k] = v
		}
	}
	states := []struct {
		name string
		args [][]string // run in order; failures (a conflict) are expected
	}{
		{"rebase-merge", [][]string{{"-c", "sequence.editor=sed -i 1s/^pick/edit/", "rebase", "-q", "-i", "side"}}},
		{"rebase-apply", [][]string{{"rebase", "--apply", "-q", "side"}}},
		{"merge", [][]string{{"merge", "-q", "side"}}},
		{"bisect", [][]string{{"bisect", "start", "main", "main~2"}}},
		{"worktree", [][]string{{"worktree", "add", "-q", "../wt1"}, {"worktree", "lock", "--reason", "kept", "../wt1"}}},
	}
	cmds := [][]string{{"status"}, {"branch"}, {"blame", "f"}, {"log", "--oneline", "-1"}, {"describe", "--all"},
		{"worktree", "list", "-v"}, {"worktree", "list", "--porcelain"}}
	for _, st := range states {
		t.Run(st.name, func(t *testing.T) {
			w := newWorld(t)
			env(w)
			must(t, os.RemoveAll(w.repo))
			must(t, os.MkdirAll(w.repo, 0o755))
			w.git(t, w.repo, "init", "-q", "-b", "main")
			commit := func(file, content string) {
				must(t, os.WriteFile(filepath.Join(w.repo, file), []byte(content), 0o644))
				w.git(t, w.repo, "add", file)
				w.git(t, w.repo, "commit", "-q", "-m", file+" "+strings.TrimSpace(content))
			}
			commit("f", "one\n")
			w.git(t, w.repo, "checkout", "-q", "-b", "side")
			commit("f", "side\n")
			commit("g", "side\n")
			w.git(t, w.repo, "checkout", "-q", "main")
			commit("f", "main\n")
			commit("h", "main\n")
			for _, a := range st.args {
				_, _ = w.gitErr(w.repo, a...)
			}
			secret := filepath.Join(w.root, "secret")
			must(t, os.WriteFile(secret, []byte("machine example.com login demo password sgcanary0123\n"), 0o644))
			// The state's files: every regular file of the git directory
			// but its objects, hooks, refs and logs (TestPrintedFilesMatchGit
			// holds those).
			var names []string
			gitdir := filepath.Join(w.repo, ".git")
			must(t, filepath.WalkDir(gitdir, func(p string, d os.DirEntry, err error) error {
				if err != nil {
					return err
				}
				rel, _ := filepath.Rel(gitdir, p)
				if d.IsDir() && (rel == "objects" || rel == "hooks" || rel == "refs" || rel == "logs") {
					return filepath.SkipDir
				}
				if d.Type().IsRegular() {
					names = append(names, filepath.ToSlash(rel))
				}
				return nil
			}))
			if !slices.Contains(names, "index") || len(names) < 6 {
				t.Fatalf("the %s state left %q", st.name, names)
			}
			for _, name := range names {
				if printedFile(name) && !stateFile(name) {
					continue // packed-refs: TestPrintedFilesMatchGit
				}
				p := filepath.Join(gitdir, filepath.FromSlash(name))
				orig, err := os.ReadFile(p)
				must(t, err)
				must(t, os.Remove(p))
				must(t, os.Symlink(secret, p))
				var printed []string
				for _, c := range cmds {
					out, _ := w.gitErr(w.repo, c...)
					if strings.Contains(out, "sgcanary0123") {
						printed = append(printed, strings.Join(c, " "))
					}
				}
				must(t, os.Remove(p))
				must(t, os.WriteFile(p, orig, 0o644))
				if listed := printedFile(name); listed != (len(printed) > 0) {
					t.Errorf("%s: .git/%s a link to a secret: listed in PrintedFiles %v, git printed it in %q", st.name, name, listed, printed)
				}
			}
		})
	}
}
