package classify

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// catalogJSON is the JSON form of catalog.yaml that DefaultCatalog loads.
func catalogJSON(t testing.TB) []byte {
	c, err := ParseCatalog(defaultCatalogYAML, "catalog.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(c); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestCatalogJSON checks that catalog.json is catalog.yaml, re-encoded: the
// YAML is the source, the JSON only loads faster. -update rewrites it.
func TestCatalogJSON(t *testing.T) {
	want := catalogJSON(t)
	if *update {
		if err := os.WriteFile("catalog.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(want, defaultCatalogJSON) {
		t.Fatal("catalog.json is stale: run go test ./classify -run TestCatalogJSON -update")
	}
	// The loaded catalog encodes back to the same JSON: nothing is lost
	// on the way through JSON.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(DefaultCatalog()); err != nil {
		t.Fatal(err)
	}
	got := bytes.TrimSpace(buf.Bytes())
	if diff := cmp.Diff(string(bytes.TrimSpace(want)), string(got)); diff != "" {
		t.Fatalf("the JSON catalog differs from the YAML one (-yaml +json):\n%.3000s", diff)
	}
}

// BenchmarkLoadCatalog compares loading the catalog from YAML and JSON.
func BenchmarkLoadCatalog(b *testing.B) {
	b.Run("yaml", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := ParseCatalog(defaultCatalogYAML, "catalog.yaml"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := parseCatalogJSON(defaultCatalogJSON, "catalog.json"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
