package hook

import (
	"strings"
	"testing"
)

func TestParseTOML(t *testing.T) {
	for _, c := range []struct {
		name, src string
		path      []string
		want      any
	}{
		{"basic", "model = \"o3\"\n", []string{"model"}, "o3"},
		{"bom and crlf", "\ufeffmodel = 'o3'\r\n", []string{"model"}, "o3"},
		{"quoted header", "[projects.\"/a b/c\"]\ntrust_level = \"trusted\" # yes\n", []string{"projects", "/a b/c", "trust_level"}, "trusted"},
		{"literal header key", "[hooks.state.'/x:pre_tool_use:0:0']\nenabled = false\n", []string{"hooks", "state", "/x:pre_tool_use:0:0", "enabled"}, false},
		{"dotted keys", "hooks.state.\"k\".trusted_hash = \"h\"\n", []string{"hooks", "state", "k", "trusted_hash"}, "h"},
		{"inline tables", "features = { hooks = false, other = { a = [1, 2,] } }\n", []string{"features", "hooks"}, false},
		{"escapes", `s = "a\"b\\c\u00e9\n"` + "\n", []string{"s"}, "a\"b\\cé\n"},
		{"multi-line basic", "s = \"\"\"\nline \\\n   joined\"\"\"\n", []string{"s"}, "line joined"},
		{"multi-line literal", "s = '''\nraw \\n '''''\n", []string{"s"}, "raw \\n ''"},
		{"numbers and dates", "a = 1_000\nb = -3.5e2\nc = 0xff\nd = 1979-05-27T07:32:00Z\ne = 1979-05-27 07:32:00\nf = inf\ns = \"x\"\n", []string{"s"}, "x"},
		{"array of tables", "[[profiles]]\nname = \"a\"\n[[profiles]]\nname = \"b\"\n[profiles.sub]\nx = \"y\"\n", nil, nil},
		{"multi-line array with comments", "a = [\n  1, # one\n  2,\n]\nb = \"ok\"\n", []string{"b"}, "ok"},
		{"implicit then explicit", "[a.b]\nx = 1\n[a]\ny = \"z\"\n", []string{"a", "y"}, "z"},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, err := parseTOML(c.src)
			if err != nil {
				t.Fatal(err)
			}
			if c.path == nil {
				return
			}
			got, ok := doc.lookup(c.path...)
			if !ok || got != c.want {
				t.Errorf("%v = %#v (%v), want %#v", c.path, got, ok, c.want)
			}
		})
	}
}

func TestParseTOMLErrors(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"no value", "a =\n", "line 1: expected a value"},
		{"duplicate key", "a = 1\na = 2\n", "line 2: key a is defined twice"},
		{"duplicate table", "[a]\n[a]\n", "line 2: table a is defined twice"},
		{"extend inline", "a = { b = 1 }\n[a.c]\n", "inline table and cannot be extended"},
		{"value as table", "a = 1\n[a.b]\n", "a is a value, not a table"},
		{"unclosed string", "a = \"x\n", "not closed on its line"},
		{"unclosed array", "a = [1, 2\n", "expected , or ] in an array"},
		{"garbage after value", "a = 1 2\n", "unexpected"},
		{"bad escape", `a = "\q"` + "\n", "invalid escape"},
		{"bad token", "a = yes\n", `"yes" is not a TOML value`},
		{"unclosed header", "[a\n", "not closed"},
		{"dotted over header", "[a.b]\nx = 1\n[a]\nb.y = 2\n", "dotted keys cannot extend"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseTOML(c.src)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error with %q", err, c.want)
			}
		})
	}
}

// FuzzTrustEdit: no input panics the reader; when a config reads, adding a
// trust entry to it either refuses or gives a config that reads and trusts.
func FuzzTrustEdit(f *testing.F) {
	for _, s := range []string{"", "model = \"o3\"\n", "[hooks.state.\"k\"]\nenabled = true\n", "[hooks.state.\"k\"]\ntrusted_hash = \"x\"", "hooks = { state = {} }\n", "a = [1, {b = 2}]\n", "s = '''\n'''''\n", "[[p]]\n[p.q]\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		doc, err := parseTOML(src)
		if err != nil {
			return
		}
		out, err := setTrustedHash(src, doc, "k", "sha256:h")
		if err != nil {
			return
		}
		check, err := parseTOML(out)
		if err != nil {
			// TrustCodexHook re-reads its result and refuses such an
			// edit; the fuzzer reports it so that the edit can be fixed.
			t.Fatalf("edited config does not read: %v\n%s", err, out)
		}
		if v, _ := check.lookup("hooks", "state", "k", "trusted_hash"); v != "sha256:h" {
			t.Fatalf("edited config does not trust: %#v\n%s", v, out)
		}
	})
}
