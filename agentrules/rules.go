package agentrules

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/trust"
)

// The agents whose rules the package reads (hook.Agent's names).
const (
	Claude = "claude"
	Codex  = "codex"
	Gemini = "gemini"
)

// Scopes of a rule's file.
const (
	// ScopeUser is the person's own settings (under the home directory).
	ScopeUser = "user"
	// ScopeManaged is the administrator's settings (/etc).
	ScopeManaged = "managed"
	// ScopeProject is a project's settings, counted only when trusted.
	ScopeProject = "project"
)

// Actions of a rule.
const (
	ActionAllow = "allow"
	// ActionBlock is any rule that does not allow: Claude Code's deny and
	// ask, Codex's forbidden and prompt, Gemini CLI's deny and ask_user.
	ActionBlock = "block"
)

// MaxFileBytes bounds one settings or rules file; a larger one is not read.
const MaxFileBytes = 1 << 20

// maxRulesFiles bounds the rules files read from one directory.
const maxRulesFiles = 64

// kind is how a rule matches a segment.
type kind int

const (
	// kindAll matches every command (Claude Code's bare Bash, Gemini
	// CLI's bare run_shell_command).
	kindAll kind = iota
	// kindExact matches the segment's text exactly (Claude Code).
	kindExact
	// kindPrefix matches the text, runs of blanks as one space, equal to
	// the prefix or followed by a space (Claude Code's :*, Gemini CLI's
	// commandPrefix).
	kindPrefix
	// kindWildcard matches the text against a pattern where * stands for
	// any characters (Claude Code).
	kindWildcard
	// kindArgv matches the segment's words, all static, the first ones
	// equal to the pattern's (Codex's prefix_rule).
	kindArgv
)

// Rule is one permission rule of an agent's settings.
type Rule struct {
	// Agent is Claude, Codex or Gemini.
	Agent string
	// Text is the rule as the agent spells it: "Bash(npm test)",
	// `prefix_rule(pattern=["npm", "test"])`, "run_shell_command(npm test)".
	Text string
	// File is the absolute path of the file it is in.
	File string
	// Scope is ScopeUser, ScopeManaged or ScopeProject.
	Scope string
	// Action is ActionAllow or ActionBlock.
	Action string

	kind kind
	// text is the exact command, the prefix or the wildcard pattern.
	text string
	re   *regexp.Regexp
	// argv is Codex's pattern: each word's alternatives.
	argv [][]string
}

// Rules are the rules in force for one agent, with what could not be read.
type Rules struct {
	Agent string
	// Allow holds the allow rules, in the order read.
	Allow []Rule
	// Block holds the rules that deny or ask.
	Block []Rule
	// Skipped says, one line per file, why a file that may hold rules
	// was not used (unreadable, unparsable, a project file not trusted).
	Skipped []string
	// Broken is set when a file that exists could not be read or parsed:
	// the deny and ask rules it may hold are not known, so Approve
	// approves nothing.
	Broken bool
}

// Env is what is known of the agent's environment: HOME, and the agent's
// own variables (CLAUDE_CONFIG_DIR, CLAUDE_PROJECT_DIR, CODEX_HOME,
// GEMINI_CLI_HOME). A name it lacks is taken as not set.
type Env map[string]string

// EnvNames are the variables Load reads from Env.
var EnvNames = []string{"HOME", "CLAUDE_CONFIG_DIR", "CLAUDE_PROJECT_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"}

// Source says where to look for an agent's rules.
type Source struct {
	// Agent is Claude, Codex or Gemini; any other has no rules.
	Agent string
	// Env is the agent's environment (see Env).
	Env Env
	// Cwd is the directory the command runs in: the project, when the
	// agent does not name it (CLAUDE_PROJECT_DIR).
	Cwd string
	// Trust is the user's trust store; nil reads the one at trust.Path()
	// when a project file needs it (one that cannot be read trusts
	// nothing).
	Trust *trust.Store
}

// file is one file that may hold rules.
type file struct {
	path  string
	scope string
	// untrackedOK: a project file that counts when git is known not to
	// track it (Claude Code's settings.local.json).
	untrackedOK bool
	parse       func(path string, data []byte) ([]Rule, error)
}

// Files lists the files Load reads for src, in order (the user's, the
// project's, the administrator's): what a doctor check would name.
func Files(src Source) []string {
	var out []string
	for _, f := range files(src) {
		out = append(out, f.path)
	}
	return out
}

