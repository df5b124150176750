package classify

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/shellgate/shellgate/gitrepo"
)

// TestGitRepoFacts: a segment that runs git carries, from the catalog's
// git_repo, the assignments (its own and those of the segments that run
// it) and the options that point git elsewhere; one line per field.
func TestGitRepoFacts(t *testing.T) {
	tests := []struct {
		cmd  string
		seg  int
		want string // the GitRepo in short: env NAME, dir VALUE, bare, tree VALUE; "" for nil
	}{
		{"git status", 0, ""},
		{"GIT_DIR=../x/.git git status", 0, "env GIT_DIR"},
		{"GIT_COMMON_DIR=x git log", 0, "env GIT_COMMON_DIR"},
		{"GIT_CONFIG_GLOBAL=g GIT_PAGER=cat LC_ALL=C git log", 0, "env GIT_CONFIG_GLOBAL"},
		{"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=x git log", 0, "env GIT_CONFIG_COUNT, env GIT_CONFIG_KEY_0, env GIT_CONFIG_VALUE_0"},
		{"GIT_WORK_TREE=w git status", 0, "env GIT_WORK_TREE"},
		{"GIT_DIR=x git frob", 0, "env GIT_DIR"},
		{"env GIT_DIR=x git status", 1, "env GIT_DIR"},
		{"GIT_DIR=x timeout 5 git status", 1, "env GIT_DIR"},
		{"GIT_CONFIG_GLOBAL=g bash -c 'git status'", 1, "env GIT_CONFIG_GLOBAL"},
		{"GIT_DIR=x go list ./...", 0, "env GIT_DIR"},
		{"GIT_DIR=x go version", 0, ""},
		{"GIT_DIR=x ls", 0, ""},
		{"git --git-dir=../x/.git log", 0, "dir ../x/.git"},
		{"git --git-dir a --git-dir=$X log", 0, "dir a, dir $X"},
		{"git rev-parse --git-dir", 0, ""},
		{"git --bare log", 0, "bare"},
		{"git --work-tree=w status", 0, "tree w"},
		{"git -C a --work-tree ../w status", 0, "tree ../w"},
		{"git -C a status", 0, ""},
	}
	for _, tc := range tests {
		r := Classify(tc.cmd, WithDialect(DialectBash))
		if tc.seg >= len(r.Segments) {
			t.Errorf("%s: no segment %d", tc.cmd, tc.seg)
			continue
		}
		if diff := cmp.Diff(tc.want, gitRepoShort(r.Segments[tc.seg].GitRepo)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.cmd, diff)
		}
	}
}

// gitRepoShort writes a GitRepo as TestGitRepoFacts lists it.
func gitRepoShort(g *GitRepo) string {
	if g == nil {
		return ""
	}
	var out []string
	for _, a := range g.Env {
		out = append(out, "env "+a.Name)
	}
	for _, o := range g.GitDir {
		out = append(out, "dir "+o.Value.Value)
	}
	if g.Bare != nil {
		out = append(out, "bare")
	}
	for _, o := range g.WorkTree {
		out = append(out, "tree "+o.Value.Value)
	}
	if len(out) == 0 {
		return "empty"
	}
	return strings.Join(out, ", ")
}

// TestGitRepoInWorkTree: the read of a work tree's value lies in its
// option's span, so the station leaves it out of the directory git finds
// its repository from; a -C read does not.
func TestGitRepoInWorkTree(t *testing.T) {
	r := Classify("git -C a --work-tree ../w status", WithDialect(DialectBash))
	var got []string
	for _, ref := range r.Reads {
		if ref.Source == "cwd-flag" {
			got = append(got, ref.Path+" "+map[bool]string{true: "work tree", false: "cwd"}[r.Segments[0].GitRepo.InWorkTree(ref.Span)])
		}
	}
	if diff := cmp.Diff([]string{"a cwd", "../w work tree"}, got); diff != "" {
		t.Errorf("cwd-flag reads (-want +got):\n%s", diff)
	}
	var none *GitRepo
	if none.InWorkTree(Span{0, 1}) {
		t.Error("a nil GitRepo has a work tree")
	}
}

