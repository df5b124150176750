package readstation

import (
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"regexp"
	"strings"
)

// A deny row that covers a secret's name (**/.env.*) also covers its
// template: .env.example, config.sample, .dev.vars.template, .env.dist
// hold placeholders, are committed in most repositories, and are what an
// agent reads to learn the settings a project needs. A template is not
// denied when its content holds nothing that looks like a real secret;
// one that does (a token pasted into .env.example) is denied as the
// secret it is. The content decides: the file is read (regular files
// only, at most maxConfigBytes, without blocking: readSmallStamp), its
// stamp goes into the admission (a template changed before the spawn is
// judged again), and a template that cannot be read whole stays denied.

// TemplateSuffixes are the name endings that make a file a template of
// the secret a deny row names (".env.example" under "**/.env.*").
var TemplateSuffixes = []string{".example", ".sample", ".template", ".dist"}

// IsTemplate reports whether the base name of p ends in a template
// suffix after something else (".example" alone is not a template).
func IsTemplate(p string) bool { return isTemplate(p) }

func isTemplate(p string) bool {
	base := filepath.Base(p)
	for _, s := range TemplateSuffixes {
		if len(base) > len(s) && strings.HasSuffix(strings.ToLower(base), s) {
			return true
		}
	}
	return false
}

// cleanTemplate reports whether the path written, which resolves to
// res, is a template (both its name and its real path's) whose content
// holds no real-looking secret, with why for a message. A template that
// does, or cannot be read whole, is not clean.
func (j *judger) cleanTemplate(written string, res resolved) (bool, string) {
	if !isTemplate(written) || !isTemplate(res.real) || !res.exists || res.err != nil || !res.mode.IsRegular() {
		return false, ""
	}
	data, problem := j.readRecorded(res.real)
	if problem != "" || data == nil {
		return false, ""
	}
	if what, ok := LooksSecret(data); ok {
		return false, what
	}
	return true, fmt.Sprintf("%s is a template holding no real-looking secret", show(written))
}

