package classify

import "strings"

// jqBuiltins are the jq and yq functions that reach past the input: the
// environment (env, $ENV, strenv, envsubst), other files (load, load_str,
// …; import and include of modules and data files from any search path),
// or a program built from a string (eval).
var jqBuiltins = map[string][2]string{
	"env":         {"env-print", "env holds the environment variables, where tokens live"},
	"$ENV":        {"env-print", "$ENV holds the environment variables, where tokens live"},
	"strenv":      {"env-print", "strenv reads an environment variable, where tokens live"},
	"envsubst":    {"env-print", "envsubst expands environment variables, where tokens live"},
	"load":        {"jq-load", "load reads another file, which is not judged"},
	"load_str":    {"jq-load", "load_str reads another file, which is not judged"},
	"load_xml":    {"jq-load", "load_xml reads another file, which is not judged"},
	"load_props":  {"jq-load", "load_props reads another file, which is not judged"},
	"load_base64": {"jq-load", "load_base64 reads another file, which is not judged"},
	"import":      {"jq-load", "import reads a module or data file from the library path, which is not judged"},
	"include":     {"jq-load", "include reads a module from the library path, which is not judged"},
	"eval":        {"jq-load", "eval runs a program built from a string"},
}

// jqProgram finds the builtins of a jq (or yq) program that reach past
// its input (jqBuiltins). A name after "." is a field (.env), and string
// literals and comments are skipped; a dynamic program is not analysed.
func (p *argParser) jqProgram(a Arg) {
	if !a.Static() {
		p.w.find("dynamic-script", "the jq program is only known at run time", a.Span, p.seg.Index)
		return
	}
	src := a.Value
	prev := byte(0) // the last byte that is not a blank
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '"':
			// A string literal; \( … ) interpolations are code, so scan
			// them as such by stepping over the quote only.
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' && j+1 < len(src) {
					if src[j+1] == '(' {
						break
					}
					j++
				}
				j++
			}
			if j < len(src) && src[j] == '\\' {
				i = j + 2 // into the interpolation
			} else {
				i = j + 1
			}
			prev = '"'
			continue
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		case c == '$' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i + 1
			for j < len(src) && (src[j] == '_' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			name := src[i:j]
			if f, ok := jqBuiltins[name]; ok && prev != '.' {
				p.w.find(f[0], p.specName()+": "+f[1], a.Span, p.seg.Index)
			}
			if (name == "input" || name == "inputs") && prev != '.' {
				p.readsInput = true
			}
			prev = src[j-1]
			i = j
			continue
		}
		if !strings.ContainsRune(" \t\r\n", rune(c)) {
			prev = c
		}
		i++
	}
}
