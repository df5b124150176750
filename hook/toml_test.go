package hook

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pelletier/go-toml/v2"
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
		{"no value", "a =\n", "line 1: unexpected character U+000A at start of value"},
		{"duplicate key", "a = 1\na = 2\n", "line 2: key a is already defined"},
		{"duplicate table", "[a]\n[a]\n", "line 2: table a already exists"},
		{"extend inline", "a = { b = 1 }\n[a.c]\n", "line 2: key a already exists as a value"},
		{"value as table", "a = 1\n[a.b]\n", "line 2: key a already exists as a value"},
		{"unclosed string", "a = \"x\n", "line 1: basic strings cannot have new lines"},
		{"unclosed array", "a = [1, 2\n", "line 1: array is incomplete"},
		{"garbage after value", "a = 1 2\n", "line 1: expected newline but got U+0032"},
		{"bad escape", `a = "\q"` + "\n", "line 1: invalid escape character U+0071"},
		{"bad token", "a = yes\n", "line 1: unexpected character U+0079 'y' at start of value"},
		{"unclosed header", "[a\n", "line 1: expected ']' to close table name"},
		{"dotted over header", "[a.b]\nx = 1\n[a]\nb.y = 2\n", "line 4: key b is already defined"},
		{"not UTF-8", "a = \"\xff\"\n", "line 1: not valid UTF-8"},
		{"a BOM inside", "a = 1\n\ufeffb = 2\n", "line 2: invalid character at start of key"},
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
// trust entry to it either refuses or gives a config that reads and trusts,
// in which every other byte is kept (the edit replaces the old hash's text,
// or inserts), and every other value reads as before (decoded by go-toml on
// its own: a differential check of the reader's positions).
func FuzzTrustEdit(f *testing.F) {
	for _, s := range []string{"", "model = \"o3\"\n", "[hooks.state.\"k\"]\nenabled = true\n", "[hooks.state.\"k\"]\ntrusted_hash = \"x\"", "hooks = { state = {} }\n", "a = [1, {b = 2}]\n", "s = '''\n'''''\n", "[[p]]\n[p.q]\n",
		"\ufeff# c\r\n[hooks.state.'k'] # x\r\ntrusted_hash = 'old' # y\r\n[z]\n", "[hooks]\nstate.other.enabled = false\n", "[hooks.state.\"k\"]\n", "x = {\n a = 1,\n}\n[hooks.state.k]\nenabled = false"} {
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
		// Every other byte is kept: out is src with one stretch replaced,
		// and that stretch is empty (an insertion) or the old hash.
		pre := 0
		for pre < len(src) && pre < len(out) && src[pre] == out[pre] {
			pre++
		}
		suf := 0
		for suf < len(src)-pre && suf < len(out)-pre && src[len(src)-1-suf] == out[len(out)-1-suf] {
			suf++
		}
		if old := src[pre : len(src)-suf]; old != "" {
			sp, ok := doc.span("hooks", "state", "k", "trusted_hash")
			if !ok || pre < sp.start || len(src)-suf > sp.end {
				t.Fatalf("the edit changed %q, not only the old hash\n%s", old, out)
			}
		}
		// Every other value reads as before.
		before, after := decodeTOML(t, src), decodeTOML(t, out)
		for _, m := range []map[string]any{before, after} {
			hooks, _ := m["hooks"].(map[string]any)
			state, _ := hooks["state"].(map[string]any)
			entry, _ := state["k"].(map[string]any)
			delete(entry, "trusted_hash")
		}
		pruneEmpty(after, before)
		if diff := cmp.Diff(before, after); diff != "" {
			t.Fatalf("the edit changed other values (-before +after):\n%s\n%s", diff, out)
		}
	})
}

// decodeTOML decodes src (without a BOM) with go-toml.
func decodeTOML(t *testing.T, src string) map[string]any {
	t.Helper()
	var v map[string]any
	if err := toml.Unmarshal([]byte(strings.TrimPrefix(src, bom)), &v); err != nil {
		t.Fatalf("go-toml does not read %q: %v", src, err)
	}
	if v == nil {
		v = map[string]any{}
	}
	return v
}

// pruneEmpty removes from after the empty tables the edit added (hooks,
// state, the entry) that before does not have.
func pruneEmpty(after, before map[string]any) {
	for k, v := range after {
		m, ok := v.(map[string]any)
		if !ok {
			continue
		}
		bm, _ := before[k].(map[string]any)
		pruneEmpty(m, bm)
		if _, had := before[k]; len(m) == 0 && !had {
			delete(after, k)
		}
	}
}