// secretPatterns are tokens whose form is their issuer's: a value that
// matches one is a real secret wherever it stands.
var secretPatterns = []struct {
	name string
	re   *regexp.Regexp
}{
	{"a private key", regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`)},
	{"a GitHub token", regexp.MustCompile(`\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`)},
	{"a GitLab token", regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{20,}`)},
	{"a Slack token", regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`)},
	{"an AWS access key", regexp.MustCompile(`\b(AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b`)},
	{"a Google API key", regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`)},
	{"an API key (sk-…)", regexp.MustCompile(`\bsk-(ant-|proj-)?[A-Za-z0-9_-]{20,}`)},
	{"a Stripe key", regexp.MustCompile(`\b[rsp]k_(live|test)_[A-Za-z0-9]{16,}`)},
	{"an npm token", regexp.MustCompile(`\bnpm_[A-Za-z0-9]{30,}`)},
	{"a PyPI token", regexp.MustCompile(`\bpypi-[A-Za-z0-9_-]{40,}`)},
	{"a Hugging Face token", regexp.MustCompile(`\bhf_[A-Za-z0-9]{30,}`)},
	{"a SendGrid key", regexp.MustCompile(`\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`)},
	{"a JSON web token", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`)},
}

// urlPassword finds the password of a URL's user info.
var urlPassword = regexp.MustCompile(`://([^/\s:@'"]*):([^@\s/'"]+)@`)

// valueToken splits a line into the words a secret may be: runs of the
// characters tokens are written in.
var valueToken = regexp.MustCompile(`[A-Za-z0-9+/_.~-]{20,}={0,2}`)

// placeholderWords mark a value a person is meant to replace, or a
// development default.
var placeholderWords = []string{"example", "sample", "your", "xxx", "change", "replace", "placeholder",
	"dummy", "fake", "test", "todo", "insert", "here", "secret", "password", "token", "localhost",
	"default", "local", "dev", "demo", "abcdef", "123456", "000000", "redacted", "***"}

// weakPasswords are URL passwords that are development defaults.
var weakPasswords = []string{"postgres", "password", "pass", "secret", "root", "admin", "mysql", "redis",
	"guest", "user", "changeme", "example", "test", "dev", "local"}

// LooksSecret reports whether data holds something that looks like a
// real secret, and what: a token in its issuer's form, a password in a
// URL that is not a placeholder, or a long random-looking word (at least
// 20 characters of letters and digits, with both, an entropy of at least
// 3.5 bits a character, and no placeholder word in it). It errs towards
// yes: a template it flags stays denied.
func LooksSecret(data []byte) (string, bool) {
	text := string(data)
	for i, p := range secretPatterns {
		for _, m := range p.re.FindAllString(text, -1) {
			if i == 0 || !formPlaceholder(m) {
				return p.name, true
			}
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		for _, m := range urlPassword.FindAllStringSubmatch(line, -1) {
			if pw := m[2]; !placeholder(pw) && !hasFold(weakPasswords, pw) && pw != m[1] && !strings.HasPrefix(pw, "$") {
				return "a password in a URL", true
			}
		}
		for _, w := range valueToken.FindAllString(line, -1) {
			if randomLooking(w) && !placeholder(w) {
				return fmt.Sprintf("a random-looking value of %d characters", len(w)), true
			}
		}
	}
	return "", false
}

// formWords mark a token in its issuer's form as a placeholder
// (ghp_xxxxxxxx…, sk-your-key-here).
var formWords = []string{"xxxx", "example", "your", "placeholder", "replace", "dummy", "fake", "redacted", "changeme", "insert"}

// formPlaceholder reports whether a token in its issuer's form is a
// placeholder: a placeholder word, or a body that repeats few characters.
func formPlaceholder(m string) bool {
	l := strings.ToLower(m)
	for _, w := range formWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	distinct := map[rune]bool{}
	for _, c := range l {
		distinct[c] = true
	}
	return len(distinct) < 8
}

// placeholder reports whether w holds a placeholder word, or is one
// character repeated.
func placeholder(w string) bool {
	l := strings.ToLower(w)
	for _, p := range placeholderWords {
		if strings.Contains(l, p) {
			return true
		}
	}
	return strings.Trim(l, l[:1]) == ""
}

// hasFold reports whether list holds s, ignoring case.
func hasFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// randomLooking reports whether w (20 characters or more) mixes letters
// and digits with a high entropy, as generated secrets do.
func randomLooking(w string) bool {
	letters, digits := 0, 0
	counts := map[rune]int{}
	for _, c := range w {
		counts[c]++
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letters++
		}
	}
	if digits < 2 || letters < 2 {
		return false
	}
	h := 0.0
	n := float64(len(w))
	for _, k := range counts {
		p := float64(k) / n
		h -= p * math.Log2(p)
	}
	return h >= 3.5
}

// templateWhy is the end of a denial's message for a template whose
// content looks like a secret ("", when it is no template or clean).
func templateWhy(what string) string {
	if what == "" {
		return ""
	}
	return "; it is named as a template, but holds " + what
}

// cleanTemplateIn is cleanTemplate for an entry of a tree walk: the
// entry wp (real path rp, type t from the listing) is a regular file
// that is a clean template. The file's stamp joins the tree's, so that a
// tree found clean is walked again once the template changes.
func (j *judger) cleanTemplateIn(wp, rp string, t fs.FileMode, ts *treeStamp) bool {
	if !t.IsRegular() || !isTemplate(wp) || !isTemplate(rp) {
		return false
	}
	var files []fileCand
	saved := j.record
	j.record = &files
	clean, _ := j.cleanTemplate(wp, resolved{real: rp, exists: true, mode: t})
	j.record = saved
	ts.files = append(ts.files, files...)
	return clean
}
