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
// repository's config (…/.git/config, or config beside a HEAD: a bare
// repository's, a submodule's or worktree's), the user's ~/.gitconfig or
// $XDG_CONFIG_HOME/git/config.
func (j *judger) gitConfigFile(p string) bool {
	base, dir := filepath.Base(p), filepath.Base(filepath.Dir(p))
	switch {
	case base == ".gitconfig":
		return true
	case base != "config":
		return false
	case dir == ".git" || dir == "git":
		return true
	}
	return j.fs.lstat(joinAbs(filepath.Dir(p), "HEAD")).err == nil
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
	if what, ok := denyIncluded(j, p, entries); ok {
		return what, true
	}
	for _, e := range entries {
		switch {
		case e.section == "http" && e.key == "extraheader":
			return e.name() + " in " + e.file, true
		case (e.key == "url" || e.key == "pushurl") && urlCredential(e.value):
			return e.name() + " in " + e.file, true
		case e.section == "url" && urlCredential(e.sub):
			return "url." + e.sub + " in " + e.file, true
		case e.key == "proxy" && urlCredential(e.value):
			// http.proxy, http.<url>.proxy, remote.<name>.proxy
			return e.name() + " in " + e.file, true
		case e.section == "credential" && e.key == "helper" && strings.Contains(e.value, "password="):
			// an inline helper that prints a literal password
			return e.name() + " in " + e.file, true
		case secretKeyName(e.key) && !e.noValue && !isBoolWord(e.value):
			return e.name() + " in " + e.file, true
		}
	}
	return "", false
}

// includedDenied reports a file the config file p includes (include.path,
// includeIf) whose settings git would print and a deny row covers: a
// secret kept in a format git reads as config (~/.cargo/credentials.toml,
// ~/.pypirc) is printed by its key's name (git config registry.token).
func (j *judger) includedDenied(p string) (string, bool) {
	var entries []cfgEntry
	mark := len(j.unreadable)
	j.loadConfig(p, 0, &entries)
	if len(j.unreadable) > mark {
		u := j.unreadable[mark]
		return fmt.Sprintf("includes %s, which cannot be read whole: %s", show(u.path), u.why), true
	}
	return denyIncluded(j, p, entries)
}

// denyIncluded is (*judger).includedDenied over the entries already
// loaded from p.
func denyIncluded(j *judger, p string, entries []cfgEntry) (string, bool) {
	seen := map[string]bool{p: true}
	for _, e := range entries {
		if seen[e.file] {
			continue
		}
		seen[e.file] = true
		real := e.file
		if res := j.fs.resolve(e.file); res.err == nil && res.exists {
			real = res.real
		}
		if row, ok := j.m.denied(real); ok {
			return fmt.Sprintf("includes %s (deny row %q), whose settings (%s) git prints by name", show(e.file), row, e.name()), true
		}
	}
	return "", false
}

// secretKeyName reports a key whose name says it holds a secret: git's
// own sendemail.smtpPass, and the tokens tools keep in git config
// (github.token, hub.oauthtoken, gitlab.token). git config --list printed
// them (redteam).
func secretKeyName(key string) bool {
	if key == "askpass" { // core.askPass names a program
		return false
	}
	for _, w := range []string{"pass", "token", "secret", "apikey", "api-key", "privatekey", "private-key"} {
		if strings.Contains(key, w) {
			return true
		}
	}
	return false
}

// isBoolWord reports a value git reads as a boolean
// (http.sslCertPasswordProtected = true holds no secret).
func isBoolWord(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "true", "false", "yes", "no", "on", "off", "0", "1":
		return true
	}
	return false
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

// judgeGitConfig judges the config files git prints from (PathRef.Source
// "git-config"): the repository's (found from the cwd as git finds it) or
// the user's. git reads them for every command, so only a credential in
// them matters.
func (j *judger) judgeGitConfig(ref *classify.PathRef, rd *Read) {
	var files []string
	if ref.Repo {
		_, gitdir, ok, why := j.cwdRepo(ref.Cwd)
		switch {
		case why != "":
			rd.set(VerdictNotEstablished, "", why)
			return
		case !ok:
			rd.set(VerdictOK, "", "the command runs in no repository: no repository config to print")
			return
		}
		files = configFiles(gitdir, j.commonDir(gitdir))
	} else {
		text, err := j.absText(ref.Path, ref.Home, false, ref.Cwd)
		if err != "" {
			rd.set(VerdictNotEstablished, "", err)
			return
		}
		files = []string{filepath.Clean(text)}
	}
	rd.Resolved = files[0]
	for _, f := range files {
		res := j.fs.resolve(f)
		j.adm.addPath(f, res)
		if res.err != nil {
			rd.set(VerdictNotEstablished, "", fmt.Sprintf("%s cannot be established: %v", show(f), res.err))
			return
		}
		if !res.exists {
			continue
		}
		if row, ok := j.m.denied(res.real); ok && res.real != filepath.Clean(f) {
			rd.Real = res.real
			rd.set(VerdictDenied, row, fmt.Sprintf("git would print %s, a link to %s, which matches deny row %q", show(f), show(res.real), row))
			return
		}
		if ref.Source == "git-config-value" {
			// git prints the values of the keys the command names: only
			// a file the config includes that a deny row covers is
			// printed by a key's name the agent may choose.
			if what, ok := j.includedDenied(res.real); ok {
				rd.Real = res.real
				rd.set(VerdictDenied, CredentialRow, fmt.Sprintf("git would print values from %s, which %s", show(f), what))
				return
			}
			continue
		}
		if what, ok := j.gitCredential(res.real); ok {
			rd.Real = res.real
			rd.set(VerdictDenied, CredentialRow, fmt.Sprintf("git would print %s, which holds a credential or cannot be checked for one (%s)", show(f), what))
			return
		}
	}
	rd.set(VerdictOK, "", fmt.Sprintf("%s holds no credential", show(files[0])))
}
