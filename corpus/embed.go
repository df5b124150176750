package corpus

import "embed"

//go:embed cases
var embedded embed.FS

// Embedded loads the project's own corpus, embedded in the binary. Its
// cases are named "corpus/cases/FILE:LINE".
func Embedded() ([]Case, error) { return LoadFS(embedded, "cases", "corpus/cases/") }
