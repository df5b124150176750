package corpus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/shellgate/shellgate/rego"
	"github.com/shellgate/shellgate/trust"
)

// LoadCorpora loads the named corpora (files or directories, see
// LoadPath), or with none the default ones: the embedded corpus plus the
// directory "corpus" of the current directory when there is one, its
// files identical to embedded ones skipped (so that running in
// shellgate's own tree does not count them twice). The cases of the files
// that load are returned with the errors of those that do not.
func LoadCorpora(paths []string) ([]Case, error) {
	if len(paths) > 0 {
		var all []Case
		var errs []error
		for _, p := range paths {
			cs, err := LoadPath(p)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			all = append(all, cs...)
		}
		return all, errors.Join(errs...)
	}
	all, err := Embedded()
	if err != nil {
		return nil, err
	}
	st, err := os.Stat("corpus")
	if err != nil || !st.IsDir() {
		return all, nil
	}
	embedded := map[string]bool{}
	for _, c := range all {
		embedded[c.File] = true
	}
	local, err := LoadPath("corpus")
	if err != nil {
		return nil, err
	}
	for _, c := range local {
		// corpus/cases/x.sh in this tree is the embedded corpus/cases/x.sh.
		if embedded[c.File] && sameAsEmbedded(c.File) {
			continue
		}
		all = append(all, c)
	}
	return all, nil
}

// sameAsEmbedded reports whether the local file has the embedded content.
func sameAsEmbedded(name string) bool {
	local, err := trust.ReadRegular(filepath.FromSlash(name), MaxFileBytes)
	if err != nil {
		return false
	}
	emb, err := fs.ReadFile(EmbeddedFS(), strings.TrimPrefix(name, "corpus/"))
	return err == nil && bytes.Equal(local, emb)
}

// RegoTests runs the Rego unit tests (*_test.rego) of the policy dirs,
// with the default policy loaded (its own tests left out), as results of
// kind "rego" sorted by name; a skipped test fails, since it checks
// nothing. No test files: no results.
func RegoTests(ctx context.Context, dirs []string) ([]Result, error) {
	srcs := rego.DefaultModules(false)
	n := 0
	for _, d := range dirs {
		mods, err := rego.ReadPolicyDir(d, true)
		if err != nil {
			return nil, fmt.Errorf("policy: %w", err)
		}
		for name, src := range mods {
			if strings.HasSuffix(name, "_test.rego") {
				n++
			}
			srcs[name] = src
		}
	}
	if n == 0 {
		return nil, nil
	}
	trs, err := rego.RunTests(ctx, srcs, false)
	if err != nil {
		return nil, fmt.Errorf("policy tests: %w", err)
	}
	out := make([]Result, 0, len(trs))
	for _, tr := range trs {
		r := Result{Kind: "rego", Name: tr.Name, Pass: tr.Pass && !tr.Skipped && tr.Error == nil}
		if file, line, ok := strings.Cut(tr.Location, ":"); ok {
			r.File = file
			r.Line, _ = strconv.Atoi(line)
		}
		switch {
		case tr.Error != nil:
			r.Err = tr.Error.Error()
		case tr.Skipped:
			r.Problems = []string{"skipped: a skipped test checks nothing"}
		case !tr.Pass:
			r.Problems = []string{"failed at " + tr.Location}
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// FilterResults keeps the results whose name re matches (all when re is
// nil).
func FilterResults(rs []Result, re *regexp.Regexp) []Result {
	if re == nil {
		return rs
	}
	var out []Result
	for _, r := range rs {
		if re.MatchString(r.Name) {
			out = append(out, r)
		}
	}
	return out
}
