package confirm

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/shellgate/shellgate/corpus"
)

// Fire is the evidence a trap leaves when the real program falls into it.
type Fire string

// The kinds of evidence.
const (
	// FireMarker: a program the trap planted ran (a file under
	// $SG_MARKERS).
	FireMarker Fire = "marker"
	// FireNetwork: the program connected to the test's 127.0.0.1
	// listener, or the trace shows it connect.
	FireNetwork Fire = "network"
	// FireCanary: the output holds a secret planted outside the
	// workspace.
	FireCanary Fire = "canary"
	// FireConfig: shellgate's own project configuration is not read as
	// configuration (checked in Go, no program runs).
	FireConfig Fire = "config"
)

// Trap is one thing a hostile workspace or home plants: a file (or a few)
// that turns a command shellgate allows in a plain repository into one that
// runs code, reaches the network or prints a secret. A new trap is one
// entry of [Traps].
type Trap struct {
	// Name is the trap's short name (a test row's name).
	Name string
	// Doc says what the trap does.
	Doc string
	// Files are the planted files: relative to the workspace, "~/…" in
	// the home directory, "../…" in the workspace's parent.
	Files []string
	// Names are strings one of which a reason must contain (the planted
	// file, as a reason would name it); nil: each of Files without its
	// "~/" or "../".
	Names []string
	// Commands are the commands the trap turns harmful ({dir}, {work} and
	// {home} stand for the workspace's directories, {path} for its PATH).
	Commands []string
	// NoRow says why the trap has no command (no acceptance row): it is
	// planted for TestConfirmHostile only.
	NoRow string
	// Plain are the commands' harmless spellings where the trap is in the
	// command itself (one per command); nil: Commands.
	Plain []string
	// Tools are the programs the commands need besides git (a missing one
	// skips the row off CI and fails it in CI).
	Tools []string
	// Fires is the evidence the trap leaves when a command falls into it.
	Fires Fire
	// Env is added to the command's environment (and to the gate's
	// process while it decides).
	Env []string
	// Denies: the planted workspace's commands are denied in default mode
	// too, not asked about: a .shellgate.yaml shellgate cannot read hides
	// the project's rules, so no person can approve a command knowing
	// what they would have said.
	Denies bool
	// Alone keeps the trap out of [NewHostile]'s shared workspace: it
	// changes what the repository is (its work tree, its .git), or fires
	// in any bash.
	Alone bool
	// Plant lays the trap in a workspace.
	Plant func(w *Workspace) error
}

// Workspace is a repository (Work) with a home directory (Home) under
// Dir: a plain one ([NewPlain]) or a hostile one ([NewHostile]).
type Workspace struct {
	// Dir holds everything; Work is the repository, the cwd of a case;
	// Home the home directory; Markers where the marker program writes
	// ($SG_MARKERS); Marker the marker program.
	Dir, Work, Home, Markers, Marker string
	// Net is the 127.0.0.1 host:port every network trap points at.
	Net string
	// Env is the environment of a command run in the workspace.
	Env []string
	// Canaries maps each canary string to where it was planted.
	Canaries map[string]string
	// finish are the steps Finish runs.
	finish []func() error
}

// Path resolves a trap's file name: "~/…" in Home, anything else relative
// to Work ("../go.work" is in the parent).
func (w *Workspace) Path(p string) string {
	if p == "~" {
		return w.Home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(w.Home, filepath.FromSlash(p[2:]))
	}
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(w.Work, filepath.FromSlash(p))
}

