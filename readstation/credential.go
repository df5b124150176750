package readstation

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/shellgate/shellgate/classify"
)

// A repository's git config can hold a credential: actions/checkout keeps
// the job's token in http.<url>.extraheader, and a remote URL can carry a
// password or token (https://x-access-token:TOKEN@github.com/...). Reading
// such a file, or having git print it (git config --list, git remote -v),
// prints the credential: the read is denied, whatever the deny rows say.

// CredentialRow is the Read.Row of a read denied because the git config
// it reads holds a credential.
const CredentialRow = "(a credential in a git config)"

// gitConfigFile reports a path that git reads as configuration: a
// repository's config (…/.git/config, or config in a git directory), the
// user's ~/.gitconfig or $XDG_CONFIG_HOME/git/config.
func gitConfigFile(p string) bool {
	base, dir := filepath.Base(p), filepath.Base(filepath.Dir(p))
	switch {
	case base == ".gitconfig":
		return true
	case base != "config":
		return false
	case dir == ".git" || dir == "git":
		return true
	}
	return isGitDir(filepath.Dir(p))
}

// isGitDir reports a directory that looks like a git directory (a HEAD
// file beside the config): a bare repository, a submodule's or worktree's.
func isGitDir(dir string) bool {
	_, st, _ := readSmallStamp(filepath.Join(dir, "HEAD"))
	return st != (fileStamp{})
}

// gitCredentialStamped is gitCredential, with the files it read and their
// stamps: a tree walk remembers them, so that a changed config is seen.
func (j *judger) gitCredentialStamped(p string) (string, bool, []fileCand) {
	var files []fileCand
	saved := j.record
	j.record = &files
	what, ok := j.gitCredential(p)
	j.record = saved
	return what, ok, files
}

// gitCredential returns the first credential the config file p (with the
// files it includes) holds, named as "key in file". A file of them that
// exists but cannot be read whole (over 1 MiB, not a regular file) is a
// credential that cannot be ruled out: it is returned as "unreadable: …".
func (j *judger) gitCredential(p string) (string, bool) {
	var entries []cfgEntry
	mark := len(j.unreadable)
	j.loadConfig(p, 0, &entries)
	if len(j.unreadable) > mark {
		u := j.unreadable[mark]
		return fmt.Sprintf("%s cannot be read whole: %s", show(u.path), u.why), true
	}
	for _, e := range entries {
		switch {
		case e.section == "http" && e.key == "extraheader":
			return e.name() + " in " + e.file, true
		case (e.key == "url" || e.key == "pushurl") && urlCredential(e.value):
			return e.name() + " in " + e.file, true
		case e.section == "url" && urlCredential(e.sub):
			return "url." + e.sub + " in " + e.file, true
		}
	}
	return "", false
}

// tokenPrefixes start the tokens of the common forges.
var tokenPrefixes = []string{"ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_", "glpat-", "x-access-token", "oauth2", "gitlab-ci-token"}

// urlCredential reports a URL whose user info holds a password, or a user
// name that is a token.
func urlCredential(u string) bool {
	_, rest, ok := strings.Cut(u, "://")
	if !ok {
		return false
	}
	host, _, _ := strings.Cut(rest, "/")
	at := strings.LastIndexByte(host, '@')
	if at < 0 {
		return false
	}
	user, pass, hasPass := strings.Cut(host[:at], ":")
	if hasPass && pass != "" {
		return true
	}
	for _, t := range tokenPrefixes {
		if strings.HasPrefix(user, t) {
			return true
		}
	}
	return len(user) >= 32 // a long opaque user name is a token
}

// judgeGitConfig judges a config file git prints from (PathRef.Source
// "git-config"): git reads it for every command, so only a credential in
// it matters.
func (j *judger) judgeGitConfig(ref *classify.PathRef, rd *Read) {
	text, err := j.absText(ref.Path, ref.Home, false, ref.Cwd)
	if ref.Repo {
		text, err = j.repoText(ref)
		if err != "" {
			rd.set(VerdictOK, "", "not in a repository: no repository config to print")
			return
		}
	}
	if err != "" {
		rd.set(VerdictNotEstablished, "", err)
		return
	}
	text = filepath.Clean(text)
	res := j.fs.resolve(text)
	j.adm.addPath(text, res)
	rd.Resolved, rd.Real = text, res.real
	if res.err != nil {
		rd.set(VerdictNotEstablished, "", fmt.Sprintf("%s cannot be established: %v", show(text), res.err))
		return
	}
	if res.exists && res.mode.IsRegular() {
		if what, ok := j.gitCredential(res.real); ok {
			rd.set(VerdictDenied, CredentialRow, fmt.Sprintf("git would print %s, which holds a credential or cannot be checked for one (%s)", show(text), what))
			return
		}
	}
	rd.set(VerdictOK, "", fmt.Sprintf("%s holds no credential", show(text)))
}
