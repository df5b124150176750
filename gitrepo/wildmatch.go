package gitrepo

import "strings"

// wildmatch is git's wildmatch.c (dowild) for patterns without bracket
// expressions or backslashes (callers treat those as matching: a
// superset): '?' matches one character, '*' any run, '**' (between
// slashes) any run across directories; with pathname, '?' and '*' do not
// match '/'.
func wildmatch(pattern, text string, pathname, icase bool) bool {
	return dowild(pattern, text, pathname, icase) == wmMatch
}

const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

func foldByte(c byte, icase bool) byte {
	if icase && c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func dowild(pat, text string, pathname, icase bool) int {
	p, t := 0, 0
	for ; p < len(pat); p, t = p+1, t+1 {
		pch := pat[p]
		tch := at(text, t)
		if tch == 0 && pch != '*' {
			return wmAbortAll
		}
		tch = foldByte(tch, icase)
		pch = foldByte(pch, icase)
		switch pch {
		default:
			if tch != pch {
				return wmNoMatch
			}
			continue
		case '?':
			if pathname && tch == '/' {
				return wmNoMatch
			}
			continue
		case '*':
			var matchSlash bool
			p++
			if at(pat, p) == '*' {
				prev := p - 2
				for p++; at(pat, p) == '*'; p++ {
				}
				if (prev < 0 || pat[prev] == '/') && (at(pat, p) == 0 || at(pat, p) == '/') {
					if at(pat, p) == '/' && dowild(pat[p+1:], text[t:], pathname, icase) == wmMatch {
						return wmMatch
					}
					matchSlash = true
				} else {
					matchSlash = false
				}
			} else {
				matchSlash = !pathname
			}
			if p >= len(pat) {
				if !matchSlash && strings.IndexByte(text[t:], '/') >= 0 {
					return wmNoMatch
				}
				return wmMatch
			} else if !matchSlash && pat[p] == '/' {
				slash := strings.IndexByte(text[t:], '/')
				if slash < 0 {
					return wmNoMatch
				}
				t += slash
				// the slash is consumed by the loop
				continue
			}
			for {
				if tch == 0 {
					break
				}
				if c := pat[p]; c != '*' && c != '?' && c != '[' && c != '\\' {
					pc := foldByte(c, icase)
					for tch = at(text, t); tch != 0 && (matchSlash || tch != '/'); tch = at(text, t) {
						tch = foldByte(tch, icase)
						if tch == pc {
							break
						}
						t++
					}
					if tch != pc {
						return wmNoMatch
					}
				}
				if m := dowild(pat[p:], text[t:], pathname, icase); m != wmNoMatch {
					if !matchSlash || m != wmAbortToStarStar {
						return m
					}
				} else if !matchSlash && tch == '/' {
					return wmAbortToStarStar
				}
				t++
				tch = at(text, t)
			}
			return wmAbortAll
		}
	}
	if t < len(text) {
		return wmNoMatch
	}
	return wmMatch
}