// Write writes a file (a name as Path takes it), making its directories;
// a content that starts with "#!" is executable.
func (w *Workspace) Write(p, content string) error {
	full := w.Path(p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if strings.HasPrefix(content, "#!") {
		mode = 0o755
	}
	return os.WriteFile(full, []byte(content), mode)
}

// Append appends to a file (made when missing).
func (w *Workspace) Append(p, content string) error {
	full := w.Path(p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(full, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Git runs git in dir (a name as Path takes it) for planting: no system or
// global config, and none of the repository's helpers (fsmonitor, hooks)
// run while the traps are laid.
func (w *Workspace) Git(dir string, args ...string) (string, error) {
	empty := filepath.Join(w.Dir, "no-hooks")
	_ = os.MkdirAll(empty, 0o755)
	full := append([]string{"-c", "core.fsmonitor=false", "-c", "core.hooksPath=" + empty,
		"-c", "user.name=Hostile", "-c", "user.email=hostile@example.invalid", "-c", "protocol.file.allow=always"}, args...)
	cmd := exec.Command("git", full...)
	cmd.Dir = w.Path(dir)
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + w.Home, "LANG=C", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_DATE=2020-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2020-01-01T00:00:00Z", "GIT_TERMINAL_PROMPT=0",
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("git %s in %s: %v: %s", strings.Join(args, " "), dir, err, out)
	}
	return string(out), nil
}

// Canary returns a fresh canary string planted at where.
func (w *Workspace) Canary(where string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	v := "sgcanary" + hex.EncodeToString(b)
	w.Canaries[v] = where
	return v
}

// Expand replaces {dir}, {work}, {home} and {path} (the PATH of the
// workspace's environment) in a command.
func (w *Workspace) Expand(s string) string {
	path := ""
	for _, e := range w.Env {
		if v, ok := strings.CutPrefix(e, "PATH="); ok {
			path = v
		}
	}
	return strings.NewReplacer("{dir}", w.Dir, "{work}", w.Work, "{home}", w.Home, "{path}", path).Replace(s)
}

// FiredMarkers lists the marker files left since the markers directory
// was emptied.
func (w *Workspace) FiredMarkers() []string {
	es, _ := os.ReadDir(w.Markers)
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// markerJS is a node script that leaves a marker (yarnPath, pnpmfile).
const markerJS = "require('fs').writeFileSync(require('path').join(process.env.SG_MARKERS, 'node-' + process.pid), '');\nprocess.exit(0);\n"

// markerSh is a shell rc file that leaves a marker.
const markerSh = ": > \"$SG_MARKERS/rc-$$\"\n"

// gitConfigFsmonitor is a [core] section setting fsmonitor to the marker.
func (w *Workspace) gitConfigFsmonitor() string {
	return "[core]\n\tfsmonitor = " + w.Marker + "\n"
}

// commitFile commits a file (written with content) in the repository.
func (w *Workspace) commitFile(p, content string) error {
	if err := w.Write(p, content); err != nil {
		return err
	}
	if _, err := w.Git(".", "add", "-f", "--", p); err != nil {
		return err
	}
	_, err := w.Git(".", "commit", "-q", "-m", "add "+p)
	return err
}

// stale gives tracked files a new modification time, so that the next
// command that refreshes the index rewrites it (and runs the hook that
// follows an index change).
func (w *Workspace) stale(files ...string) error {
	t := time.Now().Add(time.Duration(len(files)+1) * time.Minute)
	for _, f := range files {
		if err := os.Chtimes(w.Path(f), t, t); err != nil {
			return err
		}
	}
	return nil
}

// Traps is every trap the hostile workspace plants, in planting order
// (NewHostile plants the ones not Alone into one workspace: the ones that
// rewrite the repository come first).
var Traps = []Trap{
	{
		Name: "promisor", Doc: "a partial clone (blob:none) whose promisor remote is the test's 127.0.0.1 listener: reading a missing blob fetches it",
		Files:    []string{".git/config"},
		Commands: []string{"git log -p", "git show", "git log --stat", "git diff", "git grep x HEAD", "git blame README.md", "git cat-file -p HEAD:README.md"},
		Fires:    FireNetwork,
		Plant: func(w *Workspace) error {
			return w.promisor("http://" + w.Net + "/hostile.git")
		},
	},
	{
		Name: "promisor-ext", Doc: "the promisor remote is an ext:: URL (protocol.ext.allow=always): a lazy fetch runs the command in the URL",
		Files:    []string{".git/config"},
		Commands: []string{"git log -p", "git show HEAD~1"},
		Fires:    FireMarker,
		Alone:    true,
		Plant: func(w *Workspace) error {
			if err := w.promisor("ext::" + w.Marker + " %S"); err != nil {
				return err
			}
			return w.Append(".git/config", "[protocol \"ext\"]\n\tallow = always\n")
		},
	},
	{
		Name: "promisor-insteadof", Doc: "the promisor remote's URL looks harmless (https://example.invalid/), and url.<base>.insteadOf rewrites it to the listener",
		Files:    []string{".git/config"},
		Commands: []string{"git log -p", "git show HEAD~1"},
		Fires:    FireNetwork,
		Alone:    true,
		Plant: func(w *Workspace) error {
			if err := w.promisor("https://example.invalid/hostile.git"); err != nil {
				return err
			}
			return w.Append(".git/config", "[url \"http://"+w.Net+"/\"]\n\tinsteadOf = https://example.invalid/\n")
		},
	},
	{
		Name: "promisor-uploadpack", Doc: "the promisor remote is a local path and remote.origin.uploadpack names the program a lazy fetch runs as git-upload-pack",
		Files:    []string{".git/config"},
		Commands: []string{"git log -p", "git show HEAD~1"},
		Fires:    FireMarker,
		Alone:    true,
		Plant: func(w *Workspace) error {
			if err := w.promisor(w.Dir + "/upstream.git"); err != nil {
				return err
			}
			return w.Append(".git/config", "[remote \"origin\"]\n\tuploadpack = "+w.Marker+"\n")
		},
	},
	{
		Name: "diff-driver-command", Doc: "an external diff driver (diff.<driver>.command) chosen by .gitattributes: git diff runs it",
		Files:    []string{".git/config", ".gitattributes"},
		Commands: []string{"git diff"},
		Fires:    FireMarker,
		Alone:    true,
		Plant: func(w *Workspace) error {
			if err := w.Append(".gitattributes", "*.md diff=sgcmd\n"); err != nil {
				return err
			}
			return w.Append(".git/config", "[diff \"sgcmd\"]\n\tcommand = "+w.Marker+"\n")
		},
	},
	{
		Name: "submodule-gitlink", Doc: "a gitlink at depth 2 recorded only in the index (no .gitmodules), whose own .git/config sets core.fsmonitor: git status enters it",
		Files:    []string{"vendor/lib/.git/config"},
		Names:    []string{"vendor/lib"},
		Commands: []string{"git status", "git diff", "git describe --dirty"},
		Fires:    FireMarker,
		Plant: func(w *Workspace) error {
			sub := "vendor/lib"
			if err := w.Write(sub+"/lib.txt", "library\n"); err != nil {
				return err
			}
			if _, err := w.Git(sub, "init", "-q", "-b", "main"); err != nil {
				return err
			}
			if _, err := w.Git(sub, "add", "lib.txt"); err != nil {
				return err
			}
			if _, err := w.Git(sub, "commit", "-q", "-m", "lib"); err != nil {
				return err
			}
			sha, err := w.Git(sub, "rev-parse", "HEAD")
			if err != nil {
				return err
			}
			if _, err := w.Git(".", "update-index", "--add", "--cacheinfo", "160000,"+strings.TrimSpace(sha)+","+sub); err != nil {
				return err
			}
			// git describe --dirty stops at the first change it finds:
			// the repository's own files are left unchanged, so that it
			// reaches the submodule and asks it (git status inside).
			if _, err := w.Git(".", "checkout", "-q", "--", "README.md"); err != nil {
				return err
			}
			return w.Append(sub+"/.git/config", w.gitConfigFsmonitor())
		},
	},
	{
		Name: "textconv", Doc: "a diff driver with a textconv program, chosen for *.txt by a committed .gitattributes",
		Files:    []string{".git/config", ".gitattributes"},
		Commands: []string{"git log -p", "git show", "git diff"},
		Fires:    FireMarker,
		Plant: func(w *Workspace) error {
			if err := w.Append(".gitattributes", "*.conv diff=sgconv\n"); err != nil {
				return err
			}
			if err := w.commitFile("hostile/notes.conv", "x one\n"); err != nil {
				return err
			}
			if err := w.Append("hostile/notes.conv", "x two\n"); err != nil {
				return err
			}
			return w.Append(".git/config", "[diff \"sgconv\"]\n\ttextconv = "+w.Marker+"\n")
		},
	},
	{
		Name: "clean-filter", Doc: "a clean filter on a tracked file whose work tree copy is modified: refreshing the index runs it",
		Files:    []string{".git/config", ".gitattributes"},
		Commands: []string{"git status", "git diff", "git describe --dirty"},
		Fires:    FireMarker,
		Plant: func(w *Workspace) error {
			if err := w.Append(".gitattributes", "*.flt filter=sgclean\n"); err != nil {
				return err
			}
			if err := w.commitFile("hostile/data.flt", "x data\n"); err != nil {
				return err
			}
			// The same size, so that only the content (the filter's
			// output) can tell it changed.
			if err := w.Write("hostile/data.flt", "y data\n"); err != nil {
				return err
			}
			if err := w.Append(".git/config", "[filter \"sgclean\"]\n\tclean = "+w.Marker+"\n"); err != nil {
				return err
			}
			return w.stale("hostile/data.flt")
		},
	},
	{
		Name: "diff-external", Doc: "diff.external: git diff runs it for every changed file",
		Files:    []string{".git/config"},
		Commands: []string{"git diff"},
		Fires:    FireMarker,
		Plant: func(w *Workspace) error {
			if err := w.modified(); err != nil {
				return err
			}
			return w.Append(".git/config", "[diff]\n\texternal = "+w.Marker+"\n")
		},
	},
	{
		Name: "fsmonitor", Doc: "core.fsmonitor in .git/config: every command that reads the index runs it",
		Files:    []string{".git/config"},
		Commands: []string{"git status", "git diff", "git grep x", "git describe --dirty"},
		Fires:    FireMarker,
		Plant:    func(w *Workspace) error { return w.Append(".git/config", w.gitConfigFsmonitor()) },
	},
	{
		Name: "fsmonitor-spelling", Doc: "core.fsmonitor in a spelling git accepts: section and key in mixed case, the value quoted and continued over a line break, on the header's line",
		Files:    []string{".git/config"},
		Commands: []string{"git status"},
		Fires:    FireMarker,
		Alone:    true,
		Plant: func(w *Workspace) error {
			m := w.Marker
			half := len(m) / 2
			return w.Append(".git/config", "[CoRe] FsMonitor = \""+m[:half]+"\\\n"+m[half:]+"\" ; a comment\n")
		},
	},
	{
		Name: "fsmonitor-include", Doc: "core.fsmonitor in a workspace file that .git/config includes (include.path relative to .git)",
		Files:    []string{".git/config", ".hostile/fsmonitor.inc"},
		Names:    []string{".hostile/fsmonitor.inc"},
		Commands: []string{"git status"},
		Fires:    FireMarker,
		Alone:    true,
		Plant: func(w *Workspace) error {
			if err := w.Write(".hostile/fsmonitor.inc", w.gitConfigFsmonitor()); err != nil {
				return err
			}
			return w.Append(".git/config", "[include]\n\tpath = ../.hostile/fsmonitor.inc\n")
		},
	},
	{
		Name: "fsmonitor-includeif", Doc: "core.fsmonitor in a file an includeIf includes (gitdir/i with a glob, and onbranch)",
		Files:    []string{".git/config", ".hostile/gitdir.inc", ".hostile/onbranch.inc"},
		Names:    []string{".hostile/gitdir.inc", ".hostile/onbranch.inc"},
		Commands: []string{"git status"},
		Fires:    FireMarker,
		Alone:    true,
		Plant: func(w *Workspace) error {
			for _, f := range []string{"gitdir", "onbranch"} {
				if err := w.Write(".hostile/"+f+".inc", w.gitConfigFsmonitor()); err != nil {
					return err
				}
			}
			return w.Append(".git/config", "[includeIf \"gitdir/i:**/\"]\n\tpath = ../.hostile/gitdir.inc\n[includeIf \"onbranch:m*\"]\n\tpath = ../.hostile/onbranch.inc\n")
		},
	},
	{
		Name: "fsmonitor-worktree-config", Doc: "core.fsmonitor in .git/config.worktree, read when extensions.worktreeConfig is set",
		Files:    []string{".git/config.worktree"},
		Commands: []string{"git status"},
		Fires:    FireMarker,
		Alone:    true,
		Plant: func(w *Workspace) error {
			if err := w.Append(".git/config", "[extensions]\n\tworktreeConfig = true\n"); err != nil {
				return err
			}
			if _, err := w.Git(".", "config", "core.repositoryformatversion", "1"); err != nil {
				return err
			}
			return w.Write(".git/config.worktree", w.gitConfigFsmonitor())
		},
	},
	{
		Name: "gitfile", Doc: "the repository's .git is a file pointing at a directory elsewhere in the workspace, whose config sets core.fsmonitor",
		Files:    []string{".git", ".hidden-git/config"},
		Names:    []string{".hidden-git"},
		Commands: []string{"git status"},
		Fires:    FireMarker,
		Alone:    true,
		Plant: func(w *Workspace) error {
			if err := os.Rename(w.Path(".git"), w.Path(".hidden-git")); err != nil {
				return err
			}
			if err := w.Write(".git", "gitdir: .hidden-git\n"); err != nil {
				return err
			}
			return w.Append(".hidden-git/config", w.gitConfigFsmonitor())
		},
	},
	{
		Name: "worktree-commondir", Doc: "the .git file names a linked worktree's directory whose commondir leads to a repository whose config sets core.fsmonitor",
		Files:    []string{".git", ".hidden/main/config", ".hidden/main/worktrees/w/commondir"},
		Names:    []string{".hidden/main"},
		Commands: []string{"git status"},
		Fires:    FireMarker,
		Alone:    true,
		Plant: func(w *Workspace) error {
			if err := os.MkdirAll(w.Path(".hidden"), 0o755); err != nil {
				return err
			}
			if err := os.Rename(w.Path(".git"), w.Path(".hidden/main")); err != nil {
				return err
			}
			wt := ".hidden/main/worktrees/w"
			if err := os.MkdirAll(w.Path(wt), 0o755); err != nil {
				return err
			}
			if err := os.Rename(w.Path(".hidden/main/index"), w.Path(wt+"/index")); err != nil {
				return err
			}
			head, err := os.ReadFile(w.Path(".hidden/main/HEAD"))
			if err != nil {
				return err
			}
			for p, c := range map[string]string{
				wt + "/HEAD": string(head), wt + "/commondir": "../..\n", wt + "/gitdir": w.Work + "/.git\n",
				".git": "gitdir: .hidden/main/worktrees/w\n",
			} {
				if err := w.Write(p, c); err != nil {
					return err
				}
			}
			return w.Append(".hidden/main/config", w.gitConfigFsmonitor())
		},
	},
	{
		Name: "hooks", Doc: ".git/hooks/post-index-change: a command that refreshes a stale index writes it and runs the hook",
		Files:    []string{".git/hooks/post-index-change"},
		Commands: []string{"git status", "git diff", "git describe --dirty"},
		Fires:    FireMarker,
		Plant: func(w *Workspace) error {
			if err := w.Write(".git/hooks/post-index-change", markerScript); err != nil {
				return err
			}
			return w.stale("main.go")
		},
	},
	{
		Name: "hookspath", Doc: "core.hooksPath names a workspace directory holding post-index-change",
		Files:    []string{".git/config", ".githooks/post-index-change"},
		Names:    []string{".githooks", "core.hookspath", "core.hooksPath"},
		Commands: []string{"git status"},
		Fires:    FireMarker,
		Alone:    true, // the shared workspace keeps .git/hooks (the hooks trap)
		Plant: func(w *Workspace) error {
			if err := w.Write(".githooks/post-index-change", markerScript); err != nil {
				return err
			}
			if err := w.Append(".git/config", "[core]\n\thooksPath = .githooks\n"); err != nil {
				return err
			}
			return w.stale("main.go")
		},
	},
	{
		Name: "home-gitconfig", Doc: "core.fsmonitor in the user's ~/.gitconfig (the home is the attacker's too)",
		Files:    []string{"~/.gitconfig"},
		Commands: []string{"git status"},
		Fires:    FireMarker,
		Plant:    func(w *Workspace) error { return w.Append("~/.gitconfig", w.gitConfigFsmonitor()) },
	},
	{
		Name: "home-xdg-gitconfig", Doc: "core.fsmonitor in ~/.config/git/config, git's other user config",
		Files:    []string{"~/.config/git/config"},
		Commands: []string{"git status"},
		Fires:    FireMarker,
		Alone:    true,
		Plant:    func(w *Workspace) error { return w.Append("~/.config/git/config", w.gitConfigFsmonitor()) },
	},
	{
		Name: "core-worktree", Doc: "core.worktree points at ~/.aws, and the index tracks a file named credentials: git diff and grep print the home's secret (a path no deny row covers in the workspace)",
		Files:    []string{".git/config"},
		Names:    []string{".git/config", "core.worktree"},
		Commands: []string{"git diff", "git grep secret"},
		Fires:    FireCanary,
		Alone:    true,
		Plant: func(w *Workspace) error {
			if err := w.Write("~/.aws/credentials", "[default]\naws_secret_access_key = "+w.Canary("~/.aws/credentials")+"\n"); err != nil {
				return err
			}
			if err := w.commitFile("credentials", "[default]\naws_secret_access_key = none\n"); err != nil {
				return err
			}
			rel, err := filepath.Rel(filepath.Join(w.Work, ".git"), w.Path("~/.aws"))
			if err != nil {
				return err
			}
			return w.Append(".git/config", "[core]\n\tworktree = "+rel+"\n")
		},
	},
	{
		Name: "alternates", Doc: "objects/info/alternates borrows the objects of a private repository in the home: a ref into it prints its content",
		Files:    []string{".git/objects/info/alternates"},
		Commands: []string{"git log -p --all", "git show leak"},
		Fires:    FireCanary,
		Alone:    true,
		Plant: func(w *Workspace) error {
			priv := "~/private"
			if err := w.Write(priv+"/secret.txt", "token "+w.Canary("~/private/secret.txt")+"\n"); err != nil {
				return err
			}
			if _, err := w.Git(priv, "init", "-q", "-b", "main"); err != nil {
				return err
			}
			if _, err := w.Git(priv, "add", "secret.txt"); err != nil {
				return err
			}
			if _, err := w.Git(priv, "commit", "-q", "-m", "private"); err != nil {
				return err
			}
			sha, err := w.Git(priv, "rev-parse", "HEAD")
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(w.Path(".git/objects"), w.Path(priv+"/.git/objects"))
			if err != nil {
				return err
			}
			if err := w.Write(".git/objects/info/alternates", rel+"\n"); err != nil {
				return err
			}
			return w.Write(".git/refs/heads/leak", strings.TrimSpace(sha)+"\n")
		},
	},
	{
		Name: "home-format-signature", Doc: "~/.gitconfig's format.pretty has a %G placeholder and gpg.program names a program: plain git log and git show verify the signed commit at HEAD with it (redrepo)",
		Files:    []string{"~/.gitconfig"},
		Commands: []string{"git log", "git show"},
		Fires:    FireMarker,
		Alone:    true, // a signed commit on top of the history
		Plant: func(w *Workspace) error {
			if err := w.signedCommit(); err != nil {
				return err
			}
			return w.Append("~/.gitconfig", "[format]\n\tpretty = %h %G?\n[gpg]\n\tprogram = "+w.Marker+"\n")
		},
	},
	{
		Name: "format-signature-option", Doc: "a --format with a %G placeholder, or --pretty naming a format of ~/.gitconfig that has one, verifies the signed commit at HEAD with ~/.gitconfig's gpg.program (redrepo)",
		Files:    []string{"~/.gitconfig"},
		Names:    []string{"--format", "--pretty"},
		Commands: []string{"git log --format=%GK", "git show -s --pretty=tformat:%GS", "git log --pretty=sg", "git reflog --format=%GK"},
		Plain:    []string{"git log --format=%h", "git show -s --pretty=tformat:%s", "git log --pretty=oneline", "git reflog --format=%h"},
		Fires:    FireMarker,
		Alone:    true, // a signed commit on top of the history
		Plant: func(w *Workspace) error {
			if err := w.signedCommit(); err != nil {
				return err
			}
			return w.Append("~/.gitconfig", "[pretty]\n\tsg = %h %G?\n[gpg]\n\tprogram = "+w.Marker+"\n")
		},
	},
	{
		Name: "config-include-credentials", Doc: ".git/config includes ~/.cargo/credentials.toml (TOML that git reads as config): git config prints the registry token it holds (redrepo)",
		Files:    []string{".git/config", "~/.cargo/credentials.toml"},
		Names:    []string{"credentials.toml"},
		Commands: []string{"git config registry.token", "git config --get-all registry.token", "git config --get registry.token"},
		Fires:    FireCanary,
		// The file is under a deny row: a read of it is denied, not asked.
		Denies: true,
		// In the shared workspace every git config spelling would be
		// denied, and so never confirmed there.
		Alone: true,
		Plant: func(w *Workspace) error {
			if err := w.Write("~/.cargo/credentials.toml", "[registry]\ntoken = \""+w.Canary("~/.cargo/credentials.toml")+"\"\n"); err != nil {
				return err
			}
			return w.Append(".git/config", "[include]\n\tpath = ~/.cargo/credentials.toml\n")
		},
	},
	{
		Name: "path-helper", Doc: "an activated virtualenv's bin, in the workspace, is on PATH and holds gcc, grep and gzip: go env runs gcc through PATH to learn the C compiler's flags, Debian's egrep and zcat are scripts that run grep and gzip through PATH (redrepo)",
		Files:    []string{".venv/bin/gcc", ".venv/bin/grep", ".venv/bin/gzip"},
		Names:    []string{".venv/bin/"},
		Commands: []string{"go env", "egrep x README.md", "zcat README.md"},
		Tools:    []string{"go"},
		Fires:    FireMarker,
		Env:      []string{"PATH={work}/.venv/bin:{path}"},
		Alone:    true, // the PATH is the trap's
		Plant: func(w *Workspace) error {
			for _, n := range []string{"gcc", "cc", "grep", "gzip"} {
				if err := w.Write(".venv/bin/"+n, markerScript); err != nil {
					return err
				}
			}
			return nil
		},
	},
	{
		Name: "gitdir-link-alternates", Doc: ".git/objects/info/alternates is a link to ~/.netrc: every command that reads objects prints its line in an error (\"object directory …<line> does not exist\") (redrepo)",
		Files:    []string{".git/objects/info/alternates"},
		Names:    []string{"objects/info/alternates"},
		Commands: []string{"git status", "git log --oneline -1"},
		Fires:    FireCanary,
		Denies:   true, // ~/.netrc is under a deny row
		Alone:    true, // the alternates trap has the file
		Plant:    func(w *Workspace) error { return w.linkHomeSecret(".git/objects/info/alternates") },
	},
	{
		Name: "gitdir-link-shallow", Doc: ".git/shallow is a link to ~/.netrc: git dies printing its first line (\"bad shallow line: <line>\") (redrepo)",
		Files:    []string{".git/shallow"},
		Commands: []string{"git status", "git log --oneline -1"},
		Fires:    FireCanary,
		Denies:   true,
		Alone:    true, // git dies in every command that walks history
		Plant:    func(w *Workspace) error { return w.linkHomeSecret(".git/shallow") },
	},
	{
		Name: "gitdir-link-packed-refs", Doc: ".git/packed-refs is a link to ~/.netrc: git show-ref dies printing its line (\"unexpected line in .git/packed-refs: <line>\") (redrepo)",
		Files:    []string{".git/packed-refs"},
		Commands: []string{"git show-ref"},
		Fires:    FireCanary,
		Denies:   true,
		Alone:    true, // git dies in every command that lists refs
		Plant:    func(w *Workspace) error { return w.linkHomeSecret(".git/packed-refs") },
	},
	{
		Name: "gitdir-link-attributes", Doc: ".git/info/attributes is a link to ~/.netrc: git check-attr -a prints the words of its lines as attributes (redrepo)",
		Files:    []string{".git/info/attributes"},
		Commands: []string{"git check-attr -a machine"},
		Fires:    FireCanary,
		Denies:   true,
		Alone:    true,
		Plant:    func(w *Workspace) error { return w.linkHomeSecret(".git/info/attributes") },
	},
	{
		Name: "attributesfile-home", Doc: "the repository's core.attributesFile names ~/.netrc: git check-attr -a prints the words of its lines as attributes (redrepo)",
		Files:    []string{".git/config"},
		Names:    []string{"core.attributesfile", ".netrc"},
		Commands: []string{"git check-attr -a machine"},
		Fires:    FireCanary,
		Denies:   true,
		Alone:    true,
		Plant: func(w *Workspace) error {
			return w.Append(".git/config", "[core]\n\tattributesFile = ~/.netrc\n")
		},
	},
	{
		Name: "xdg-attributes-link", Doc: "the user's attributes file, ~/.config/git/attributes (git reads it when core.attributesFile is not set), is a link to ~/.netrc: git check-attr -a prints the words of its lines as attributes (redrepo2)",
		Files:    []string{"~/.config/git/attributes"},
		Names:    []string{".config/git/attributes"},
		Commands: []string{"git check-attr -a machine"},
		Fires:    FireCanary,
		Denies:   true,
		Alone:    true,
		Plant:    func(w *Workspace) error { return w.linkHomeSecret("~/.config/git/attributes") },
	},
	{
		Name: "gitdir-link-rebase-state", Doc: "a paused interactive rebase whose .git/rebase-merge/onto is a link to ~/.netrc: git status prints its line as the commit the rebase is onto (redrepo2)",
		Files:    []string{".git/rebase-merge/onto"},
		Commands: []string{"git status"},
		Fires:    FireCanary,
		Denies:   true,
		Alone:    true, // git status reports a rebase in progress
		Plant: func(w *Workspace) error {
			if err := w.Write(".git/rebase-merge/interactive", ""); err != nil {
				return err
			}
			// git status names the rebase's branch and onto together.
			if err := w.Write(".git/rebase-merge/head-name", "refs/heads/main\n"); err != nil {
				return err
			}
			return w.linkHomeSecret(".git/rebase-merge/onto")
		},
	},
	{
		Name: "gitdir-link-merge-head", Doc: "a merge in progress whose .git/MERGE_HEAD is a link to ~/.netrc: git blame of the work tree reads the merge's parents and prints its line in the error (redrepo2)",
		Files:    []string{".git/MERGE_HEAD"},
		Commands: []string{"git blame README.md"},
		Fires:    FireCanary,
		Denies:   true,
		Alone:    true, // git blame dies
		Plant:    func(w *Workspace) error { return w.linkHomeSecret(".git/MERGE_HEAD") },
	},
	{
		Name: "gitdir-link-worktree-locked", Doc: "a locked linked worktree whose .git/worktrees/wt1/locked (the lock's reason) is a link to ~/.netrc: git worktree list -v and --porcelain print it (redrepo2)",
		Files:    []string{".git/worktrees/wt1/locked"},
		Commands: []string{"git worktree list -v", "git worktree list --porcelain"},
		Fires:    FireCanary,
		Denies:   true,
		Alone:    true, // a worktree beside the workspace
		Plant: func(w *Workspace) error {
			if _, err := w.Git(".", "worktree", "add", "-q", "../wt1"); err != nil {
				return err
			}
			if _, err := w.Git(".", "worktree", "lock", "--reason", "kept", "../wt1"); err != nil {
				return err
			}
			return w.linkHomeSecret(".git/worktrees/wt1/locked")
		},
	},
	{
		Name: "pip-conf-link", Doc: "pip's user config, ~/.config/pip/pip.conf, is a link to ~/.netrc: pip --version prints the line that has no section header (redrepo2)",
		Files:    []string{"~/.config/pip/pip.conf"},
		Names:    []string{".config/pip/pip.conf"},
		Commands: []string{"pip3 --version"},
		Tools:    []string{"pip3"},
		Fires:    FireCanary,
		Denies:   true,
		Alone:    true,
		Plant:    func(w *Workspace) error { return w.linkHomeSecret("~/.config/pip/pip.conf") },
	},
	{
		Name: "magic-link", Doc: "~/.magic (libmagic's user magic) is a link to ~/.netrc: file prints the line it cannot parse (\"offset `<line>' invalid\") (redrepo2)",
		Files:    []string{"~/.magic"},
		Commands: []string{"file README.md"},
		Tools:    []string{"file"},
		Fires:    FireCanary,
		Denies:   true,
		Alone:    true,
		Plant:    func(w *Workspace) error { return w.linkHomeSecret("~/.magic") },
	},
	{
		Name: "config-include-token", Doc: ".git/config includes ~/.vault-token, a token of one word: git reads it as a key outside any section and every command prints it (\"key does not contain a section: <token>\") (redrepo2)",
		Files:    []string{".git/config", "~/.vault-token"},
		Names:    []string{".vault-token"},
		Commands: []string{"git status", "git log --oneline -1"},
		Fires:    FireCanary,
		Denies:   true,
		Alone:    true, // every git command prints it
		Plant: func(w *Workspace) error {
			if err := w.Write("~/.vault-token", w.Canary("~/.vault-token")+"\n"); err != nil {
				return err
			}
			return w.Append(".git/config", "[include]\n\tpath = ~/.vault-token\n")
		},
	},
	{
		Name: "docker-cli-plugin-home", Doc: "~/.docker/cli-plugins holds docker-compose and docker-buildx: docker info and docker help run every plugin there to list it, docker compose and docker buildx run theirs, found there before the system's (redrepo2)",
		Files:    []string{"~/.docker/cli-plugins/docker-compose", "~/.docker/cli-plugins/docker-buildx"},
		Names:    []string{".docker/cli-plugins/docker-"},
		Commands: []string{"docker info", "docker help", "docker compose version", "docker buildx ls", "docker system info"},
		Tools:    []string{"docker"},
		Fires:    FireMarker,
		Alone:    true,
		Plant: func(w *Workspace) error {
			for _, n := range []string{"docker-compose", "docker-buildx"} {
				if err := w.Write("~/.docker/cli-plugins/"+n, markerScript); err != nil {
					return err
				}
			}
			return nil
		},
	},
	{
		Name: "docker-cli-plugin-extra-dirs", Doc: "~/.docker/config.json's cliPluginsExtraDirs names a workspace directory holding a plugin: docker info runs it to list it (redrepo2)",
		Files:    []string{"~/.docker/config.json"},
		Names:    []string{".docker/config.json"},
		Commands: []string{"docker info"},
		Tools:    []string{"docker"},
		Fires:    FireMarker,
		Alone:    true,
		Plant: func(w *Workspace) error {
			if err := w.Write("tools/docker-plugins/docker-sgplug", markerScript); err != nil {
				return err
			}
			return w.Write("~/.docker/config.json", `{"cliPluginsExtraDirs": ["`+w.Path("tools/docker-plugins")+`"]}`+"\n")
		},
	},
	{
		Name: "manpath-home", Doc: "~/.manpath (man-db's user config) adds a workspace directory of pages and DEFINEs nroff as a program: man runs it to format the page (redrepo)",
		Files:    []string{"~/.manpath"},
		Commands: []string{"man sgpage"},
		Tools:    []string{"man"},
		Fires:    FireMarker,
		Alone:    true,
		Plant: func(w *Workspace) error {
			if err := w.Write(".hostile/man/man1/sgpage.1", ".TH SGPAGE 1\n.SH NAME\nsgpage \\- a page\n"); err != nil {
				return err
			}
			return w.Write("~/.manpath", "MANDATORY_MANPATH "+w.Path(".hostile/man")+"\nDEFINE nroff "+w.Marker+"\n")
		},
	},
	{
		Name: "manpath-from-path", Doc: "a workspace directory on PATH (an activated .venv/bin) makes man look for pages in .venv/share/man: its ls page includes ~/.netrc (.so) and man prints it (redrepo)",
		Files:    []string{".venv/share/man/man1/ls.1"},
		Names:    []string{".venv/share/man"},
		Commands: []string{"man ls"},
		Tools:    []string{"man"},
		Fires:    FireCanary,
		Env:      []string{"PATH={work}/.venv/bin:{path}"},
		Alone:    true, // the PATH is the trap's
		Plant: func(w *Workspace) error {
			if err := os.MkdirAll(w.Path(".venv/bin"), 0o755); err != nil {
				return err
			}
			return w.Write(".venv/share/man/man1/ls.1", ".TH LS 1\n.SH NAME\nls \\- list\n.nf\n.so "+w.Path("~/.netrc")+"\n")
		},
	},
	{
		Name: "man-home-path-page", Doc: "~/.local/bin is on PATH, so man looks for pages in ~/.local/share/man: a page of ls there includes ~/.netrc (.so) and man ls prints it (redrepo4)",
		Files:    []string{"~/.local/share/man/man1/ls.1"},
		Names:    []string{".local/share/man/man1/ls.1"},
		Commands: []string{"man ls"},
		Tools:    []string{"man"},
		Fires:    FireCanary,
		Env:      []string{"PATH={home}/.local/bin:{path}"},
		Alone:    true, // the PATH is the trap's
		Plant: func(w *Workspace) error {
			if err := os.MkdirAll(w.Path("~/.local/bin"), 0o755); err != nil {
				return err
			}
			return w.Write("~/.local/share/man/man1/ls.1", ".TH LS 1\n.SH NAME\nls \\- list\n.nf\n.so "+w.Path("~/.netrc")+"\n")
		},
	},
	{
		Name: "man-manpath-home-page", Doc: "MANPATH names a directory of pages in the home directory: a page there includes ~/.netrc (.so) and man prints it (redrepo4)",
		Files:    []string{"~/man-pages/man1/sgpage.1"},
		Names:    []string{"man-pages/man1/sgpage.1"},
		Commands: []string{"man sgpage"},
		Tools:    []string{"man"},
		Fires:    FireCanary,
		Env:      []string{"MANPATH={home}/man-pages"},
		Alone:    true, // the MANPATH is the trap's
		Plant: func(w *Workspace) error {
			return w.Write("~/man-pages/man1/sgpage.1", ".TH SGPAGE 1\n.SH NAME\nsgpage \\- a page\n.nf\n.so "+w.Path("~/.netrc")+"\n")
		},
	},
	{
		Name: "gh-alias-version", Doc: "~/.config/gh/config.yml defines an alias named --version (and --help) that is a shell command (!...): gh looks the first word up as an alias before it handles the option, and runs it (redrepo4)",
		Files:    []string{"~/.config/gh/config.yml"},
		Names:    []string{".config/gh/config.yml"},
		Commands: []string{"gh --version", "gh --help"},
		Tools:    []string{"gh"},
		Fires:    FireMarker,
		Alone:    true,
		Plant: func(w *Workspace) error {
			return w.Write("~/.config/gh/config.yml", "aliases:\n    --version: '!"+w.Marker+"'\n    --help: '!"+w.Marker+"'\n")
		},
	},
	{
		Name: "gh-extension-version", Doc: "an extension directory ~/.local/share/gh/extensions/gh---version: gh finds no command named --version and runs the extension (redrepo4)",
		Files:    []string{"~/.local/share/gh/extensions/gh---version/gh---version"},
		Names:    []string{"extensions/gh---version"},
		Commands: []string{"gh --version"},
		Tools:    []string{"gh"},
		Fires:    FireMarker,
		Alone:    true,
		Plant: func(w *Workspace) error {
			return w.Write("~/.local/share/gh/extensions/gh---version/gh---version", markerScript)
		},
	},
	{
		Name: "rustup-settings-link", Doc: "rustup's settings file ($RUSTUP_HOME/settings.toml, ~/.rustup's) is a link to ~/.netrc: rustup and its proxies quote the line in the TOML parse error (redrepo4)",
		Files:    []string{"~/.rustup/settings.toml"},
		Names:    []string{".rustup/settings.toml"},
		Commands: []string{"rustup --version", "cargo --version"},
		Tools:    []string{"rustup", "cargo"},
		Fires:    FireCanary,
		Env:      []string{"RUSTUP_HOME={home}/.rustup"},
		Denies:   true, // ~/.netrc is under a deny row
		Alone:    true, // RUSTUP_HOME is the trap's
		Plant:    func(w *Workspace) error { return w.linkHomeSecret("~/.rustup/settings.toml") },
	},
	{
		Name: "dpkg-cfg-link", Doc: "~/.dpkg.cfg is a link to a one-word secret (~/.ssh/id_rsa here): dpkg quotes the option it does not know (unknown option '<word>') (redrepo4)",
		Files:    []string{"~/.dpkg.cfg"},
		Commands: []string{"dpkg -l", "dpkg -s dpkg"},
		Tools:    []string{"dpkg"},
		Fires:    FireCanary,
		Denies:   true, // ~/.ssh/id_rsa is under a deny row
		Alone:    true,
		Plant: func(w *Workspace) error {
			return os.Symlink(w.Path("~/.ssh/id_rsa"), w.Path("~/.dpkg.cfg"))
		},
	},
	{
		Name: "dpkg-cfg-admindir", Doc: "~/.dpkg.cfg names an admindir whose status file is a link to a one-word secret: dpkg-query quotes its first word (field name '<word>' must be followed by colon) (redrepo4)",
		Files:    []string{"~/.dpkg.cfg", "~/dpkg-db/status"},
		Names:    []string{".dpkg.cfg"},
		Commands: []string{"dpkg -l"},
		Tools:    []string{"dpkg"},
		Fires:    FireCanary,
		Alone:    true,
		Plant: func(w *Workspace) error {
			if err := os.MkdirAll(w.Path("~/dpkg-db"), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(w.Path("~/.ssh/id_rsa"), w.Path("~/dpkg-db/status")); err != nil {
				return err
			}
			return w.Write("~/.dpkg.cfg", "admindir="+w.Path("~/dpkg-db")+"\n")
		},
	},
	{
		Name: "cargo-help-external", Doc: "a workspace directory on PATH holds cargo-sgx: cargo help sgx runs cargo-sgx --help, an external subcommand (cargo finds them in $CARGO_HOME/bin, ~/.cargo/bin, too) (redrepo4)",
		Files:    []string{".venv/bin/cargo-sgx"},
		Names:    []string{"sgx"},
		Commands: []string{"cargo help sgx"},
		Plain:    []string{"cargo help build"},
		Tools:    []string{"cargo"},
		Fires:    FireMarker,
		Env:      []string{"PATH={work}/.venv/bin:{path}"},
		Alone:    true, // the PATH is the trap's
		Plant:    func(w *Workspace) error { return w.Write(".venv/bin/cargo-sgx", markerScript) },
	},
	{
		Name: "man-config-file", Doc: "man -C names a workspace file as man-db's configuration, whose DEFINE makes nroff a program of the workspace's (redrepo)",
		Files:    []string{".hostile/man.conf"},
		Names:    []string{"-C"},
		Commands: []string{"man -C .hostile/man.conf sgpage"},
		Plain:    []string{"man sgpage"},
		Tools:    []string{"man"},
		Fires:    FireMarker,
		Alone:    true,
		Plant: func(w *Workspace) error {
			if err := w.Write(".hostile/man/man1/sgpage.1", ".TH SGPAGE 1\n.SH NAME\nsgpage \\- a page\n"); err != nil {
				return err
			}
			return w.Write(".hostile/man.conf", "MANDATORY_MANPATH "+w.Path(".hostile/man")+"\nDEFINE nroff "+w.Marker+"\n")
		},
	},
	{
		Name: "cargo-manifest-link", Doc: "Cargo.toml is a link to ~/.netrc: cargo tree and cargo metadata print its line in the TOML parse error (redrepo)",
		Files:    []string{"Cargo.toml"},
		Commands: []string{"cargo tree --frozen", "cargo metadata --frozen --format-version 1"},
		Tools:    []string{"cargo"},
		Fires:    FireCanary,
		Env:      []string{"RUSTUP_TOOLCHAIN=stable"},
		Denies:   true, // ~/.netrc is under a deny row
		Alone:    true, // the workspace's own Cargo.toml
		Plant: func(w *Workspace) error {
			if err := w.Write("src/main.rs", "fn main() {}\n"); err != nil {
				return err
			}
			return w.linkHomeSecret("Cargo.toml")
		},
	},
	{
		Name: "go-mod-link", Doc: "go.mod is a link to ~/.vault-token (one word): go list prints it in the parse error (\"unknown directive: <token>\") (redrepo)",
		Files:    []string{"go.mod"},
		Commands: []string{"go list ./..."},
		Tools:    []string{"go"},
		Fires:    FireCanary,
		Env:      []string{"GOTOOLCHAIN=local"},
		Denies:   true, // ~/.vault-token is under a deny row
		Alone:    true, // the workspace's own go.mod
		Plant: func(w *Workspace) error {
			if err := w.Write("~/.vault-token", "hvs."+w.Canary("~/.vault-token")+"\n"); err != nil {
				return err
			}
			if err := os.Remove(w.Path("go.mod")); err != nil {
				return err
			}
			return os.Symlink(w.Path("~/.vault-token"), w.Path("go.mod"))
		},
	},
	{
		Name: "path-helper-node", Doc: "a workspace directory on PATH holds node: pnpm, installed by npm as a #!/usr/bin/env node script, runs it (redrepo)",
		Files:    []string{"node_modules/.bin/node"},
		Commands: []string{"pnpm list"},
		Tools:    []string{"pnpm"},
		Fires:    FireMarker,
		Env:      []string{"PATH={work}/node_modules/.bin:{path}"},
		Alone:    true, // the PATH is the trap's
		Plant:    func(w *Workspace) error { return w.Write("node_modules/.bin/node", markerScript) },
	},
	{
		Name: "path-shebang-env", Doc: "jq is a version manager's shim (#!/usr/bin/env bash, as asdf's and pyenv's are), outside the workspace, and a workspace directory on PATH holds bash: the shim runs it (redrepo)",
		Files:    []string{".venv/bin/bash"},
		Commands: []string{"jq --version"},
		Tools:    []string{"jq"},
		Fires:    FireMarker,
		Env:      []string{"PATH={dir}/shims:{work}/.venv/bin:{path}"},
		Alone:    true, // the PATH is the trap's
		Plant: func(w *Workspace) error {
			jq, err := exec.LookPath("jq")
			if err != nil {
				return err
			}
			if err := w.Write("../shims/jq", "#!/usr/bin/env bash\nexec "+jq+" \"$@\"\n"); err != nil {
				return err
			}
			return w.Write(".venv/bin/bash", markerScript)
		},
	},
	{
		Name: "rust-toolchain-link", Doc: "the legacy rust-toolchain file is a link to ~/.vault-token (one word): rustup's cargo prints it as the custom toolchain it cannot find (redrepo)",
		Files:    []string{"rust-toolchain"},
		Commands: []string{"cargo --version"},
		Tools:    []string{"rustup", "cargo"},
		Fires:    FireCanary,
		Denies:   true, // ~/.vault-token is under a deny row
		Alone:    true, // one toolchain file a workspace
		Plant: func(w *Workspace) error {
			if err := w.Write("~/.vault-token", "hvs."+w.Canary("~/.vault-token")+"\n"); err != nil {
				return err
			}
			return os.Symlink(w.Path("~/.vault-token"), w.Path("rust-toolchain"))
		},
	},
	{
		Name: "package-json-link", Doc: "package.json is a link to ~/.vault-token: pnpm quotes the first 40 characters of a package.json that does not parse (redrepo)",
		Files:    []string{"package.json"},
		Commands: []string{"pnpm list"},
		Tools:    []string{"pnpm"},
		Fires:    FireCanary,
		Denies:   true, // ~/.vault-token is under a deny row
		Alone:    true, // the workspace's own package.json
		Plant: func(w *Workspace) error {
			if err := w.Write("~/.vault-token", "hvs."+w.Canary("~/.vault-token")+"\n"); err != nil {
				return err
			}
			if err := os.Remove(w.Path("package.json")); err != nil {
				return err
			}
			return os.Symlink(w.Path("~/.vault-token"), w.Path("package.json"))
		},
	},
	{
		Name: "grep-fallback-no-index", Doc: "~/.gitconfig sets grep.fallbackToNoIndex: git grep in a directory that is no repository searches its files as grep -r does, and prints a .env a deny row covers (redrepo)",
		Files:    []string{"~/.gitconfig"},
		Commands: []string{"git grep sgcanary"},
		Fires:    FireCanary,
		Alone:    true, // the workspace is no repository
		Plant: func(w *Workspace) error {
			if err := os.RemoveAll(w.Path(".git")); err != nil {
				return err
			}
			if err := w.Write(".env", "API_KEY="+w.Canary(".env")+"\n"); err != nil {
				return err
			}
			return w.Append("~/.gitconfig", "[grep]\n\tfallbackToNoIndex = true\n")
		},
	},
	{
		Name: "python-user-site-pth", Doc: "a .pth file in the user's site-packages (~/.local/lib/pythonX.Y/site-packages), whose import line every Python program that loads site runs: pip --version and yq (a Python script) run it (redrepo3)",
		Files:    []string{"~/.local/lib/python3/site-packages/sg.pth"},
		Names:    []string{"site-packages"},
		Commands: []string{"pip3 --version", "yq .name package.json"},
		Tools:    []string{"pip3", "yq"},
		Fires:    FireMarker,
		Alone:    true,
		Plant: func(w *Workspace) error {
			site, err := w.userSite()
			if err != nil {
				return err
			}
			return w.Write(site+"/sg.pth", "import os; open(os.path.join(os.environ['SG_MARKERS'], 'pth-%d' % os.getpid()), 'w').close()\n")
		},
	},
	{
		Name: "python-user-site-module", Doc: "a package in the user's site-packages named as the one a Python program imports (pip, yaml): the user site comes before the system's on sys.path, so pip --version and yq run it (redrepo3)",
		Files:    []string{"~/.local/lib/python3/site-packages/pip/__init__.py", "~/.local/lib/python3/site-packages/yaml/__init__.py"},
		Names:    []string{"site-packages"},
		Commands: []string{"pip3 --version", "yq .name package.json"},
		Tools:    []string{"pip3", "yq"},
		Fires:    FireMarker,
		Alone:    true,
		Plant: func(w *Workspace) error {
			site, err := w.userSite()
			if err != nil {
				return err
			}
			for _, m := range []string{"pip", "yaml"} {
				if err := w.Write(site+"/"+m+"/__init__.py", "import os\nopen(os.path.join(os.environ['SG_MARKERS'], 'mod-%d' % os.getpid()), 'w').close()\n"); err != nil {
					return err
				}
			}
			return nil
		},
	},
	{
		Name: "jq-defs-home", Doc: "~/.jq defines length as $ENV.SG_TOKEN: jq and yq (which runs jq) load it into every program, and '.name | length' prints the environment's token (redrepo3)",
		Files:    []string{"~/.jq"},
		Commands: []string{"yq '.name | length' package.json", "jq '.name | length' package.json"},
		Tools:    []string{"yq", "jq"},
		Fires:    FireCanary,
		Env:      []string{"SG_TOKEN=sgcanaryenvtoken0"},
		Alone:    true,
		Plant: func(w *Workspace) error {
			w.Canaries["sgcanaryenvtoken0"] = "$SG_TOKEN"
			return w.Write("~/.jq", "def length: $ENV.SG_TOKEN;\n")
		},
	},
	{
		Name: "rg-config-pre", Doc: "RIPGREP_CONFIG_PATH names ~/.ripgreprc, which says --pre=PROGRAM: rg runs it on every file it searches (redrepo3)",
		Files:    []string{"~/.ripgreprc"},
		Commands: []string{"rg spot", "rg -n spot README.md"},
		Tools:    []string{"rg"},
		Fires:    FireMarker,
		Env:      []string{"RIPGREP_CONFIG_PATH={home}/.ripgreprc"},
		Alone:    true,
		Plant:    func(w *Workspace) error { return w.Write("~/.ripgreprc", "--pre\n"+w.Marker+"\n") },
	},
	{
		Name: "bat-config-file", Doc: "bat's config file (~/.config/bat/config) names ~/.netrc as a file: bat README.md prints it too (redrepo3)",
		Files:    []string{"~/.config/bat/config"},
		Names:    []string{"bat/config"},
		Commands: []string{"batcat README.md", "batcat -n README.md"},
		Tools:    []string{"batcat"},
		Fires:    FireCanary,
		Alone:    true,
		Plant: func(w *Workspace) error {
			return w.Write("~/.config/bat/config", "--style=plain\n"+w.Path("~/.netrc")+"\n")
		},
	},
	{
		Name: "bat-config-link", Doc: "bat's config file is a link to ~/.netrc: bat takes each word as a file to print and names it in the error (\"'<word>': No such file or directory\") (redrepo3)",
		Files:    []string{"~/.config/bat/config"},
		Names:    []string{"bat/config"},
		Commands: []string{"batcat README.md"},
		Tools:    []string{"batcat"},
		Fires:    FireCanary,
		Denies:   true,
		Alone:    true,
		Plant:    func(w *Workspace) error { return w.linkHomeSecret("~/.config/bat/config") },
	},
	{
		Name: "docker-context-tcp", Doc: "~/.docker/config.json makes a context current whose meta.json says the engine is at tcp://HOST: docker ps and docker version connect to it (redrepo3)",
		Files:    []string{"~/.docker/contexts/meta/*/meta.json"},
		Names:    []string{"meta.json"},
		Commands: []string{"docker ps", "docker version", "docker images"},
		Tools:    []string{"docker"},
		Fires:    FireNetwork,
		Alone:    true,
		Plant: func(w *Workspace) error {
			sum := sha256.Sum256([]byte("sgctx"))
			meta := `{"Name":"sgctx","Metadata":{},"Endpoints":{"docker":{"Host":"tcp://` + w.Net + `","SkipTLSVerify":false}}}` + "\n"
			if err := w.Write("~/.docker/contexts/meta/"+hex.EncodeToString(sum[:])+"/meta.json", meta); err != nil {
				return err
			}
			return w.Write("~/.docker/config.json", `{"currentContext": "sgctx"}`+"\n")
		},
	},
	{
		Name: "go-work-use-link", Doc: "go.work uses ./sub, whose go.mod is a link to ~/.vault-token: go list prints it in the parse error (\"unknown directive: <token>\") (redrepo3)",
		Files:    []string{"sub/go.mod", "go.work"},
		Names:    []string{"sub/go.mod"},
		Commands: []string{"go list ./...", "go mod graph"},
		Tools:    []string{"go"},
		Fires:    FireCanary,
		Env:      []string{"GOTOOLCHAIN=local"},
		Denies:   true, // ~/.vault-token is under a deny row
		Alone:    true, // the workspace's own go.work
		Plant: func(w *Workspace) error {
			if err := w.Write("~/.vault-token", "hvs."+w.Canary("~/.vault-token")+"\n"); err != nil {
				return err
			}
			if err := w.Write("go.work", "go 1.21\n\nuse (\n\t.\n\t./sub\n)\n"); err != nil {
				return err
			}
			if err := os.MkdirAll(w.Path("sub"), 0o755); err != nil {
				return err
			}
			return os.Symlink(w.Path("~/.vault-token"), w.Path("sub/go.mod"))
		},
	},
	{
		Name: "cargo-path-dep-link", Doc: "Cargo.toml depends on a path crate, a workspace member and a patch whose Cargo.toml is a link to ~/.netrc: cargo metadata and cargo tree print its line in the TOML error (redrepo3)",
		Files:    []string{"Cargo.toml", "sub/Cargo.toml"},
		Names:    []string{"sub/Cargo.toml"},
		Commands: []string{"cargo metadata --frozen --format-version 1", "cargo tree --frozen"},
		Tools:    []string{"cargo"},
		Fires:    FireCanary,
		Env:      []string{"RUSTUP_TOOLCHAIN=stable"},
		Denies:   true, // ~/.netrc is under a deny row
		Alone:    true, // the workspace's own Cargo.toml
		Plant: func(w *Workspace) error {
			if err := w.Write("Cargo.toml", "[package]\nname = \"plain\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[target.'cfg(unix)'.dependencies.sub]\npath = \"sub\"\n"); err != nil {
				return err
			}
			return w.linkHomeSecret("sub/Cargo.toml")
		},
	},
	{
		Name: "cargo-member-link", Doc: "Cargo.toml's workspace members glob finds crates/a, whose Cargo.toml is a link to ~/.netrc: cargo metadata prints its line in the TOML error (redrepo3)",
		Files:    []string{"Cargo.toml", "crates/a/Cargo.toml"},
		Names:    []string{"crates/a/Cargo.toml"},
		Commands: []string{"cargo metadata --frozen --format-version 1"},
		Tools:    []string{"cargo"},
		Fires:    FireCanary,
		Env:      []string{"RUSTUP_TOOLCHAIN=stable"},
		Denies:   true, // ~/.netrc is under a deny row
		Alone:    true, // the workspace's own Cargo.toml
		Plant: func(w *Workspace) error {
			if err := w.Append("Cargo.toml", "\n[workspace]\nmembers = [\"crates/*\"]\n"); err != nil {
				return err
			}
			return w.linkHomeSecret("crates/a/Cargo.toml")
		},
	},
	{
		Name: "npmrc-link", Doc: "the project's .npmrc is a link to ~/.netrc: npm warns of each line as a config key it does not know, quoting it (Unknown project config \"machine … password …\") (redrepo3)",
		Files:    []string{".npmrc"},
		Commands: []string{"npm ls --no-update-notifier", "npm config get registry --no-update-notifier"},
		Tools:    []string{"npm"},
		Fires:    FireCanary,
		Denies:   true, // ~/.netrc is under a deny row
		Alone:    true,
		Plant:    func(w *Workspace) error { return w.linkHomeSecret(".npmrc") },
	},
	{
		Name: "npmrc-userconfig", Doc: "the project's .npmrc says userconfig=${HOME}/.netrc: npm reads ~/.netrc as the user config and warns of each line as a key it does not know, quoting it (redrepo4)",
		Files:    []string{".npmrc"},
		Names:    []string{"userconfig"},
		Commands: []string{"npm ls --no-update-notifier", "npm config get registry --no-update-notifier"},
		Tools:    []string{"npm"},
		Fires:    FireCanary,
		Denies:   true, // ~/.netrc is under a deny row
		Alone:    true,
		Plant:    func(w *Workspace) error { return w.Write(".npmrc", "userconfig=${HOME}/.netrc\n") },
	},
	{
		Name: "npmrc-prefix-link", Doc: "~/.npmrc says prefix=~/.npm-global, whose etc/npmrc (the global config npm reads) is a link to ~/.netrc: npm quotes its line as a key it does not know (redrepo4)",
		Files:    []string{"~/.npmrc", "~/.npm-global/etc/npmrc"},
		Names:    []string{".npm-global/etc/npmrc"},
		Commands: []string{"npm ls --no-update-notifier"},
		Tools:    []string{"npm"},
		Fires:    FireCanary,
		Denies:   true, // ~/.netrc is under a deny row
		Alone:    true,
		Plant: func(w *Workspace) error {
			if err := w.linkHomeSecret("~/.npm-global/etc/npmrc"); err != nil {
				return err
			}
			return w.Write("~/.npmrc", "prefix=~/.npm-global\n")
		},
	},
	{
		Name: "npmrc-home-link", Doc: "the user's ~/.npmrc is a link to ~/.netrc: npm warns of each line as a user config key it does not know, quoting it (redrepo3)",
		Files:    []string{"~/.npmrc"},
		Commands: []string{"npm ls --no-update-notifier"},
		Tools:    []string{"npm"},
		Fires:    FireCanary,
		Denies:   true, // ~/.netrc is under a deny row
		Alone:    true,
		Plant:    func(w *Workspace) error { return w.linkHomeSecret("~/.npmrc") },
	},
	{
		Name: "hgrc-link", Doc: "the user's ~/.hgrc is a link to ~/.netrc: every hg command, hg --version included, quotes the line it cannot parse (config error at ~/.hgrc:1: <line>) (redrepo3)",
		Files:    []string{"~/.hgrc"},
		Commands: []string{"hg --version"},
		Tools:    []string{"hg"},
		Fires:    FireCanary,
		Denies:   true, // ~/.netrc is under a deny row
		Alone:    true,
		Plant:    func(w *Workspace) error { return w.linkHomeSecret("~/.hgrc") },
	},
	{
		Name: "manpath-link", Doc: "man-db's user config ~/.manpath is a link to ~/.netrc: man quotes the line it cannot parse (can't parse directory list `<line>') (redrepo3)",
		Files:    []string{"~/.manpath"},
		Commands: []string{"man ls", "man -w ls"},
		Tools:    []string{"man"},
		Fires:    FireCanary,
		Denies:   true, // ~/.netrc is under a deny row
		Alone:    true,
		Plant:    func(w *Workspace) error { return w.linkHomeSecret("~/.manpath") },
	},
	{
		Name: "ackrc-files-from", Doc: "~/.ackrc says --files-from=~/.netrc: ack searches the files it lists and names each line it cannot open (ack: <line>: No such file) (redrepo3)",
		Files:    []string{"~/.ackrc"},
		Commands: []string{"ack spot README.md"},
		Tools:    []string{"ack"},
		Fires:    FireCanary,
		Alone:    true,
		Plant:    func(w *Workspace) error { return w.Write("~/.ackrc", "--files-from="+w.Path("~/.netrc")+"\n") },
	},
	{
		Name: "ackrc-project-files-from", Doc: "the project's .ackrc says --files-f=~/.netrc (an abbreviation Getopt::Long takes): ack reads it as ~/.ackrc's (redrepo3)",
		Files:    []string{".ackrc"},
		Commands: []string{"ack spot README.md"},
		Tools:    []string{"ack"},
		Fires:    FireCanary,
		Alone:    true,
		Plant:    func(w *Workspace) error { return w.Write(".ackrc", "--files-f="+w.Path("~/.netrc")+"\n") },
	},
	{
		Name: "shim-bash-env", Doc: "python3 is a version manager's shim (#!/usr/bin/env bash, as pyenv's and asdf's are) and BASH_ENV names ~/.bash_env: the shim's bash sources it before it runs Python (redrepo3)",
		Files:    []string{"~/.bash_env"},
		Names:    []string{".bash_env"},
		Commands: []string{"python3 --version"},
		Tools:    []string{"python3"},
		Fires:    FireMarker,
		Env:      []string{"BASH_ENV={home}/.bash_env", "PATH={dir}/shims:{path}"},
		Alone:    true, // the PATH is the trap's
		Plant: func(w *Workspace) error {
			py, err := exec.LookPath("python3")
			if err != nil {
				return err
			}
			if err := w.Write("../shims/python3", "#!/usr/bin/env bash\nexec "+py+" \"$@\"\n"); err != nil {
				return err
			}
			// Only the shim's bash leaves the marker ($0 is the script), not
			// the harness's own bash -c.
			return w.Write("~/.bash_env", "case \"$0\" in */shims/python3) : > \"$SG_MARKERS/shim-$$\";; esac\n")
		},
	},
	{
		Name: "rg-ignore-whitelist", Doc: "an .ignore file says !.env: rg searches the hidden .env it would skip, and prints the line that matches (redrepo3)",
		Files:    []string{".ignore", ".env"},
		Names:    []string{".ignore"},
		Commands: []string{"rg sgcanary", "rg -n sgcanary ."},
		Tools:    []string{"rg"},
		Fires:    FireCanary,
		Alone:    true,
		Plant: func(w *Workspace) error {
			if err := w.Write(".env", "API_KEY="+w.Canary(".env")+"\n"); err != nil {
				return err
			}
			return w.Write(".ignore", "!.env\n")
		},
	},
	{
		Name: "rg-nested-gitignore-whitelist", Doc: "a .gitignore in a subdirectory says !.*: rg searches the hidden files there (its .env) and prints the line that matches (redrepo3)",
		Files:    []string{"config/.gitignore", "config/.env"},
		Names:    []string{"config/.gitignore"},
		Commands: []string{"rg sgcanary"},
		Tools:    []string{"rg"},
		Fires:    FireCanary,
		Alone:    true,
		Plant: func(w *Workspace) error {
			if err := w.Write("config/.env", "API_KEY="+w.Canary("config/.env")+"\n"); err != nil {
				return err
			}
			return w.Write("config/.gitignore", "!.*\n")
		},
	},
	{
		Name: "rg-exclude-whitelist", Doc: "the repository's .git/info/exclude says !.env: rg reads it as a .gitignore and searches the hidden .env (redrepo3)",
		Files:    []string{".git/info/exclude", ".env"},
		Names:    []string{".git/info/exclude"},
		Commands: []string{"rg sgcanary"},
		Tools:    []string{"rg"},
		Fires:    FireCanary,
		Alone:    true,
		Plant: func(w *Workspace) error {
			if err := w.Write(".env", "API_KEY="+w.Canary(".env")+"\n"); err != nil {
				return err
			}
			return w.Append(".git/info/exclude", "!.env\n")
		},
	},
	{
		Name: "rg-excludes-file-whitelist", Doc: "~/.gitconfig's core.excludesFile names ~/.gitignore_global, which says !.env: rg reads it and searches the workspace's hidden .env (redrepo4)",
		Files:    []string{"~/.gitconfig", "~/.gitignore_global", ".env"},
		Names:    []string{".gitignore_global"},
		Commands: []string{"rg sgcanary"},
		Tools:    []string{"rg"},
		Fires:    FireCanary,
		Alone:    true,
		Plant: func(w *Workspace) error {
			if err := w.Write(".env", "API_KEY="+w.Canary(".env")+"\n"); err != nil {
				return err
			}
			if err := w.Write("~/.gitignore_global", "*.swp\n!.env\n"); err != nil {
				return err
			}
			return w.Append("~/.gitconfig", "[core]\n\texcludesFile = ~/.gitignore_global\n")
		},
	},
	{
		Name: "rg-xdg-excludes-file-whitelist", Doc: "~/.config/git/config's core.excludesFile names a file that says !.env: rg reads it and searches the workspace's hidden .env (redrepo4)",
		Files:    []string{"~/.config/git/config", "~/.config/git/excludes", ".env"},
		Names:    []string{".config/git/excludes"},
		Commands: []string{"rg sgcanary"},
		Tools:    []string{"rg"},
		Fires:    FireCanary,
		Alone:    true,
		Plant: func(w *Workspace) error {
			if err := w.Write(".env", "API_KEY="+w.Canary(".env")+"\n"); err != nil {
				return err
			}
			if err := w.Write("~/.config/git/excludes", "!.env\n"); err != nil {
				return err
			}
			return w.Write("~/.config/git/config", "[core]\n\texcludesfile = "+w.Path("~/.config/git/excludes")+"\n")
		},
	},
	{
		Name: "rg-ignore-file-whitelist", Doc: "the ignore file the command names (rg --ignore-file .myignore) says !.env: rg searches the hidden .env (redrepo4)",
		Files:    []string{".myignore", ".env"},
		Names:    []string{".env"},
		Commands: []string{"rg --ignore-file .myignore sgcanary"},
		Tools:    []string{"rg"},
		Fires:    FireCanary,
		Alone:    true,
		Plant: func(w *Workspace) error {
			if err := w.Write(".env", "API_KEY="+w.Canary(".env")+"\n"); err != nil {
				return err
			}
			return w.Write(".myignore", "!.env\n")
		},
	},
	{
		Name: "rg-global-ignore-whitelist", Doc: "the user's git ignore file (~/.config/git/ignore) says !.env: rg reads it and searches the workspace's hidden .env (redrepo3)",
		Files:    []string{"~/.config/git/ignore", ".env"},
		Names:    []string{".config/git/ignore"},
		Commands: []string{"rg sgcanary"},
		Tools:    []string{"rg"},
		Fires:    FireCanary,
		Alone:    true,
		Plant: func(w *Workspace) error {
			if err := w.Write(".env", "API_KEY="+w.Canary(".env")+"\n"); err != nil {
				return err
			}
			return w.Write("~/.config/git/ignore", "!.env\n")
		},
	},
	{
		Name: "go-mod-go", Doc: "go.mod asks for go 1.99: with GOTOOLCHAIN=auto (Go's default) the go command downloads it from GOPROXY and runs it",
		Files:    []string{"go.mod"},
		Commands: []string{"go version", "go env", "go list ./..."},
		Tools:    []string{"go"},
		Fires:    FireNetwork,
		Alone:    true, // the shared workspace has the toolchain line (go-mod-toolchain)
		Plant: func(w *Workspace) error {
			return w.Write("go.mod", "module example.com/plain\n\ngo 1.99\n")
		},
	},
	{
		Name: "go-mod-toolchain", Doc: "go.mod's toolchain line names go1.99.0",
		Files:    []string{"go.mod"},
		Commands: []string{"go version", "go env", "go list ./..."},
		Tools:    []string{"go"},
		Fires:    FireNetwork,
		Plant: func(w *Workspace) error {
			return w.Write("go.mod", "module example.com/plain\n\ngo 1.21\n\ntoolchain go1.99.0\n")
		},
	},
	{
		Name: "go-work-parent", Doc: "a go.work in the workspace's parent asks for go 1.99",
		Files:    []string{"../go.work"},
		Commands: []string{"go version", "go env", "go list ./..."},
		Tools:    []string{"go"},
		Fires:    FireNetwork,
		Plant: func(w *Workspace) error {
			return w.Write("../go.work", "go 1.99\n\nuse ./"+filepath.Base(w.Work)+"\n")
		},
	},
	{
		Name: "go-env-home", Doc: "the user's go env file (~/.config/go/env, go env -w) sets GOTOOLCHAIN=go1.99.0",
		Files:    []string{"~/.config/go/env"},
		Names:    []string{"go/env"},
		Commands: []string{"go version", "go env"},
		Tools:    []string{"go"},
		Fires:    FireNetwork,
		// The environment's GOTOOLCHAIN would win over the file.
		Env:   []string{"GOTOOLCHAIN="},
		Alone: true, // the shared workspace's go.mod already fires
		Plant: func(w *Workspace) error { return w.Write("~/.config/go/env", "GOTOOLCHAIN=go1.99.0\n") },
	},
	{
		Name: "rust-toolchain-path", Doc: "rust-toolchain.toml names a path toolchain in the workspace: rustup's cargo runs the workspace's cargo",
		Files:    []string{"rust-toolchain.toml"},
		Commands: []string{"cargo --version", "cargo read-manifest"},
		Tools:    []string{"rustup", "cargo"},
		Fires:    FireMarker,
		Plant: func(w *Workspace) error {
			for _, b := range []string{"cargo", "rustc"} {
				if err := w.Write(".hostile/toolchain/bin/"+b, markerScript); err != nil {
					return err
				}
			}
			return w.Write("rust-toolchain.toml", "[toolchain]\npath = \""+w.Path(".hostile/toolchain")+"\"\n")
		},
	},
	{
		Name: "cargo-rustc-wrapper", Doc: ".cargo/config.toml sets build.rustc-wrapper: cargo tree and cargo metadata run it (rustc -vV), --frozen or not",
		Files:    []string{".cargo/config.toml"},
		Commands: []string{"cargo tree --frozen", "cargo metadata --frozen --format-version 1"},
		Tools:    []string{"cargo"},
		Fires:    FireMarker,
		// CI installs the stable toolchain without making it the default.
		Env: []string{"RUSTUP_TOOLCHAIN=stable"},
		Plant: func(w *Workspace) error {
			// A package with a target: cargo reads the manifest, then
			// asks rustc (through the wrapper) for the target's facts,
			// before it finds that --frozen forbids writing Cargo.lock.
			if err := w.Write("src/main.rs", "fn main() {}\n"); err != nil {
				return err
			}
			return w.Write(".cargo/config.toml", "[build]\nrustc-wrapper = \""+w.Marker+"\"\n")
		},
	},
	// TOML's other spellings of the same keys (redteam): rustup and cargo
	// read each for what it says, and so does the station (go-toml).
	rustPathTrap("rust-toolchain-path-dotted", func(p string) string { return "toolchain.path = \"" + p + "\"\n" }),
	rustPathTrap("rust-toolchain-path-escaped", func(p string) string { return "[\"toolchain\"]\n\"pa\\u0074h\" = '" + p + "'\n" }),
	rustPathTrap("rust-toolchain-path-inline", func(p string) string { return "toolchain = { path = \"\"\"" + p + "\"\"\" }\n" }),
	rustPathTrap("rust-toolchain-path-multiline", func(p string) string { return "[toolchain]\npath = \"\"\"\n" + p + "\"\"\"\n" }),
	cargoWrapperTrap("cargo-rustc-wrapper-xesc", "a TOML 1.1 \\x escape and an inline table over several lines (no \"rustc\" on any line)",
		func(m string) string { return "build = {\n  \"\\x72ust\\x63-wrapper\" = \"" + m + "\",\n}\n" }),
	cargoWrapperTrap("cargo-rustc-dotted", "build . rustc, a dotted key with spaces",
		func(m string) string { return "build . rustc = '" + m + "'\n" }),
	{
		Name: "pnpm-package-manager", Doc: "package.json's packageManager names another pnpm: pnpm downloads it from the registry .npmrc names and runs it",
		Files:    []string{"package.json"},
		Commands: []string{"pnpm --version"},
		Tools:    []string{"pnpm"},
		Fires:    FireNetwork,
		Plant: func(w *Workspace) error {
			if err := w.Append(".npmrc", "registry=http://"+w.Net+"/npm/\n"); err != nil {
				return err
			}
			return w.Write("package.json", "{\"name\": \"plain\", \"version\": \"1.0.0\", \"private\": true, \"packageManager\": \"pnpm@9.15.9\"}\n")
		},
	},
	{
		Name: "pnpmfile", Doc: ".pnpmfile.cjs: pnpm loads it for every command that reads the project",
		Files:    []string{".pnpmfile.cjs"},
		Commands: []string{"pnpm list"},
		Tools:    []string{"pnpm"},
		Fires:    FireMarker,
		Plant:    func(w *Workspace) error { return w.Write(".pnpmfile.cjs", markerJS) },
	},
	{
		Name: "pnpm-config-dependencies", Doc: "pnpm-workspace.yaml's configDependencies: pnpm installs them (from the registry) before any command",
		Files:    []string{"pnpm-workspace.yaml"},
		Commands: []string{"pnpm list"},
		Tools:    []string{"pnpm"},
		Fires:    FireNetwork,
		Plant: func(w *Workspace) error {
			return w.Write("pnpm-workspace.yaml", "configDependencies:\n  sg-config: \"1.0.0+sha512-AAAA\"\n")
		},
	},
	{
		Name: "yarn-path", Doc: ".yarnrc's yarn-path: any yarn command runs the release it names",
		Files:    []string{".yarnrc"},
		Commands: []string{"yarn list"},
		Tools:    []string{"yarn"},
		Fires:    FireMarker,
		Plant: func(w *Workspace) error {
			if err := w.Write(".hostile/yarn-release.js", markerJS); err != nil {
				return err
			}
			return w.Write(".yarnrc", "yarn-path \".hostile/yarn-release.js\"\n")
		},
	},
	{
		Name: "yarnrc-yml-path", Doc: ".yarnrc.yml's yarnPath: any yarn command runs the release it names (yarn 1.22 honours it too)",
		Files:    []string{".yarnrc.yml"},
		Commands: []string{"yarn list"},
		Tools:    []string{"yarn"},
		Fires:    FireMarker,
		Alone:    true, // the shared workspace has .yarnrc (and the decoy's .yarnrc.yml holds a token)
		Plant: func(w *Workspace) error {
			if err := w.Write(".hostile/yarn-berry.cjs", markerJS); err != nil {
				return err
			}
			return w.Write(".yarnrc.yml", "yarnPath: .hostile/yarn-berry.cjs\n")
		},
	},
	{
		Name: "zshenv", Doc: "~/.zshenv: every zsh, -c included, sources it",
		Files:    []string{"~/.zshenv"},
		Commands: []string{"zsh -c ls"},
		Tools:    []string{"zsh"},
		Fires:    FireMarker,
		Plant:    func(w *Workspace) error { return w.Write("~/.zshenv", markerSh) },
	},
	{
		Name: "bashrc-ssh", Doc: "~/.bashrc: Debian's bash sources it for bash -c when SSH_CLIENT is set (an agent in an ssh session)",
		Files:    []string{"~/.bashrc"},
		Commands: []string{"bash -c ls"},
		Tools:    []string{"bash"},
		Fires:    FireMarker,
		Env:      []string{"SSH_CLIENT=127.0.0.1 40000 22"},
		Plant:    func(w *Workspace) error { return w.Write("~/.bashrc", markerSh) },
	},
	{
		Name: "bash-env", Doc: "BASH_ENV names ~/.bash_env: every non-interactive bash sources it",
		Files:    []string{"~/.bash_env"},
		Commands: []string{"bash -c ls"},
		Tools:    []string{"bash"},
		Fires:    FireMarker,
		Env:      []string{"BASH_ENV={home}/.bash_env"},
		Alone:    true, // it fires in the harness's own bash
		Plant:    func(w *Workspace) error { return w.Write("~/.bash_env", markerSh) },
	},
	{
		Name: "bash-keyword", Doc: "bash -o keyword makes a trailing NAME=value an assignment: git log obeys GIT_DIR and reads another repository",
		Files:    []string{"../x/.git"},
		Names:    []string{"keyword", "-k"},
		Commands: []string{"bash -o keyword -c 'git log GIT_DIR={dir}/x/.git'", "bash -k -c 'git log GIT_DIR={dir}/x/.git'", "bash +o posix -o keyword -c 'git log GIT_DIR={dir}/x/.git'"},
		Plain:    []string{"bash -c 'git log GIT_DIR={dir}/x/.git'", "bash -c 'git log GIT_DIR={dir}/x/.git'", "bash +o posix -c 'git log GIT_DIR={dir}/x/.git'"},
		Tools:    []string{"bash"},
		Fires:    FireCanary,
		Plant: func(w *Workspace) error {
			x := "../x"
			if err := w.Write(x+"/a.txt", "a\n"); err != nil {
				return err
			}
			if _, err := w.Git(x, "init", "-q", "-b", "main"); err != nil {
				return err
			}
			if _, err := w.Git(x, "add", "a.txt"); err != nil {
				return err
			}
			_, err := w.Git(x, "commit", "-q", "-m", "secret "+w.Canary("../x commit message"))
			return err
		},
	},
	{
		Name: "shellgate-yaml-dir", Doc: "a .shellgate.yaml that is a directory: shellgate must not take it as no configuration",
		Files:    []string{".shellgate.yaml"},
		Commands: []string{"ls"},
		Fires:    FireConfig,
		Denies:   true,
		Alone:    true,
		Plant:    func(w *Workspace) error { return os.MkdirAll(w.Path(".shellgate.yaml/x"), 0o755) },
	},
	{
		Name: "shellgate-yaml-dangling", Doc: "a .shellgate.yaml that is a dangling symlink",
		Files:    []string{".shellgate.yaml"},
		Commands: []string{"ls"},
		Fires:    FireConfig,
		Denies:   true,
		Alone:    true,
		Plant:    func(w *Workspace) error { return os.Symlink("missing.yaml", w.Path(".shellgate.yaml")) },
	},
	{
		Name: "shellgate-yaml-fifo", Doc: "a .shellgate.yaml that is a FIFO: reading it blocks, so shellgate must fail closed at once",
		Files:    []string{".shellgate.yaml"},
		Commands: []string{"ls"},
		Fires:    FireConfig,
		Denies:   true,
		Alone:    true,
		Plant:    func(w *Workspace) error { return syscall.Mkfifo(w.Path(".shellgate.yaml"), 0o644) },
	},
}

// linkHomeSecret replaces the repository file p with a symbolic link to
// the home's ~/.netrc, whose line holds the canary NewPlain planted.
func (w *Workspace) linkHomeSecret(p string) error {
	full := w.Path(p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	if err := os.Remove(full); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return os.Symlink(w.Path("~/.netrc"), full)
}

// userSite returns the user's site-packages directory of the python3 on
// the workspace's PATH ("~/.local/lib/pythonX.Y/site-packages"), asking
// that python3 for its version (isolated: no user site is read).
func (w *Workspace) userSite() (string, error) {
	cmd := exec.Command("python3", "-I", "-c", "import sys; print('%d.%d' % sys.version_info[:2])")
	cmd.Env = w.Env
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("python3's version: %v", err)
	}
	return "~/.local/lib/python" + strings.TrimSpace(string(out)) + "/site-packages", nil
}

// signedCommit puts a commit that carries a (fake) PGP signature on top
// of the history: a command that verifies it runs gpg.program.
func (w *Workspace) signedCommit() error {
	raw, err := w.Git(".", "cat-file", "commit", "HEAD")
	if err != nil {
		return err
	}
	head, msg, ok := strings.Cut(raw, "\n\n")
	if !ok {
		return errors.New("signedCommit: HEAD has no message")
	}
	tree, _, _ := strings.Cut(head, "\n")
	parent, err := w.Git(".", "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	commit := tree + "\nparent " + strings.TrimSpace(parent) + "\nauthor H <h@example.invalid> 1700000000 +0000\ncommitter H <h@example.invalid> 1700000000 +0000\n" +
		"gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nsigned " + strings.TrimSpace(msg) + "\n"
	p := filepath.Join(w.Dir, "signed-commit")
	if err := os.WriteFile(p, []byte(commit), 0o644); err != nil {
		return err
	}
	id, err := w.Git(".", "hash-object", "-t", "commit", "-w", p)
	if err != nil {
		return err
	}
	_, err = w.Git(".", "update-ref", "HEAD", strings.TrimSpace(id))
	return err
}

// modified makes sure README.md differs from the index (git diff has a
// file to show).
func (w *Workspace) modified() error {
	return w.Append("README.md", "changed in the work tree\n")
}

// promisor turns the repository into a partial clone (blob:none) of a
// copy of itself and points the promisor remote at url: the history's
// blobs are missing, so a command that reads one fetches it.
func (w *Workspace) promisor(url string) error {
	// A file only the history holds: its blob stays missing whatever the
	// work tree makes git fetch while the traps are planted.
	if err := w.commitFile("hostile/history.txt", "x in the history\n"); err != nil {
		return err
	}
	if _, err := w.Git(".", "rm", "-q", "hostile/history.txt"); err != nil {
		return err
	}
	if _, err := w.Git(".", "commit", "-q", "-m", "remove hostile/history.txt"); err != nil {
		return err
	}
	server := filepath.Join(w.Dir, "promisor-server.git")
	clone := filepath.Join(w.Dir, "promisor-clone")
	if _, err := w.Git(".", "clone", "-q", "--bare", w.Work, server); err != nil {
		return err
	}
	if _, err := w.Git(server, "config", "uploadpack.allowFilter", "true"); err != nil {
		return err
	}
	if _, err := w.Git(w.Dir, "clone", "-q", "--no-checkout", "--filter=blob:none", "file://"+server, clone); err != nil {
		return err
	}
	if err := os.RemoveAll(w.Path(".git")); err != nil {
		return err
	}
	if err := os.Rename(filepath.Join(clone, ".git"), w.Path(".git")); err != nil {
		return err
	}
	_ = os.RemoveAll(clone)
	// The index from the tree (trees are all here), its stat data from
	// the work tree: hashing the files needs no blob, but a text
	// attribute makes git read the indexed blob, fetched here from the
	// local server.
	if _, err := w.Git(".", "read-tree", "HEAD"); err != nil {
		return err
	}
	if _, err := w.Git(".", "update-index", "-q", "--refresh"); err != nil && !strings.Contains(err.Error(), "needs update") {
		return err
	}
	// The remote moves to url once every trap is planted (planting
	// commits, and a commit may read a blob).
	w.finish = append(w.finish, func() error {
		_ = os.RemoveAll(server)
		for _, kv := range [][2]string{
			{"remote.origin.url", url}, {"remote.origin.promisor", "true"}, {"extensions.partialClone", "origin"},
		} {
			if _, err := w.Git(".", "config", kv[0], kv[1]); err != nil {
				return err
			}
		}
		missing, err := w.Git(".", "rev-list", "--objects", "--missing=print", "--all")
		if err != nil {
			return err
		}
		if !strings.Contains(missing, "\n?") && !strings.HasPrefix(missing, "?") {
			return errors.New("promisor: the partial clone misses no object")
		}
		return nil
	})
	return nil
}

// Finish ends the planting: the steps traps left for after every trap is
// planted (the promisor remote moves to the listener).
func (w *Workspace) Finish() error {
	for _, f := range w.finish {
		if err := f(); err != nil {
			return err
		}
	}
	w.finish = nil
	return nil
}

// NewPlain lays a plain workspace under dir (which must exist): a
// repository with a README, a Go module, a Cargo package and a package.json
// in which nothing is planted, one commit and a tag, README.md modified in
// the work tree; a home directory with a user git config and a .netrc
// that holds a canary. net is the 127.0.0.1 host:port network traps point
// at.
func NewPlain(dir, net string) (*Workspace, error) {
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	w := &Workspace{Dir: dir, Work: filepath.Join(dir, "work"), Home: filepath.Join(dir, "home"),
		Markers: filepath.Join(dir, "markers"), Marker: filepath.Join(dir, "bin", "sg-marker"), Net: net,
		Canaries: map[string]string{}}
	for _, d := range []string{w.Work, w.Home, w.Markers} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	files := map[string]string{
		"~/.gitconfig":  "[user]\n\tname = Plain\n\temail = plain@example.invalid\n",
		"~/.netrc":      "machine example.com login demo password " + w.Canary("~/.netrc") + "\n",
		"~/.ssh/id_rsa": w.Canary("~/.ssh/id_rsa") + "\n",
		"README.md":     "x marks the spot\n",
		"main.go":       "package main\n\nfunc main() {}\n",
		"go.mod":        "module example.com/plain\n\ngo 1.21\n",
		"Cargo.toml":    "[package]\nname = \"plain\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"src/main.rs":   "fn main() {}\n",
		"package.json":  "{\"name\": \"plain\", \"version\": \"1.0.0\", \"private\": true}\n",
		".gitignore":    "target/\nnode_modules/\n",
	}
	for p, c := range files {
		if err := w.Write(p, c); err != nil {
			return nil, err
		}
	}
	if err := w.Write("../bin/sg-marker", markerScript); err != nil {
		return nil, err
	}
	w.Env = baseEnv(w.Home, w.Markers, net)
	for _, s := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "plain"}, {"tag", "v1"}} {
		if _, err := w.Git(".", s...); err != nil {
			return nil, err
		}
	}
	if err := w.modified(); err != nil {
		return nil, err
	}
	return w, w.settle()
}

// settle dates every file an hour back (so that no index entry is racily
// clean) and refreshes the index.
func (w *Workspace) settle() error {
	old := time.Now().Add(-time.Hour)
	_ = filepath.Walk(w.Dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode()&os.ModeSymlink == 0 && fi.Mode()&os.ModeNamedPipe == 0 {
			_ = os.Chtimes(p, old, old)
		}
		return nil
	})
	if _, err := w.Git(".", "update-index", "-q", "--refresh"); err != nil && !strings.Contains(err.Error(), "needs update") {
		return err
	}
	return nil
}

// Plant lays trap t in the workspace (Finish ends the planting); no trap
// may fire while it is planted.
func (w *Workspace) Plant(t Trap) error {
	if err := t.Plant(w); err != nil {
		return fmt.Errorf("planting %s: %w", t.Name, err)
	}
	if m := w.FiredMarkers(); len(m) > 0 {
		return fmt.Errorf("planting %s ran a trap (%d markers)", t.Name, len(m))
	}
	return nil
}

// toolDirs are directories added to a workspace's PATH: where rustup's
// cargo, pnpm and yarn live when they are not in /usr/bin (the test's own
// PATH, and the SHELLGATE_AGENTS prefix .ci/run installs npm tools into).
func toolDirs() []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range []string{"cargo", "rustup", "pnpm", "yarn"} {
		p, err := exec.LookPath(n)
		if err != nil {
			if a := os.Getenv("SHELLGATE_AGENTS"); a != "" {
				p = filepath.Join(a, "node_modules", ".bin", n)
				if _, err := os.Stat(p); err != nil {
					continue
				}
			} else {
				continue
			}
		}
		d := filepath.Dir(p)
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// baseEnv is the environment of a command in a workspace: Go's own
// defaults for the toolchain (GOTOOLCHAIN=auto: a distribution's go.env
// may say local), every registry and download server at net, rustup's
// homes where the test found them.
func baseEnv(home, markers, net string) []string {
	path := "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	if gb := filepath.Join(runtime.GOROOT(), "bin"); runtime.GOROOT() != "" {
		path = gb + ":" + path
	}
	for _, d := range toolDirs() {
		path = d + ":" + path
	}
	env := []string{
		"PATH=" + path, "HOME=" + home, "USER=hostile", "LOGNAME=hostile", "LANG=C.UTF-8", "TERM=dumb",
		"SG_MARKERS=" + markers, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GOTOOLCHAIN=auto", "GOPROXY=http://" + net + "/goproxy", "GOFLAGS=",
		"RUSTUP_DIST_SERVER=http://" + net + "/rustup", "RUSTUP_UPDATE_ROOT=http://" + net + "/rustup",
		"COREPACK_NPM_REGISTRY=http://" + net + "/npm", "npm_config_registry=http://" + net + "/npm/",
		"npm_config_fetch_retries=0", "npm_config_update_notifier=false", "YARN_REGISTRY=http://" + net + "/npm/",
	}
	realHome, _ := os.UserHomeDir()
	for _, v := range []struct{ name, def string }{{"RUSTUP_HOME", ".rustup"}, {"CARGO_HOME", ".cargo"}} {
		p := os.Getenv(v.name)
		if p == "" && realHome != "" {
			p = filepath.Join(realHome, v.def)
		}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			env = append(env, v.name+"="+p)
		}
	}
	return env
}

// Hostile is the decoy with every trap that is not Alone planted in its
// workspace and home.
type Hostile struct {
	*Decoy
	// W is the workspace the traps were planted through (its Env is the
	// decoy's, with the toolchain and network settings of a workspace).
	W *Workspace
	// Planted are the names of the traps planted.
	Planted []string
}

// NewHostile lays a decoy under dir ([NewDecoy], with fixture) and plants
// in it every trap of [Traps] that is not Alone. net is the 127.0.0.1
// host:port its network traps point at.
func NewHostile(dir string, fixture corpus.Fixture, net string) (*Hostile, error) {
	d, err := NewDecoy(dir, fixture)
	if err != nil {
		return nil, err
	}
	w := &Workspace{Dir: d.Dir, Work: d.Work, Home: d.Home, Markers: d.Markers,
		Marker: filepath.Join(d.Dir, "bin", "sg-marker"), Net: net, Canaries: d.Canaries}
	// The decoy's files that traps use.
	for p, c := range map[string]string{"README.md": "x marks the spot\n", "go.mod": "module example.com/plain\n\ngo 1.21\n",
		"main.go": "package main\n\nfunc main() {}\n", "Cargo.toml": "[package]\nname = \"plain\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"src/main.rs": "fn main() {}\n", "package.json": "{\"name\": \"plain\", \"version\": \"1.0.0\", \"private\": true}\n"} {
		if _, err := os.Stat(w.Path(p)); err == nil {
			continue
		}
		if err := w.commitFile(p, c); err != nil {
			return nil, err
		}
	}
	h := &Hostile{Decoy: d, W: w}
	for _, t := range Traps {
		if t.Alone {
			continue
		}
		if err := w.Plant(t); err != nil {
			return nil, err
		}
		h.Planted = append(h.Planted, t.Name)
	}
	if err := w.Finish(); err != nil {
		return nil, err
	}
	// The decoy's environment, with Go's own toolchain default, the
	// servers at net, rustup's homes, and an ssh session (for ~/.bashrc).
	env := d.envWithout("GOTOOLCHAIN", "GOPROXY", "PATH")
	for _, e := range baseEnv(d.Home, d.Markers, net) {
		for _, n := range []string{"PATH=", "GOTOOLCHAIN=", "GOPROXY=", "GOFLAGS=", "RUSTUP", "CARGO_HOME=", "COREPACK", "npm_config_", "YARN_"} {
			if strings.HasPrefix(e, n) {
				env = append(env, e)
			}
		}
	}
	for _, t := range Traps {
		if !t.Alone {
			for _, e := range t.Env {
				env = append(env, w.Expand(e))
			}
		}
	}
	d.Env, w.Env = env, env
	return h, nil
}

// rustPathTrap is the rust-toolchain-path trap with the file spelled by
// body (given the planted toolchain's directory).
func rustPathTrap(name string, body func(dir string) string) Trap {
	return Trap{
		Name: name, Doc: "rust-toolchain.toml names a path toolchain in the workspace, in another TOML spelling: rustup's cargo runs the workspace's cargo",
		Files:    []string{"rust-toolchain.toml"},
		Commands: []string{"cargo --version"},
		Tools:    []string{"rustup", "cargo"},
		Fires:    FireMarker,
		Alone:    true, // one rust-toolchain.toml a workspace
		Plant: func(w *Workspace) error {
			for _, b := range []string{"cargo", "rustc"} {
				if err := w.Write(".hostile/toolchain/bin/"+b, markerScript); err != nil {
					return err
				}
			}
			return w.Write("rust-toolchain.toml", body(w.Path(".hostile/toolchain")))
		},
	}
}

// cargoWrapperTrap is the cargo-rustc-wrapper trap with .cargo/config.toml
// spelled by body (given the marker program).
func cargoWrapperTrap(name, how string, body func(marker string) string) Trap {
	return Trap{
		Name: name, Doc: ".cargo/config.toml names the rustc (or its wrapper) cargo tree runs, spelled as " + how,
		Files:    []string{".cargo/config.toml"},
		Commands: []string{"cargo tree --frozen"},
		Tools:    []string{"cargo"},
		Fires:    FireMarker,
		Env:      []string{"RUSTUP_TOOLCHAIN=stable"},
		Alone:    true, // one .cargo/config.toml a workspace
		Plant: func(w *Workspace) error {
			if err := w.Write("src/main.rs", "fn main() {}\n"); err != nil {
				return err
			}
			return w.Write(".cargo/config.toml", body(w.Marker))
		},
	}
}
