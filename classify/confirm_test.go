package classify

import (
	"errors"
	"os/exec"
	"testing"

	"github.com/shellgate/shellgate/internal/testenv"
)

// confirmExceptions are table commands where the parser and bash -n
// disagree on purpose, with the reason.
var confirmExceptions = map[string]string{
	// bash warns "here-document delimited by end-of-file" and runs it;
	// mvdan/sh refuses a heredoc without its body, which fails closed.
	"cat <<EOF": "heredoc without a body",
	// mvdan/sh parses extended globs always; bash needs shopt -s extglob,
	// so bash refuses the command and nothing runs.
	"echo @(a|b)": "extglob",
	// mvdan/sh reads a[x] at the start of a command as an array element
	// assignment that lacks its "="; bash runs the glob l[s] as a program.
	// Refusing it fails closed.
	"l[s] x": "array subscript in command position",
}

// TestConfirmBash checks that every table command parses exactly when
// real bash parses it (bash -n), the way mvdan/sh's TestParseConfirm does.
func TestConfirmBash(t *testing.T) {
	if testing.Short() {
		t.Skip("runs bash for every table command")
	}
	bash := testenv.LookPath(t, "bash")
	var all []string
	for _, tc := range classifyCases {
		all = append(all, tc.in)
	}
	for _, tc := range goldenCases {
		all = append(all, tc.in)
	}
	for _, tc := range customCatalogCases {
		all = append(all, tc.in)
	}
	checked, agreed := 0, 0
	for _, in := range all {
		cmd := exec.Command(bash, "--norc", "--noprofile", "-n", "-c", in)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("bash -n -c %q: %v", in, err)
		}
		bashOK := err == nil
		r := Classify(in, WithDialect(DialectBash))
		checked++
		if reason, ok := confirmExceptions[in]; ok {
			if bashOK == r.Parse.OK {
				t.Errorf("%q: listed as an exception (%s) but bash and the parser agree now", in, reason)
			}
			continue
		}
		if bashOK != r.Parse.OK {
			t.Errorf("%q: bash -n ok=%v (%s), parse ok=%v (%s)", in, bashOK, out, r.Parse.OK, r.Parse.Error)
			continue
		}
		agreed++
	}
	t.Logf("%d commands checked, %d agree with bash -n, %d documented exceptions", checked, agreed, len(confirmExceptions))
}
