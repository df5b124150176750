package readstation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseGitConfig(t *testing.T) {
	src := `# comment
[core]pager=less
	FSMonitor = "./a b" ; trailing comment
	editor = vim # another
	sshCommand = "ssh -o 'X=1' \
-i key"
	quoted = "semi;colon # kept"
	bare
[diff "My Driver"]
	textconv = ./conv
[Filter.Crypt]
	smudge = ./dec
[alias]
	st = "!f() { echo \"hi\"; }; f"
[broken
	key = v
[core] pager = more
`
	var got []string
	for _, e := range parseGitConfig([]byte(src), "cfg") {
		got = append(got, e.name()+"="+e.value)
	}
	want := []string{
		"core.pager=less",
		"core.fsmonitor=./a b",
		"core.editor=vim",
		"core.sshcommand=ssh -o 'X=1' -i key",
		"core.quoted=semi;colon # kept",
		"core.bare=true",
		"diff.My Driver.textconv=./conv",
		"filter.crypt.smudge=./dec",
		`alias.st=!f() { echo "hi"; }; f`,
		"core.pager=more",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
