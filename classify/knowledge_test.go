package classify

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestValidateKnowledge: malformed walk, produces_paths and input_args
// values are rejected with an error that names the program and the field.
func TestValidateKnowledge(t *testing.T) {
	const base = `
programs:
  - name: lister
    read_only: true
    options:
      - names: [--all, -a]
      - names: [--skip, -x]
        value: required
      - names: [--include]
        value: required
      - names: [-l]
`
	tests := []struct {
		name, yaml string
		want       string // "" for valid
	}{
		{"valid", `
    walk:
      names_only: true
      hidden: {shown_by: [-a, --all, "--no-ignore*"], config_env: LISTER_CONFIG}
      exclude_hint: exclude it with -x GLOB
      excludes: [{option: --skip, kind: dir, unless: [--include]}]
    produces_paths: {any_of: [-l], none_of: [--unknown-printer], nul: [-a], default_root: cwd,
      name_filter: {option: --skip, unless: [-o, "("]}}
    input_args: {nul: [-a], replace: [--skip], replace_default: "{}"}
`, ""},
		{"exclude kind", "    walk: {excludes: [{option: --skip, kind: files}]}\n", `lister: walk: excludes --skip: unknown kind "files" (want file, dir, path or include)`},
		{"exclude option unknown", "    walk: {excludes: [{option: --nope, kind: file}]}\n", `lister: walk: excludes: "--nope" is not the first name of an option of the program or its parents`},
		{"exclude option not canonical", "    walk: {excludes: [{option: -x, kind: file}]}\n", `lister: walk: excludes: "-x" is not the first name of an option`},
		{"exclude option takes no value", "    walk: {excludes: [{option: --all, kind: file}]}\n", `lister: walk: excludes: option --all takes no value`},
		{"exclude unless unknown", "    walk: {excludes: [{option: --skip, kind: file, unless: [--inc]}]}\n", `lister: walk: excludes --skip unless: "--inc" is not the first name`},
		{"hidden without shown_by", "    walk: {hidden: {config_env: X}}\n", `lister: walk: hidden: shown_by is empty`},
		{"hidden word", "    walk: {hidden: {shown_by: [all]}}\n", `lister: walk: hidden: shown_by "all" is not -X, --long or --prefix*`},
		{"hidden short cluster", "    walk: {hidden: {shown_by: [-ab]}}\n", `shown_by "-ab" is not -X, --long or --prefix*`},
		{"hidden bare star", "    walk: {hidden: {shown_by: [--*]}}\n", `shown_by "--*" is not -X, --long or --prefix*`},
		{"config env", "    walk: {hidden: {shown_by: [-a], config_env: 1BAD-NAME}}\n", `lister: walk: hidden: config_env "1BAD-NAME" is not an environment variable name`},
		{"blank hint", "    walk: {exclude_hint: \"  \"}\n", `lister: walk: exclude_hint is blank`},
		{"any_of unknown", "    produces_paths: {any_of: [--list]}\n", `lister: produces_paths: any_of: "--list" is not an option of the program or its parents`},
		{"nul unknown", "    produces_paths: {nul: [-0]}\n", `lister: produces_paths: nul: "-0" is not an option`},
		{"none_of not an option", "    produces_paths: {none_of: [printf]}\n", `lister: produces_paths: none_of: "printf" is not an option`},
		{"default root", "    produces_paths: {default_root: home}\n", `lister: produces_paths: unknown default_root "home" (want cwd or repo)`},
		{"name filter without value", "    produces_paths: {name_filter: {option: -l}}\n", `lister: produces_paths: name_filter: option -l takes no value`},
		{"name filter blank unless", "    produces_paths: {name_filter: {option: --skip, unless: [\" \"]}}\n", `lister: produces_paths: name_filter: unless has a blank word`},
		{"input nul unknown", "    input_args: {nul: [--null]}\n", `lister: input_args: nul: "--null" is not an option`},
		{"replace without default", "    input_args: {replace: [--skip]}\n", `lister: input_args: replace needs a replace_default`},
		{"unknown field", "    walk: {names: true}\n", `field names not found`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseCatalog([]byte(base+tc.yaml), "test.yaml")
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("no error, want %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("error %q does not say %q", err, tc.want)
			}
		})
	}
}