// TestValidateGitRepo: a malformed git_repo, or runs_git without one, is
// rejected with an error that names the program and the field.
func TestValidateGitRepo(t *testing.T) {
	const base = `
programs:
  - name: vcs
    read_only: true
    options:
      - {names: [--repo-dir, -R], value: required}
      - {names: [--tree], value: required}
      - names: [--bare]
`
	tests := []struct {
		name, yaml string
		want       string // "" for valid
	}{
		{"valid", "    runs_git: true\n    git_repo: {env: [VCS_DIR, \"VCS_CONFIG*\"], git_dir: --repo-dir, bare: --bare, work_tree: --tree}\n", ""},
		{"valid on a subcommand", "    runs_git: true\n    git_repo: {env: [VCS_DIR]}\n    subcommands:\n      - {name: list, read_only: true, git_repo: {env: [VCS_DIR]}}\n", ""},
		{"runs_git without git_repo", "    runs_git: true\n", "vcs: runs_git needs git_repo with env"},
		{"git_repo without runs_git", "    git_repo: {env: [VCS_DIR]}\n", "vcs: git_repo on a program that does not run git"},
		{"empty env", "    runs_git: true\n    git_repo: {git_dir: --repo-dir}\n", "vcs: git_repo: env is empty"},
		{"env name", "    runs_git: true\n    git_repo: {env: [VCS-DIR]}\n", `vcs: git_repo: env "VCS-DIR" is not an environment variable name`},
		{"env star inside", "    runs_git: true\n    git_repo: {env: [\"VCS_*DIR\"]}\n", `env "VCS_*DIR" is not an environment variable name`},
		{"env twice", "    runs_git: true\n    git_repo: {env: [VCS_DIR, VCS_DIR]}\n", `vcs: git_repo: env "VCS_DIR" is listed twice`},
		{"git_dir unknown", "    runs_git: true\n    git_repo: {env: [VCS_DIR], git_dir: --dir}\n", `vcs: git_repo: git_dir: "--dir" is not the first name of an option of the program`},
		{"git_dir not canonical", "    runs_git: true\n    git_repo: {env: [VCS_DIR], git_dir: -R}\n", `git_dir: "-R" is not the first name`},
		{"git_dir without value", "    runs_git: true\n    git_repo: {env: [VCS_DIR], git_dir: --bare}\n", `vcs: git_repo: git_dir: option --bare takes no value`},
		{"bare with value", "    runs_git: true\n    git_repo: {env: [VCS_DIR], bare: --tree}\n", `vcs: git_repo: bare: option --tree takes a value`},
		{"work_tree without value", "    runs_git: true\n    git_repo: {env: [VCS_DIR], work_tree: --bare}\n", `vcs: git_repo: work_tree: option --bare takes no value`},
		{"unknown field", "    runs_git: true\n    git_repo: {env: [VCS_DIR], dir: --tree}\n", `field dir not found`},
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

// TestLogFormatAgreesWithGitrepo: git log's --format and --pretty are
// safe exactly when gitrepo.SignatureFormat says git does not verify
// signatures for them (the catalog's match is that function as a regular
// expression).
func TestLogFormatAgreesWithGitrepo(t *testing.T) {
	values := []string{"oneline", "ONELINE", "Medium", "fuller", "raw", "mboxrd", "reference", "email", "short", "full",
		"sg", "med", "fulle", "", "%", "%%", "%%G", "%%%G", "%%%%G", "%G", "%G?", "%GK", "x%Cred%G", "%h %s", "%h%n%GS",
		"format:", "format:G", "format:%G", "tformat:%GK", "tformat:%an", "tformat:%%G", "format:%", "a%b%c", "%Gx", "%g", "%gG",
		"tformat", "format", "%(describe)", "%C(auto)%h", "%%%", "%x%G"}
	for _, v := range values {
		for _, opt := range []string{"--format=", "--pretty="} {
			cmd := "git log '" + opt + v + "'"
			r := Classify(cmd, WithDialect(DialectBash))
			safe := r.Segments[0].ReadOnly
			if want := !gitrepo.SignatureFormat(v); safe != want {
				t.Errorf("%s: read-only %v, want %v", cmd, safe, want)
			}
		}
	}
}
