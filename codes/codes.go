// Package codes is the registry of the finding and reason codes shellgate
// emits: every code the classifier, the read station, the policy, the gate
// and the default Rego policy can put in a report or a decision, with one
// line that says what it means. The catalog's own codes (an option's or an
// operand's code) are registered by the catalog, with the entry's doc.
// TestEveryEmittedCodeIsRegistered reads the sources and holds them to the
// registry; docs/codes.md is rendered from it (TestDocsListEveryCode).
package codes

//go:generate go tool shellgate-gen codes

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/shellgate/shellgate/classify"
)

// Code documents one code.
type Code struct {
	// Name is the code: lower-case words joined by "-".
	Name string
	// From is what emits it: classify, policy, gate, rego or catalog.
	From string
	// Doc says in one line what it means.
	Doc string
}

// Registry lists the codes that shellgate's own code and default policy
// emit (the catalog's are in Catalog).
var Registry = []Code{
	// The classifier: the command as a whole.
	{"parse-error", "classify", "bash cannot parse the command; nothing is proven"},
	{"parser-mismatch", "classify", "bash would read the command otherwise than the parser did (a # inside a word)"},
	{"empty-command", "classify", "the command is empty"},
	{"invalid-utf8", "classify", "the command is not valid UTF-8"},
	{"nul-byte", "classify", "the command contains a NUL byte"},
	{"internal-error", "classify", "shellgate itself failed while checking the command (a bug); the command is denied"},
	{"unsupported-syntax", "classify", "a shell construct shellgate does not analyse"},
	{"unknown-dialect", "classify", "a shell string (ksh -c, fish -c, …) is in a language shellgate does not read"},
	// The classifier's zsh reading (the shell is zsh, or unknown and read both ways).
	{"zsh-glob-qualifier-exec", "classify", "in zsh, a glob qualifier (e:…:, +cmd, oe, o+) runs code for each match"},
	{"zsh-glob-qualifier", "classify", "in zsh, a glob qualifier changes what the glob matches or how it expands"},
	{"zsh-glob-pattern", "classify", "in zsh, a word is a pattern ((a|b), <1-10>, (#i)) that bash reads as plain text"},
	{"zsh-glob-subst", "classify", "in zsh, $~var expands the value as a glob pattern"},
	{"zsh-equals-expansion", "classify", "in zsh, =cmd expands to the path of a program found on PATH"},
	{"zsh-param-eval", "classify", "in zsh, a parameter flag ((e), (%)) evaluates the value as code or a prompt"},
	{"zsh-param-flags", "classify", "in zsh, a parameter expansion flag changes the value in ways shellgate does not model"},
	{"zsh-param-modifier", "classify", "in zsh, a :modifier after a parameter rewrites its value (:a makes a path absolute)"},
	{"zsh-history-modifier", "classify", "in zsh, a :modifier after $var in a word rewrites the value, inside quotes too"},
	{"zsh-subscript-flags", "classify", "in zsh, a subscript flag searches or evaluates an array"},
	{"zsh-special-variable", "classify", "in zsh, a loop or assignment sets a special variable tied to another (path to PATH)"},
	{"zsh-null-command", "classify", "in zsh, a redirection with no command runs $READNULLCMD or $NULLCMD"},
	{"zsh-anonymous-function", "classify", "in zsh, an anonymous function () { … } runs at once"},
	{"zsh-hook-function", "classify", "in zsh, a function the shell calls by itself (chpwd, precmd, TRAP*, zshexit, command_not_found_handler) is defined"},
	{"limit-length", "classify", "the command is longer than the classifier reads"},
	{"limit-nesting", "classify", "the command nests deeper than the parser accepts"},
	{"limit-depth", "classify", "the command nests deeper than the classifier follows; the rest is not analysed"},
	{"limit-nested", "classify", "scripts (bash -c, find -exec, xargs) nest deeper than the classifier follows"},
	{"limit-segments", "classify", "more simple commands than the classifier analyses"},
	{"limit-words", "classify", "more words than the classifier analyses"},
	{"limit-redirects", "classify", "more redirections than the classifier analyses"},
	{"limit-findings", "classify", "more findings than a report lists"},
	{"large-expansion", "classify", "a brace expansion makes a very large number of words"},
	// The classifier: shell constructs.
	{"background", "classify", "runs in the background, so it can outlive the check"},
	{"command-substitution", "classify", "a command substitution whose output becomes part of the command"},
	{"process-substitution", "classify", "a process substitution <(…) or >(…)"},
	{"arithmetic-expansion", "classify", "let or (( )) evaluates arithmetic, which can run code through array subscripts"},
	{"unsafe-expansion", "classify", "an array subscript evaluated as arithmetic can run code hidden in a variable"},
	{"param-value", "classify", "a variable's value is only known at run time and may hold a secret"},
	{"locale-string", "classify", "a $\"…\" string is translated through the locale's message catalog at run time"},
	{"assignment", "classify", "the command assigns a variable the shell or its programs give meaning to (PATH, IFS, …)"},
	{"declaration", "classify", "declare, export, local and the like change shell variables later commands see"},
	{"env-assignment", "classify", "an environment variable set for one program can change what it runs or reads"},
	{"function-definition", "classify", "defines a function, which later commands may call instead of a program"},
	{"function-call", "classify", "calls a function defined in the command"},
	{"fork-bomb", "classify", "a function that calls itself in a pipeline or in the background"},
	{"unbounded-loop", "classify", "a while or until loop not proven to end"},
	{"interactive", "classify", "waits for a person (select, an interactive option)"},
	{"redirect-write", "classify", "a redirection writes a file (or assigns a shell variable with {var}>)"},
	{"device-read", "classify", "reads a device that may never end or may reach the network"},
	// The classifier: programs, options and operands.
	{"unknown-program", "classify", "the program is not in the catalog, so what it does is unknown"},
	{"unknown-subcommand", "classify", "the subcommand is not in the catalog, so what it does is unknown"},
	{"unknown-option", "classify", "an option the catalog does not know to be safe"},
	{"unexpected-operand", "classify", "an operand the program does not take in a read-only spelling"},
	{"dynamic-program", "classify", "the program's name is only known at run time"},
	{"dynamic-subcommand", "classify", "the subcommand is only known at run time"},
	{"dynamic-argument", "classify", "an argument only known at run time could be an option that writes or runs code"},
	{"dynamic-script", "classify", "a sed, awk or jq program only known at run time"},
	{"path-prefixed-program", "classify", "runs a program by path, so which program runs is not checked"},
	{"not-read-only", "classify", "the program (or subcommand) is in the catalog but is not read-only"},
	{"stdin-script", "classify", "a program runs the code it reads from stdin, which is not checked"},
	{"eval", "classify", "eval runs a string as shell code"},
	{"exec", "classify", "exec replaces the shell or changes its file descriptors"},
	{"source", "classify", "source (.) runs a file's code in this shell"},
	{"shell-builtin", "classify", "a builtin that changes the shell itself (alias, trap, set, read, …)"},
	{"write-option", "classify", "an option or operand that writes a file (the default code of the write effects)"},
	{"exec-option", "classify", "an option or operand that runs other code (the default code of the exec effect)"},
	{"follow-option", "classify", "an option that follows a file forever (tail -f)"},
	{"network", "classify", "reaches the network (the default code of the network effect); the policy also asks for it"},
	{"privilege", "classify", "runs with other privileges (sudo, doas, …)"},
	{"destructive", "classify", "destroys data that cannot be recovered (the default code of the destroy effect)"},
	{"stdin-read", "classify", "reads stdin (the stdin effect; never a finding of its own)"},
	{"env-print", "classify", "shows environment variables, where tokens live"},
	{"jq-load", "classify", "a jq or yq program reads another file, which is not judged"},
	{"sed-exec", "classify", "a sed script's e command runs a shell command"},
	{"sed-write", "classify", "a sed script's w command writes a file"},
	{"sed-unsafe", "classify", "a sed script that could not be read"},
	{"awk-exec", "classify", "an awk program runs a command (system(), a pipe, getline from a command)"},
	{"awk-write", "classify", "an awk program writes a file (print > file)"},
	{"awk-read", "classify", "an awk program reads a file that is not judged"},
	{"awk-unparsed", "classify", "an awk program that could not be parsed (or holds syntax the check does not know), so what it does is not known"},
	// The policy and the gate.
	{"policy-error", "policy", "the policy could not decide (an error, an undefined or malformed decision); deny"},
	// The default Rego policy.
	{"project-config-untrusted", "rego", "a project's configuration would have allowed more, but the user has not trusted it"},
	{"cwd-unknown", "rego", "the agent did not say in which directory the command runs (the cwd is not absolute), so its reads cannot be judged"},
	{"not-proven", "rego", "the command is not proven safe, so a person is asked"},
	{"config-unreadable", "rego", "a shellgate config file that applies (a project's .shellgate.yaml in any form, a policy module it names, the user's config) exists but cannot be used: every command is denied"},
	{"granted", "rego", "a grant of the configuration covers the segment"},
	{"agent-approved", "rego", "a rule the person keeps in the agent's own settings allows the segment (Claude Code's Bash(npm test), Codex's prefix_rule, Gemini CLI's tools.allowed; a project's only once trusted)"},
	{"grant-wildcards-code", "rego", "a project config's grant matches only through a wildcard over an argument that carries code, so it does not apply"},
	{"shell-stdin", "rego", "a shell or interpreter runs code fed to it on stdin (curl … | sh)"},
	{"pipe-to-shell", "rego", "downloaded or generated code is piped into a shell"},
	{"reads-not-established", "rego", "the reads could not be judged (no read station, or a read it could not follow)"},
	{"read-not-established", "rego", "the read station could not establish where a read lands"},
	{"read-outside-roots", "rego", "a read lands outside the roots (the workspace and the configured roots)"},
	{"read-denied", "rego", "a read matches a deny row of the boundary (~/.ssh/**, .env, …)"},
	{"read-denied-in-tree", "rego", "a recursive read reaches a file that matches a deny row"},
	{"read-unknown-verdict", "rego", "the read station gave a verdict this policy does not know"},
	{"remote-read", "rego", "reads a remote account over the network with the user's credentials (gh pr list, kubectl get); the config's remote_reads allows it per program"},
	{"repo-helper", "rego", "git runs a program the repository configured (a hook, a filter, a pager)"},
	{"destructive-critical", "rego", "deletes or overwrites a whole tree that matters: /, a top-level directory, the home, a root"},
	{"write-outside-roots", "rego", "writes outside the roots"},
	{"write-shellgate-config", "rego", "writes shellgate's own configuration or policy"},
	{"device-write", "rego", "writes a device other than the harmless ones (/dev/null, …)"},
	{"mkfs", "rego", "makes a file system"},
	{"partition-table", "classify", "rewrites a partition table (a catalog keyword of effect partition-table: parted rm, sfdisk --delete); the policy denies it"},
	{"fork-bomb", "rego", "a fork bomb"},
	{"force-push-protected", "rego", "force-pushes a protected branch"},
	{"system-stop", "rego", "stops, halts or reboots the machine"},
	{"kill-all", "rego", "kills every process it may"},
}

