package corpus

import (
	"embed"
	"io/fs"
)

//go:embed cases
var embedded embed.FS

// Embedded loads the project's own corpus, embedded in the binary. Its
// cases are named "corpus/cases/FILE:LINE".
func Embedded() ([]Case, error) { return LoadFS(embedded, "cases", "corpus/cases/") }

// EmbeddedFS is the embedded corpus as a file system (its root holds the
// cases directory).
func EmbeddedFS() fs.FS { return embedded }
