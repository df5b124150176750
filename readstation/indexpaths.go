package readstation

// IndexPaths returns the paths a git index file's content lists (format
// versions 2, 3 and 4), as the station reads them: a split or sparse
// index, which does not list every tracked path, is an error, so that a
// caller asking "does git track this path?" gets no answer rather than a
// wrong "no".
func IndexPaths(data []byte) ([]string, error) { return parseIndex(data) }