// TestSegmentFacts: a segment carries the walk, producer, input and alias
// facts of its catalog entry, worked out from its arguments.
func TestSegmentFacts(t *testing.T) {
	type facts struct {
		Walk      *Walk
		Produces  *Produces
		InputArgs *InputArgs
		Alias     string
	}
	grepHint := "exclude it with --exclude-dir=DIR or --exclude=GLOB, or narrow the path"
	rgHint := "exclude it with -g '!GLOB', or narrow the path"
	rgIgnore := []string{".ignore", ".rgignore", ".gitignore", ".git/info/exclude"}
	rgLines := &Produces{Without: []string{"--files-with-matches", "--files-without-match", "--files", "-l"}, DefaultRoot: "cwd"}
	tests := []struct {
		cmd  string
		seg  int
		want facts
	}{
		{"cat x", 0, facts{}},
		{"ls -R", 0, facts{Walk: &Walk{NamesOnly: true, SkipHidden: true}}},
		{"ls -lRa", 0, facts{Walk: &Walk{NamesOnly: true}}},
		{"ls --almost-all -R", 0, facts{Walk: &Walk{NamesOnly: true}}},
		{"ls -R -- -a", 0, facts{Walk: &Walk{NamesOnly: true, SkipHidden: true}}},
		{`ls -R "$X"`, 0, facts{Walk: &Walk{NamesOnly: true}}},
		{"tree -a", 0, facts{Walk: &Walk{NamesOnly: true}}},
		{"du -sh .", 0, facts{Walk: &Walk{NamesOnly: true}}},
		{"fdfind x", 0, facts{Walk: &Walk{NamesOnly: true}}},
		{"rg x", 0, facts{Walk: &Walk{SkipHidden: true, HiddenEnv: "RIPGREP_CONFIG_PATH", HiddenIgnoreFiles: rgIgnore, HiddenGitExcludes: true, Hint: rgHint}, Produces: rgLines}},
		{"rg -uu x", 0, facts{Walk: &Walk{Hint: rgHint}, Produces: rgLines}},
		{"rg --no-ignore-vcs x", 0, facts{Walk: &Walk{Hint: rgHint}, Produces: rgLines}},
		{"rg -. -g '!.env' -g '!*.pem' x", 0, facts{Walk: &Walk{Hint: rgHint, Excludes: []Exclude{{ExcludePath, ".env"}, {ExcludePath, "*.pem"}}}, Produces: rgLines}},
		{"rg --hidden -g '!.env' -g '*.go' x", 0, facts{Walk: &Walk{Hint: rgHint}, Produces: rgLines}},
		{"rg -l x", 0, facts{Walk: &Walk{SkipHidden: true, HiddenEnv: "RIPGREP_CONFIG_PATH", HiddenIgnoreFiles: rgIgnore, HiddenGitExcludes: true, Hint: rgHint}, Produces: &Produces{DefaultRoot: "cwd"}}},
		{"grep -r --exclude-dir=.git --exclude='*.pem' --exclude=$X x .", 0, facts{Walk: &Walk{Hint: grepHint, Excludes: []Exclude{{ExcludeDir, ".git"}, {ExcludeFile, "*.pem"}}}, Produces: &Produces{Without: []string{"--files-with-matches", "--files-without-match", "-l", "-L"}}}},
		{"grep -r --include=*.go --exclude=*.pem x .", 0, facts{Walk: &Walk{Hint: grepHint}, Produces: &Produces{Without: []string{"--files-with-matches", "--files-without-match", "-l", "-L"}}}},
		{"egrep -rlZ x .", 0, facts{Walk: &Walk{Hint: grepHint}, Produces: &Produces{Nul: true}}},
		{"find . -name '*.go' -print0", 0, facts{Walk: &Walk{NamesOnly: true}, Produces: &Produces{Nul: true, DefaultRoot: "cwd", NameGlob: "*.go"}}},
		{"find . -name '*.go' -o -name '*.md'", 0, facts{Walk: &Walk{NamesOnly: true}, Produces: &Produces{DefaultRoot: "cwd"}}},
		{"find . -printf '%p'", 0, facts{Walk: &Walk{NamesOnly: true}, Produces: &Produces{Other: "-printf", DefaultRoot: "cwd"}}},
		{"git ls-files -z", 0, facts{Walk: &Walk{Hint: "narrow the pathspec"}, Produces: &Produces{Nul: true, DefaultRoot: "repo"}, Alias: "ls-files"}},
		{"git diff --name-only --stat", 0, facts{Walk: &Walk{Hint: "narrow the pathspec"}, Produces: &Produces{Other: "--stat", DefaultRoot: "repo"}, Alias: "diff"}},
		{"git -C .. lg", 0, facts{Walk: &Walk{Hint: "narrow the pathspec"}, Alias: "lg"}},
		{"git status", 0, facts{Walk: &Walk{Hint: "narrow the pathspec"}, Alias: "status"}},
		{"find . | xargs -0 -I F cat F", 1, facts{Walk: &Walk{Hint: "narrow the producer's path"}, InputArgs: &InputArgs{Nul: true, Replace: "F"}}},
		{"find . | xargs -i cat {}", 1, facts{Walk: &Walk{Hint: "narrow the producer's path"}, InputArgs: &InputArgs{Replace: "{}"}}},
	}
	for _, tc := range tests {
		r := Classify(tc.cmd)
		if tc.seg >= len(r.Segments) {
			t.Errorf("%s: no segment %d", tc.cmd, tc.seg)
			continue
		}
		s := r.Segments[tc.seg]
		got := facts{s.Walk, s.Produces, s.InputArgs, s.ConfigAlias}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.cmd, diff)
		}
	}
}
