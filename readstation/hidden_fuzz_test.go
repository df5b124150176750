package readstation

import (
	"strings"
	"testing"
)

// FuzzHiddenParsers feeds the readers of toolchain files any input: none
// panics; a Go version compares equal to itself and the comparison is
// antisymmetric; what a go.mod directive reader returns has no comment
// and no blank word; a toolchain file read names a channel or a path; a
// document that decodes yields key matches whose paths have as many parts
// as the key (v is the key).
func FuzzHiddenParsers(f *testing.F) {
	for _, s := range []string{
		"module m\n\ngo 1.22\ntoolchain go1.99.1 // x\n",
		"require (\n\tgolang.org/x/sync v0.24.0 // indirect\n\t\"example.com/Upper\" v1.0.0\n)\nreplace a => ../b\n",
		"GOTOOLCHAIN=auto\r\n# c\nGOFLAGS=-mod=mod\n=x\n",
		"[toolchain]\nchannel = \"1.70.0\" # x\ncomponents = [ \"clippy\",\n \"rust-src\" ]\n",
		"nightly-2020-01-01\n", "[toolchain\n", "toolchain = { path = '''/x''' }\n",
		`{"users":[{"user":{"\u0065xec":{}}}]}`, "users: [{user: {exec: x}}]\n? a\n: &b {c: *b}\n", "1.21rc1", "go1.2.3-bigcorp", "`x` \"y\\\"z\"",
	} {
		f.Add(s, "1.26.8")
	}
	f.Fuzz(func(t *testing.T, data, v string) {
		if goCompare(data, data) != 0 && goParse(data) != (goVersion{}) {
			t.Fatalf("goCompare(%q, itself) != 0", data)
		}
		if goCompare(data, v) != -goCompare(v, data) {
			t.Fatalf("goCompare(%q, %q) is not antisymmetric", data, v)
		}
		goFromToolchain(data)
		goIsLang(data)
		goModLookup([]byte(data), "go")
		for _, verb := range []string{"require", "replace", "use"} {
			for _, args := range goModDirectives([]byte(data), verb) {
				for _, a := range args {
					if a == "" && !strings.Contains(data, `""`) && !strings.Contains(data, "``") {
						t.Fatalf("%q: an empty word in %q", data, args)
					}
				}
			}
		}
		parseGoEnvFile([]byte(data))
		for _, legacy := range []bool{true, false} {
			if tf, ok := parseRustToolchain([]byte(data), legacy); ok && tf.channel == "" && tf.path == "" {
				t.Fatalf("%q (legacy %v): read, but names neither a channel nor a path", data, legacy)
			}
		}
		parseRustSettings([]byte(data))
		for _, format := range []string{"toml", "json", "yaml"} {
			doc, err := decodeDoc(format, []byte(data))
			if err != nil || v == "" {
				continue
			}
			for _, key := range []string{v, "*.*", "users.*.user.exec"} {
				for _, m := range keyMatches(doc, key, true) {
					if strings.Count(m.path, ".") < strings.Count(key, ".") {
						t.Fatalf("%s %q: key %q matched %q", format, data, key, m.path)
					}
					showValue(m.value)
				}
			}
		}
		escapeModPath(data)
		globPath(data, v)
	})
}
