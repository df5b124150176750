package classify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/token"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// catalogBin is the binary form of catalog.yaml that DefaultCatalog loads.
func catalogBin(t testing.TB) []byte {
	c, err := ParseCatalog(defaultCatalogYAML, "catalog.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := encodeCatalogBin(c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// catalogJSON is catalog.yaml written as JSON, the form the catalog was
// loaded from before catalog.bin.
func catalogJSON(t testing.TB, c *Catalog) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(c); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// parseCatalogJSON decodes the JSON form of a catalog and validates it.
func parseCatalogJSON(data []byte, name string) (*Catalog, error) {
	var c Catalog
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := c.build(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &c, nil
}

// exportedOnly compares the exported fields of structs: what a catalog
// says, not the indexes build makes of it.
var exportedOnly = cmp.FilterPath(func(p cmp.Path) bool {
	sf, ok := p.Last().(cmp.StructField)
	return ok && !token.IsExported(sf.Name())
}, cmp.Ignore())

// TestCatalogBin checks that catalog.bin is catalog.yaml, re-encoded: the
// YAML is the source, the binary form only loads faster. go generate
// ./classify rewrites it.
func TestCatalogBin(t *testing.T) {
	want := catalogBin(t)
	if !bytes.Equal(want, []byte(defaultCatalogBin)) {
		t.Fatal("catalog.bin is stale: run go generate ./classify")
	}
	// The loaded catalog is the one the YAML says, and, to the nil or
	// empty list, the one its JSON form (which catalog.bin replaced)
	// loaded: an omitempty list that is empty is nil in both.
	yc, err := ParseCatalog(defaultCatalogYAML, "catalog.yaml")
	if err != nil {
		t.Fatal(err)
	}
	jc, err := parseCatalogJSON(catalogJSON(t, yc), "catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	got := DefaultCatalog()
	if diff := cmp.Diff(jc, got, exportedOnly); diff != "" {
		t.Fatalf("catalog.bin loads another catalog than the JSON form (-json +bin):\n%.3000s", diff)
	}
	if diff := cmp.Diff(string(catalogJSON(t, yc)), string(catalogJSON(t, got))); diff != "" {
		t.Fatalf("catalog.bin loads another catalog than catalog.yaml (-yaml +bin):\n%.3000s", diff)
	}
}

// smallCatalog is a catalog with a field of every kind the encoding has.
const smallCatalog = `
harmless_env: [LC_ALL]
programs:
  - name: grep
    aliases: [egrep]
    read_only: true
    categories: [read]
    options:
      - names: [--file, -f]
        value: required
      - names: [-e]
        value: required
    operands: [pattern, file...]
    exit:
      "1": No matches found
      "2": {message: an error, error: true}
    keywords:
      - names: [mklabel]
        abbrev: 3
        effect: write
        code: k
        doc: writes
  - name: true
    operands: []
`

func smallCatalogBin(t testing.TB) []byte {
	c, err := ParseCatalog([]byte(smallCatalog), "small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := encodeCatalogBin(c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCatalogBinSmall checks the encoding on a catalog small enough to
// read: an empty operand list stays empty (true takes no operands), a
// negative or positive int and a map come back.
func TestCatalogBinSmall(t *testing.T) {
	c, err := ParseCatalog([]byte(smallCatalog), "small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseCatalogBin(string(smallCatalogBin(t)), "small.bin", false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, got, exportedOnly); diff != "" {
		t.Fatalf("(-yaml +bin):\n%s", diff)
	}
	if ops := got.Lookup("true").Operands; ops == nil || len(ops) != 0 {
		t.Errorf("true's operands: %#v, want an empty list", ops)
	}
}

// TestCatalogBinCorrupt checks that a damaged binary catalog is refused
// with an error that names it and says what is wrong, never a panic or a
// catalog read wrong.
func TestCatalogBinCorrupt(t *testing.T) {
	good := string(smallCatalogBin(t))
	head := len(catalogBinMagic) + 8
	invalid, err := encodeCatalogBin(&Catalog{Programs: []*Program{{Name: "x", Effects: []Effect{"explode"}}}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, data, want string
	}{
		{"empty", "", `not a binary catalog`},
		{"json", `{"programs": []}`, `not a binary catalog`},
		{"other types", good[:len(catalogBinMagic)] + "12345678" + good[head:], `written for other catalog types`},
		{"no body", good[:head], `truncated`},
		{"truncated", good[:len(good)-3], `truncated`},
		{"trailing", good + "x", `1 bytes after the catalog`},
		{"huge list", good[:head] + "\x04\xff\xff\xff\xff\x0f", `elements in 0 bytes`},
		{"unknown field", good[:head] + "\x08", `fields 0x8 set of 3`},
		{"null program", good[:head] + "\x04\x02\x00", `program 1 is empty (null)`},
		{"invalid", string(invalid), `unknown effect "explode"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseCatalogBin(tt.data, "catalog.bin", false)
			if err == nil {
				t.Fatalf("parsed: %d programs", len(c.Programs))
			}
			if !strings.HasPrefix(err.Error(), "catalog.bin: ") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q, want catalog.bin: ...%s...", err, tt.want)
			}
		})
	}
}

// FuzzCatalogBin checks that no damaged binary catalog panics, and that
// one that loads encodes back to the same bytes.
func FuzzCatalogBin(f *testing.F) {
	f.Add(smallCatalogBin(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parseCatalogBin(string(data), "catalog.bin", false)
		if err != nil {
			return
		}
		again, err := encodeCatalogBin(c)
		if err != nil {
			t.Fatal(err)
		}
		if c2, err := parseCatalogBin(string(again), "again.bin", false); err != nil {
			t.Fatalf("re-encoded catalog does not load: %v", err)
		} else if diff := cmp.Diff(c, c2, exportedOnly); diff != "" {
			t.Fatalf("(-first +again):\n%s", diff)
		}
	})
}

// BenchmarkLoadCatalog compares loading the catalog from YAML, JSON and
// the binary form.
func BenchmarkLoadCatalog(b *testing.B) {
	b.Run("yaml", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := ParseCatalog(defaultCatalogYAML, "catalog.yaml"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		yc, err := ParseCatalog(defaultCatalogYAML, "catalog.yaml")
		if err != nil {
			b.Fatal(err)
		}
		data := catalogJSON(b, yc)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := parseCatalogJSON(data, "catalog.json"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bin", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := parseCatalogBin(defaultCatalogBin, "catalog.bin", false); err != nil {
				b.Fatal(err)
			}
		}
	})
	// bin-lazy is how DefaultCatalog loads it, with the programs a check
	// of `git status | grep x` looks up built.
	b.Run("bin-lazy", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			c, err := parseCatalogBin(defaultCatalogBin, "catalog.bin", true)
			if err != nil {
				b.Fatal(err)
			}
			if c.Lookup("git") == nil || c.Lookup("grep") == nil {
				b.Fatal("git or grep missing")
			}
		}
	})
}

// TestLazyCatalog checks the lazy load of the embedded catalog against
// the whole build: every program it looks up is the one the whole build
// makes, Validate builds and checks them all, lookups from many
// goroutines at once build each program once, and a program that does
// not build is not found (an unknown program is asked about) while
// Validate reports it.
func TestLazyCatalog(t *testing.T) {
	whole, err := parseCatalogBin(defaultCatalogBin, "catalog.bin", false)
	if err != nil {
		t.Fatal(err)
	}
	lazy, err := parseCatalogBin(defaultCatalogBin, "catalog.bin", true)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, p := range whole.Programs {
				lazy.LookupIn(p.Name, DialectZsh)
			}
		}()
	}
	wg.Wait()
	// A program reached through Programs, not looked up, builds on its
	// first use too.
	fresh, err := parseCatalogBin(defaultCatalogBin, "catalog.bin", true)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range whole.Programs {
		q := fresh.Programs[i]
		for _, s := range p.Subcommands {
			if (q.Sub(s.Name) == nil) || q.HasOption("--help") != p.HasOption("--help") {
				t.Errorf("%s %s: not found on a program reached through Programs", p.Name, s.Name)
			}
		}
	}
	for _, p := range whole.Programs {
		got := lazy.Lookup(p.Name)
		if got == nil {
			t.Fatalf("lazy catalog has no %s", p.Name)
		}
		for _, name := range []string{"-n", "--help", "-r", "log", "status"} {
			if got.HasOption(name) != p.HasOption(name) || (got.Sub(name) == nil) != (p.Sub(name) == nil) {
				t.Errorf("%s: option or subcommand %s differs between the lazy and the whole build", p.Name, name)
			}
		}
	}
	if err := lazy.Validate(); err != nil {
		t.Fatalf("Validate of the lazy catalog: %v", err)
	}

	broken, err := parseCatalogBin(defaultCatalogBin, "catalog.bin", true)
	if err != nil {
		t.Fatal(err)
	}
	p := broken.byName["grep"]
	p.Syntax = "no-such-syntax"
	if broken.Lookup("grep") != nil {
		t.Error("a program that does not build was found")
	}
	if err := broken.Validate(); err == nil || !strings.Contains(err.Error(), "no-such-syntax") {
		t.Errorf("Validate = %v, want the unknown syntax named", err)
	}
	if broken.Lookup("cat") == nil {
		t.Error("cat, which builds, was not found")
	}
}
