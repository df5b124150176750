package trust

import (
	"encoding/json"
	"testing"
)

// FuzzParse: Parse never panics, and a store it accepts survives a round
// trip through JSON unchanged (so Save writes what Load reads).
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"version":1,"entries":[]}`,
		`{"version":1,"entries":[{"path":"/p/.shellgate.yaml","kind":"file","sha256":"` + digest + `","trusted_at":"2026-01-02T03:04:05Z"}]}`,
		`{"version":1,"entries":[{"path":"/p","kind":"dir","sha256":"` + digest + `"}]}`,
		`{`, ``, `null`, `[]`, `{"version":1}{}`, `{"version":1,"entries":[{"path":"/p/../q"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			return
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		s2, err := Parse(b)
		if err != nil {
			t.Fatalf("a store Parse accepted does not parse again: %v\n%s", err, b)
		}
		if len(s2.Entries) != len(s.Entries) {
			t.Fatalf("round trip: %d entries, then %d", len(s.Entries), len(s2.Entries))
		}
		for i := range s.Entries {
			if !s.Trusted(s2.Entries[i].Path, s2.Entries[i].Kind, s2.Entries[i].SHA256) {
				t.Fatalf("round trip lost entry %d", i)
			}
		}
	})
}