func files(src Source) []file {
	home := src.Env["HOME"]
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	project := src.Cwd
	var fs []file
	switch src.Agent {
	case Claude:
		cfg := src.Env["CLAUDE_CONFIG_DIR"]
		if cfg == "" && home != "" {
			cfg = filepath.Join(home, ".claude")
		}
		if d := src.Env["CLAUDE_PROJECT_DIR"]; filepath.IsAbs(d) {
			project = d
		}
		if cfg != "" {
			fs = append(fs, file{path: filepath.Join(cfg, "settings.json"), scope: ScopeUser, parse: parseClaude})
		}
		if filepath.IsAbs(project) {
			fs = append(fs,
				file{path: filepath.Join(project, ".claude", "settings.json"), scope: ScopeProject, parse: parseClaude},
				file{path: filepath.Join(project, ".claude", "settings.local.json"), scope: ScopeProject, untrackedOK: true, parse: parseClaude})
		}
		fs = append(fs, file{path: "/etc/claude-code/managed-settings.json", scope: ScopeManaged, parse: parseClaude})
	case Codex:
		dir := src.Env["CODEX_HOME"]
		if dir == "" && home != "" {
			dir = filepath.Join(home, ".codex")
		}
		if dir != "" {
			for _, p := range rulesFiles(filepath.Join(dir, "rules"), ".rules") {
				fs = append(fs, file{path: p, scope: ScopeUser, parse: parseCodex})
			}
		}
	case Gemini:
		gh := src.Env["GEMINI_CLI_HOME"]
		if gh == "" {
			gh = home
		}
		if gh != "" {
			dir := filepath.Join(gh, ".gemini")
			fs = append(fs, file{path: filepath.Join(dir, "settings.json"), scope: ScopeUser, parse: parseGeminiSettings})
			for _, p := range rulesFiles(filepath.Join(dir, "policies"), ".toml") {
				fs = append(fs, file{path: p, scope: ScopeUser, parse: parseGeminiPolicy})
			}
		}
		if filepath.IsAbs(project) {
			dir := filepath.Join(project, ".gemini")
			if dir != filepath.Join(gh, ".gemini") {
				fs = append(fs, file{path: filepath.Join(dir, "settings.json"), scope: ScopeProject, parse: parseGeminiSettings})
				for _, p := range rulesFiles(filepath.Join(dir, "policies"), ".toml") {
					fs = append(fs, file{path: p, scope: ScopeProject, parse: parseGeminiPolicy})
				}
			}
		}
	}
	return fs
}

