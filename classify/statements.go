package classify

import "mvdan.cc/sh/v3/syntax"

// WithStatements calls fn with each top-level statement of the command as
// the parser yields it, after the classifier has described it (its
// segments are in the report by then), so that a reader of the command's
// structure (package exitmeaning follows which statement's status the
// shell returns) needs no parse of its own. Past a limit the statements are
// still parsed and passed to fn, though no longer described. A command
// read in two dialects (DialectUnknown) passes its statements once per
// reading.
func WithStatements(fn func(*syntax.Stmt)) Option {
	return func(cfg *config) { cfg.stmtFn = fn }
}

// ExitStatement reports whether s runs the exit builtin, and whether that
// exit returns the status of the statement before it (`exit`, `exit $?`).
func ExitStatement(s *syntax.Stmt) (isExit, passThrough bool) {
	ce, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 || ce.Args[0].Lit() != "exit" || s.Negated || s.Background {
		return false, false
	}
	if len(ce.Args) == 1 {
		return true, true
	}
	if len(ce.Args) == 2 && len(ce.Args[1].Parts) == 1 {
		if pe, ok := ce.Args[1].Parts[0].(*syntax.ParamExp); ok && pe.Param != nil && pe.Param.Value == "?" && pe.Short {
			return true, true
		}
	}
	return true, false
}

// SetStatusOptions applies a `set` statement to the two shell options that
// decide which command's status a script returns: errexit (set -e, set -o
// errexit) and pipefail (set -o pipefail), and their "+" forms. Any other
// statement leaves them as they are.
func SetStatusOptions(s *syntax.Stmt, errexit, pipefail bool) (bool, bool) {
	ce, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) < 2 || ce.Args[0].Lit() != "set" {
		return errexit, pipefail
	}
	args := make([]string, len(ce.Args)-1)
	for i, a := range ce.Args[1:] {
		args[i] = a.Lit()
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || (a[0] != '-' && a[0] != '+') || a == "--" {
			break
		}
		on := a[0] == '-'
		for j := 1; j < len(a); j++ {
			switch a[j] {
			case 'e':
				errexit = on
			case 'o':
				if i+1 < len(args) {
					i++
					switch args[i] {
					case "pipefail":
						pipefail = on
					case "errexit":
						errexit = on
					}
				}
			}
		}
	}
	return errexit, pipefail
}
