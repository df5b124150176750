package classify_test

import (
	"fmt"

	"github.com/shellgate/shellgate/classify"
)

func ExampleClassify() {
	for _, cmd := range []string{
		"git status && grep -rn TODO src | head",
		"find . -name '*.tmp' -delete",
		"cd /srv && cat app.log > copy.log",
	} {
		r := classify.Classify(cmd)
		fmt.Printf("%s\n  reversible: %v\n", cmd, r.Reversible)
		for _, f := range r.Findings {
			fmt.Printf("  %s %s: %q\n", f.Code, f.Span, cmd[f.Span.Start:f.Span.End])
		}
		for _, p := range r.Reads {
			fmt.Printf("  reads %s in %s\n", p.Path, p.Cwd.Path)
		}
	}
	// Output:
	// git status && grep -rn TODO src | head
	//   reversible: true
	//   reads . in .
	//   reads src in .
	// find . -name '*.tmp' -delete
	//   reversible: false
	//   find-delete 21-28: "-delete"
	// cd /srv && cat app.log > copy.log
	//   reversible: false
	//   redirect-write 23-33: "> copy.log"
	//   reads /srv in .
	//   reads app.log in /srv
}

func ExampleClassify_segments() {
	r := classify.Classify("timeout 5 bash -c 'ls | wc -l'")
	for _, s := range r.Segments {
		fmt.Printf("%d %s parent=%d wrappers=%v read_only=%v\n", s.Index, s.Name, s.Parent, s.Wrappers, s.ReadOnly)
	}
	// Output:
	// 0 timeout parent=-1 wrappers=[] read_only=true
	// 1 bash parent=0 wrappers=[timeout] read_only=true
	// 2 ls parent=1 wrappers=[timeout bash] read_only=true
	// 3 wc parent=1 wrappers=[timeout bash] read_only=true
}

// A command is read as the shell that will run it; when that is not known,
// as bash and as zsh, and what only zsh objects to is named.
func ExampleWithDialect() {
	cmd := "for path in .; do ls; done"
	for _, d := range []classify.Dialect{classify.DialectBash, classify.DialectZsh, classify.DialectUnknown} {
		r := classify.Classify(cmd, classify.WithDialect(d))
		fmt.Printf("%s: reversible %v\n", r.Dialect, r.Reversible)
		for _, f := range r.Findings {
			fmt.Printf("  %s %q dialect=%q\n", f.Code, f.Message[:22], f.Dialect)
		}
	}
	// Output:
	// bash: reversible true
	// zsh: reversible false
	//   zsh-special-variable "in zsh, the loop assig" dialect=""
	// bash+zsh: reversible false
	//   zsh-special-variable "in zsh, the loop assig" dialect="zsh"
}
