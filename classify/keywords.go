package classify

import (
	"regexp"
	"strings"
)

// Keyword is a set of words a program gives a meaning of its own wherever
// they stand among its operands (catalog keywords): parted runs the
// commands its operands name (parted DEVICE mklabel gpt), and sfdisk, read
// without options (syntax none), takes --delete among its words. An
// operand that is one of the words, or (Abbrev) a long enough beginning of
// one, has the keyword's effect, with its code and doc.
type Keyword struct {
	// Names are the words, each as the program spells it in full.
	Names []string `yaml:"names" json:"names"`
	// Match, when set, is a regular expression: an operand it matches is
	// one of the words as well (kubectl get secret/NAME, secrets,pods).
	Match string `yaml:"match,omitempty" json:"match,omitempty"`
	match *regexp.Regexp
	// Abbrev, when not 0, is the length of the shortest beginning of a
	// name the program also takes as that name: parted takes any prefix
	// of a command that no other command shares, and none shorter than
	// two letters is unique (rm, rescue, resizepart share "r"), so any
	// word of two or more letters that begins mklabel counts as mklabel.
	// It must exceed the name's leading dashes ("--" alone never counts).
	Abbrev int `yaml:"abbrev,omitempty" json:"abbrev,omitempty"`
	// Effect is the effect of an operand that is one of the words.
	Effect Effect `yaml:"effect" json:"effect"`
	// Code is the finding code (default: the effect's).
	Code string `yaml:"code,omitempty" json:"code,omitempty"`
	// Doc says what the word does, for the finding's message.
	Doc string `yaml:"doc" json:"doc"`
}

// Matches reports whether the static word w is one of the keyword's names
// or, with Abbrev, a beginning of one at least Abbrev bytes long.
func (k *Keyword) Matches(w string) bool {
	if k.match != nil && k.match.MatchString(w) {
		return true
	}
	for _, n := range k.Names {
		if w == n {
			return true
		}
		if k.Abbrev > 0 && len(w) >= k.Abbrev && strings.HasPrefix(n, w) {
			return true
		}
	}
	return false
}

// checkKeywords checks the program's keywords: names that are words, not
// listed twice; an abbreviation longer than a name's leading dashes; a
// known effect an operand word can have (one that needs no value and runs
// nothing), with a doc; a code in the code syntax.
func (p *Program) checkKeywords(bad func(string, ...any)) {
	seen := map[string]bool{}
	for i := range p.Keywords {
		k := &p.Keywords[i]
		if len(k.Names) == 0 {
			bad("keywords: an entry with no names")
			continue
		}
		for _, n := range k.Names {
			switch {
			case n == "" || strings.ContainsAny(n, " \t\n\x00"):
				bad("keywords: %q is not a word", n)
			case seen[n]:
				bad("keywords: %q is listed twice", n)
			}
			seen[n] = true
			if dashes := len(n) - len(strings.TrimLeft(n, "-")); k.Abbrev != 0 && k.Abbrev <= dashes {
				bad("keywords: %s: abbrev %d does not go past the leading dashes", n, k.Abbrev)
			}
		}
		if k.Abbrev < 0 {
			bad("keywords: %s: abbrev %d is negative", k.Names[0], k.Abbrev)
		}
		h := effectHandlers[k.Effect]
		switch {
		case k.Effect == "":
			bad("keywords: %s: no effect", k.Names[0])
		case h == nil:
			bad("keywords: %s: unknown effect %q", k.Names[0], k.Effect)
		case h.value != nil || h.option != nil || h.runs || h.mark != nil:
			bad("keywords: %s: effect %q is not one a word has on its own (it needs a value, runs something or changes how operands are read)", k.Names[0], k.Effect)
		}
		if strings.TrimSpace(k.Doc) == "" {
			bad("keywords: %s: no doc", k.Names[0])
		}
		if k.Code != "" && !validCode(k.Code) {
			bad("keywords: %s: code %q is not lower-case words joined by \"-\"", k.Names[0], k.Code)
		}
		k.match = nil
		if k.Match != "" {
			re, err := compileMatch(k.Match)
			if err != nil {
				bad("keywords: %s: match: %v", k.Names[0], err)
			}
			k.match = re
		}
	}
}

// validCode reports whether c is in the code syntax: lower-case letters
// and digits in words joined by "-".
func validCode(c string) bool {
	if c == "" || strings.HasPrefix(c, "-") || strings.HasSuffix(c, "-") || strings.Contains(c, "--") {
		return false
	}
	for _, r := range c {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// keywords adds the effect of every static operand that is one of the
// keywords of the program (or of the subcommand in force).
func (f *finisher) keywords() {
	root, spec := f.p.root, f.spec
	if len(root.Keywords) == 0 && (spec == root || len(spec.Keywords) == 0) {
		return
	}
	for _, op := range f.seg.Operands {
		if !op.Static() {
			continue
		}
		for _, list := range [][]Keyword{root.Keywords, spec.Keywords} {
			for i := range list {
				if k := &list[i]; k.Matches(op.Value) {
					f.p.effects = append(f.p.effects, effectAt{effect: k.Effect, code: k.Code, doc: k.Doc, who: f.name + " " + op.Value, span: op.Span})
				}
			}
			if spec == root {
				break
			}
		}
	}
}