// rulesFiles lists dir's files ending in ext, sorted, at most
// maxRulesFiles.
func rulesFiles(dir, ext string) []string {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range es {
		if strings.HasSuffix(e.Name(), ext) && len(out) < maxRulesFiles {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// Load reads the rules in force for src.Agent. It never fails: a file
// that cannot be read or parsed adds no rule and a line to Skipped; a
// project file that is not trusted adds neither allow rule nor line
// unless it holds one (its block rules always count: they only tighten).
func Load(src Source) *Rules {
	r := &Rules{Agent: src.Agent}
	store, storeRead := src.Trust, src.Trust != nil
	getStore := func() *trust.Store {
		if !storeRead {
			storeRead = true
			if p, err := trust.Path(); err == nil {
				store, _ = trust.Load(p)
			}
		}
		return store
	}
	for _, f := range files(src) {
		data, err := trust.ReadRegular(f.path, MaxFileBytes)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				r.Skipped = append(r.Skipped, fmt.Sprintf("%s: %v", f.path, err))
				r.Broken = true
			}
			continue
		}
		rules, err := f.parse(f.path, data)
		if err != nil {
			r.Skipped = append(r.Skipped, fmt.Sprintf("%s: %v", f.path, err))
			r.Broken = true
			continue
		}
		trusted := f.scope != ScopeProject || !hasAllow(rules) || trustedFile(getStore(), f.path, data) || (f.untrackedOK && untracked(f.path))
		for _, ru := range rules {
			ru.Agent, ru.File, ru.Scope = src.Agent, f.path, f.scope
			if ru.Action == ActionAllow {
				if trusted {
					r.Allow = append(r.Allow, ru)
				}
				continue
			}
			r.Block = append(r.Block, ru)
		}
		if !trusted && hasAllow(rules) {
			r.Skipped = append(r.Skipped, fmt.Sprintf("%s: a project's file, not trusted: its allow rules do not count until `shellgate trust %s`", f.path, filepath.Dir(f.path)))
		}
	}
	return r
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

func hasAllow(rs []Rule) bool {
	for _, r := range rs {
		if r.Action == ActionAllow {
			return true
		}
	}
	return false
}

// trustedFile reports whether the store pins path with data's digest.
func trustedFile(s *trust.Store, path string, data []byte) bool {
	if s == nil {
		return false
	}
	sum := sha256.Sum256(data)
	return s.Trusted(path, trust.KindFile, hex.EncodeToString(sum[:]))
}

// Approve returns, for each segment of rep that an allow rule matches as
// the agent matches it, the first such rule as a policy fact. It returns
// nil when any block rule matches the command or one of its segments (the
// agent itself would not run it unasked), when the command did not parse,
// when there is no allow rule, or when a rules file could not be read or
// parsed (Broken: its deny rules are not known).
func (r *Rules) Approve(command string, rep *classify.Report) map[int]policy.AgentApproval {
	if r == nil || r.Broken || len(r.Allow) == 0 || rep == nil || !rep.Parse.OK {
		return nil
	}
	texts := make([]string, len(rep.Segments))
	for i, seg := range rep.Segments {
		texts[i] = segmentText(command, seg)
	}
	for _, b := range r.Block {
		if b.blocks(command) {
			return nil
		}
		for i, seg := range rep.Segments {
			if b.blocks(texts[i]) || (b.kind == kindArgv && b.matchArgv(seg)) {
				return nil
			}
		}
	}
	var out map[int]policy.AgentApproval
	for i, seg := range rep.Segments {
		for _, a := range r.Allow {
			if a.matches(texts[i], seg) {
				if out == nil {
					out = map[int]policy.AgentApproval{}
				}
				out[i] = policy.AgentApproval{Agent: a.Agent, Rule: a.Text, File: a.File, Scope: a.Scope}
				break
			}
		}
	}
	return out
}

// segmentText is the segment's source text, trimmed; "" when its span is
// not inside the command.
func segmentText(command string, seg classify.Segment) string {
	s, e := seg.Span.Start, seg.Span.End
	if s < 0 || e > len(command) || s >= e {
		return ""
	}
	return strings.TrimSpace(command[s:e])
}

// matches reports whether an allow rule approves the segment whose text
// is text.
func (r Rule) matches(text string, seg classify.Segment) bool {
	if text == "" || strings.IndexByte(text, 0) >= 0 {
		return false
	}
	switch r.kind {
	case kindAll:
		return true
	case kindExact:
		return text == r.text
	case kindPrefix:
		n, p := collapseBlanks(text), collapseBlanks(r.text)
		return n == p || strings.HasPrefix(n, p+" ")
	case kindWildcard:
		return r.re != nil && r.re.MatchString(collapseBlanks(text))
	case kindArgv:
		return r.matchArgv(seg)
	}
	return false
}

// blocks reports whether a block rule matches text (the whole command or
// a segment's): as an allow rule would, and for a prefix or exact rule
// also when text starts with it (a deny is read wide).
func (r Rule) blocks(text string) bool {
	if text == "" {
		return false
	}
	switch r.kind {
	case kindAll:
		return true
	case kindExact, kindPrefix:
		n, p := collapseBlanks(text), collapseBlanks(r.text)
		return strings.HasPrefix(n, p)
	case kindWildcard:
		return r.re != nil && r.re.MatchString(collapseBlanks(text))
	}
	return false
}

// matchArgv matches Codex's pattern against the segment's words: the
// program's plain name and static arguments, no assignment in front.
func (r Rule) matchArgv(seg classify.Segment) bool {
	if seg.DynamicProgram || seg.Program == "" || len(seg.Assigns) > 0 || len(r.argv) == 0 {
		return false
	}
	if seg.PathPrefixed || seg.Name == "" {
		// /usr/bin/npm: Codex compares the word as written; shellgate
		// has its plain name only, so it does not match (stricter).
		return false
	}
	words := []string{seg.Name}
	for _, a := range seg.Args {
		if !a.Static() {
			return false
		}
		words = append(words, a.Value)
	}
	if len(words) < len(r.argv) {
		return false
	}
	for i, alts := range r.argv {
		ok := false
		for _, w := range alts {
			if words[i] == w {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

var blanks = regexp.MustCompile(`[ \t]{2,}|\t`)

// collapseBlanks makes every run of blanks, and every tab, one space (as
// Claude Code does before a prefix match).
func collapseBlanks(s string) string { return blanks.ReplaceAllString(s, " ") }

// ProjectFiles lists the project's agent settings files under dir that
// hold allow rules (Claude Code's .claude/settings.json and
// settings.local.json, Gemini CLI's .gemini/settings.json and
// .gemini/policies/*.toml), with their content: what `shellgate trust
// DIR` pins so that their allow rules count. A file that cannot be read or
// parsed is left out (it grants nothing either way).
func ProjectFiles(dir string) map[string][]byte {
	out := map[string][]byte{}
	cands := []file{
		{path: filepath.Join(dir, ".claude", "settings.json"), parse: parseClaude},
		{path: filepath.Join(dir, ".claude", "settings.local.json"), parse: parseClaude},
		{path: filepath.Join(dir, ".gemini", "settings.json"), parse: parseGeminiSettings},
	}
	for _, p := range rulesFiles(filepath.Join(dir, ".gemini", "policies"), ".toml") {
		cands = append(cands, file{path: p, parse: parseGeminiPolicy})
	}
	for _, f := range cands {
		data, err := trust.ReadRegular(f.path, MaxFileBytes)
		if err != nil {
			continue
		}
		if rules, err := f.parse(f.path, data); err == nil && hasAllow(rules) {
			out[f.path] = data
		}
	}
	return out
}