// Catalog returns the codes of the catalog's entries (options, operand
// roles, a program's no-argument spelling), each with its entry's doc.
func Catalog(c *classify.Catalog) []Code {
	docs := map[string]string{}
	catalogCodes(reflect.ValueOf(c), func(code, doc string) {
		if code == "" {
			return
		}
		// A code several entries share is listed once, with the first
		// of their docs in sort order (the walk meets maps in any order).
		if old, ok := docs[code]; !ok || old == "" || doc != "" && doc < old {
			docs[code] = doc
		}
	})
	var out []Code
	for code, doc := range docs {
		out = append(out, Code{Name: code, From: "catalog", Doc: doc})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// catalogCodes calls fn with the Code and Doc of every struct below v that
// has a string Code field.
func catalogCodes(v reflect.Value, fn func(code, doc string)) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			catalogCodes(v.Elem(), fn)
		}
	case reflect.Struct:
		if f := v.FieldByName("Code"); f.IsValid() && f.Kind() == reflect.String {
			doc := ""
			if d := v.FieldByName("Doc"); d.IsValid() && d.Kind() == reflect.String {
				doc = d.String()
			}
			fn(f.String(), doc)
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				catalogCodes(v.Field(i), fn)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			catalogCodes(v.Index(i), fn)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			catalogCodes(v.MapIndex(k), fn)
		}
	}
}

// All returns the registry and the embedded catalog's codes, sorted by
// name (a code both emit is listed once per source).
func All() []Code {
	out := append(append([]Code(nil), Registry...), Catalog(classify.DefaultCatalog())...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns the entries of a code.
func Lookup(name string) []Code {
	var out []Code
	for _, c := range All() {
		if c.Name == name {
			out = append(out, c)
		}
	}
	return out
}

// Markdown renders the codes as the table of docs/codes.md.
func Markdown() string {
	var b strings.Builder
	b.WriteString("# Finding and reason codes\n\n")
	b.WriteString("Every code shellgate puts in a report's findings or a decision's reasons, with what emits it\n")
	b.WriteString("and what it means. Generated from the registry in `codes/codes.go` and the catalog\n")
	b.WriteString("(`go generate ./codes` rewrites it); a test holds the sources to it.\n\n")
	b.WriteString("| code | from | meaning |\n|---|---|---|\n")
	for _, c := range All() {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", c.Name, c.From, strings.ReplaceAll(c.Doc, "|", `\|`))
	}
	return b.String()
}
