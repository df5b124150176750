package readstation

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"go.yaml.in/yaml/v3"

	"github.com/shellgate/shellgate/classify"
)

// A hidden input with a format (classify.HiddenInput.Format) is read as a
// document, decoded by the format's standard library, not as lines: the
// program reads a key in every spelling its format has (TOML's quoted,
// dotted and escaped keys and inline tables, JSON's \u escapes, YAML's
// flow mappings and quoted keys), and ignores its name in a comment or a
// value. Keys are dotted paths into the decoded tree, "*" any key of a
// table or element of an array (keyMatches). A file that does not decode
// is not established: the program may read it some other way.

// decodeDoc decodes a hidden input's file: a tree of map[string]any (or
// map[any]any, YAML's other keys), []any and scalars. A UTF-8 byte order
// mark is dropped first (npm and node drop it from package.json).
func decodeDoc(format string, data []byte) (any, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	switch format {
	case "toml":
		var m map[string]any
		err := toml.Unmarshal(data, &m)
		return m, err
	case "json":
		var v any
		d := json.NewDecoder(bytes.NewReader(data))
		if err := d.Decode(&v); err != nil {
			return nil, err
		}
		if _, err := d.Token(); !errors.Is(err, io.EOF) {
			return nil, errors.New("data after the JSON value")
		}
		return v, nil
	case "yaml":
		var v any
		err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&v)
		if errors.Is(err, io.EOF) {
			return nil, nil // empty: no keys
		}
		return v, err
	}
	return nil, fmt.Errorf("the format %q is not known", format)
}

// keyMatch is one key a hidden input names, found in a document: its
// path, as the document spells it, and value.
type keyMatch struct {
	path  string
	value any
}

// maxKeyMatches bounds the matches one key reports (a "*" over a large
// array).
const maxKeyMatches = 16

// keyMatches finds a dotted key path in a decoded document: each part a
// key of a table (compared without regard to case when fold), or "*" any
// key of a table or element of an array.
func keyMatches(doc any, key string, fold bool) []keyMatch {
	var out []keyMatch
	var walk func(v any, parts []string, at string)
	walk = func(v any, parts []string, at string) {
		if len(out) >= maxKeyMatches {
			return
		}
		if len(parts) == 0 {
			out = append(out, keyMatch{strings.TrimPrefix(at, "."), v})
			return
		}
		part, rest := parts[0], parts[1:]
		switch t := v.(type) {
		case map[string]any:
			for _, k := range sortedKeys(t) {
				if part == "*" || k == part || (fold && strings.EqualFold(k, part)) {
					walk(t[k], rest, at+"."+k)
				}
			}
		case map[any]any:
			names := map[string]any{}
			for k, e := range t {
				names[fmt.Sprint(k)] = e
			}
			walk(names, parts, at)
		case []any:
			if part != "*" {
				return
			}
			for i, e := range t {
				walk(e, rest, at+"."+strconv.Itoa(i))
			}
		}
	}
	walk(doc, strings.Split(key, "."), "")
	return out
}

// sortedKeys returns a map's keys in order, so that reports are stable.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// showValue renders a document's value for a message: a string quoted,
// anything else as JSON, clipped.
func showValue(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(clip(s))
	}
	b, err := json.Marshal(v)
	if err != nil {
		return clip(fmt.Sprint(v))
	}
	return clip(string(b))
}

// matchDoc judges one file of a hidden input with a format: the first of
// its keys the decoded document sets (to a value the input's value
// matches, when it has one), or, when the file does not decode, an error
// that says why.
func matchDoc(hi classify.HiddenInput, p string, data []byte) (RepoHelper, bool, error) {
	doc, err := decodeDoc(hi.Format, data)
	if err != nil {
		return RepoHelper{}, false, err
	}
	for _, key := range hi.Keys {
		for _, m := range keyMatches(doc, key, hi.FoldCase) {
			if s, isStr := m.value.(string); isStr && hi.Value != "" {
				if re := hiddenRegexp(hi.Value); re != nil && !re.MatchString(s) {
					continue // a pattern that does not compile matches every value
				}
			}
			v := m.path + " = " + showValue(m.value)
			rh := RepoHelper{Key: m.path, File: p, Value: v}
			if hi.Does != "" {
				rh.Why, rh.Does = "sets "+v, hi.Does
			}
			return rh, true, nil
		}
	}
	return RepoHelper{}, false, nil
}
