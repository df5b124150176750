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
