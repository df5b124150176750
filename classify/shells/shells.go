// Package shells names the shells of the command catalog and the dialect
// each is read in, for code that must not link the parser or load the
// catalog (the thin hook client starts before every command).
//
// The table (table.go) is generated from the entries of classify's
// embedded catalog that have a dialect shellgate reads (bash, zsh, sh);
// classify's TestShellsTable fails when it is stale, and
// `go generate ./classify` rewrites it. The
// catalog stays the one place that says which programs are shells.
package shells

import "strings"

// Dialect returns the dialect shellgate reads the shell named name in
// ("bash", "zsh" or "sh"; dash is "sh"), or "" when the catalog names no
// such shell. A path is reduced to its base name ("/bin/zsh") and a login
// shell's leading "-" ("-zsh") is dropped, as $SHELL and argv[0] give them.
func Dialect(name string) string {
	name = strings.TrimSpace(name)
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return dialects[strings.TrimPrefix(name, "-")]
}
