package classify

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestKeywordMatches: a keyword matches its names, and with abbrev any
// beginning of one at least that long (parted mkl is mklabel).
func TestKeywordMatches(t *testing.T) {
	parted := Keyword{Names: []string{"rm", "mklabel", "mkpart", "resizepart"}, Abbrev: 2}
	sfdisk := Keyword{Names: []string{"--delete", "--wipe"}}
	long := Keyword{Names: []string{"--delete"}, Abbrev: 4}
	tests := []struct {
		k    Keyword
		word string
		want bool
	}{
		{parted, "rm", true},
		{parted, "mklabel", true},
		{parted, "mkl", true},
		{parted, "mk", true}, // mklabel or mkpart: either rewrites the table
		{parted, "m", false},
		{parted, "r", false},
		{parted, "res", true},
		{parted, "print", false},
		{parted, "mklabelx", false},
		{parted, "", false},
		{sfdisk, "--delete", true},
		{sfdisk, "--del", false}, // no abbrev: the words as written only
		{sfdisk, "--wipe", true},
		{long, "--de", true},
		{long, "--d", false},
	}
	for _, tc := range tests {
		if got := tc.k.Matches(tc.word); got != tc.want {
			t.Errorf("%v (abbrev %d).Matches(%q) = %t, want %t", tc.k.Names, tc.k.Abbrev, tc.word, got, tc.want)
		}
	}
}

// TestValidateKeywords: Validate refuses keywords that could not mean
// what they say.
func TestValidateKeywords(t *testing.T) {
	tests := []struct {
		name, keywords string
		want           string // in the error; "" valid
	}{
		{"valid", `[{names: [rm, mklabel], abbrev: 2, effect: partition-table, doc: rewrites the table}]`, ""},
		{"valid with a code", `[{names: [--delete], effect: destructive, code: part-delete, doc: deletes a partition}]`, ""},
		{"no names", `[{names: [], effect: partition-table, doc: d}]`, "an entry with no names"},
		{"blank name", `[{names: [""], effect: partition-table, doc: d}]`, `"" is not a word`},
		{"name with a space", `[{names: ["rm x"], effect: partition-table, doc: d}]`, `"rm x" is not a word`},
		{"listed twice", `[{names: [rm], effect: partition-table, doc: d}, {names: [rm], effect: destructive, doc: d}]`, `"rm" is listed twice`},
		{"abbrev within the dashes", `[{names: [--delete], abbrev: 2, effect: partition-table, doc: d}]`, "does not go past the leading dashes"},
		{"negative abbrev", `[{names: [rm], abbrev: -1, effect: partition-table, doc: d}]`, "is negative"},
		{"no effect", `[{names: [rm], doc: d}]`, "no effect"},
		{"unknown effect", `[{names: [rm], effect: explode, doc: d}]`, `unknown effect "explode"`},
		{"an effect with a value", `[{names: [rm], effect: writes-file, doc: d}]`, `effect "writes-file" is not one a word has on its own`},
		{"an effect that runs", `[{names: [rm], effect: exec, doc: d}]`, `effect "exec" is not one a word has on its own`},
		{"an effect on how operands are read", `[{names: [rm], effect: recursive, doc: d}]`, `effect "recursive" is not one a word has on its own`},
		{"no doc", `[{names: [rm], effect: partition-table}]`, "no doc"},
		{"bad code", `[{names: [rm], effect: partition-table, code: Part_Table, doc: d}]`, `code "Part_Table"`},
		{"unknown key", `[{names: [rm], effect: partition-table, doc: d, prefix: true}]`, "field prefix not found"},
		{"valid match", `[{names: [rm], match: '^rm/', effect: partition-table, doc: d}]`, ""},
		{"bad match", `[{names: [rm], match: '(', effect: partition-table, doc: d}]`, "keywords: rm: match: error parsing regexp"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			y := "programs:\n  - name: diskedit\n    syntax: none\n    operands: [any...]\n    keywords: " + tc.keywords + "\n"
			_, err := ParseCatalog([]byte(y), "test.yaml")
			got := ""
			if err != nil {
				got = err.Error()
			}
			if tc.want == "" && err != nil || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("error %q, want one with %q", got, tc.want)
			}
		})
	}
}

// TestKeywordFindings: the embedded catalog's parted and sfdisk words,
// as the classifier reports them.
func TestKeywordFindings(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string // partition-table findings: "span message"
	}{
		{"parted /dev/sda rm 1", []string{"16-18 parted rm: rewrites a partition table, destroying the data of the partitions it changes"}},
		{"parted -s /dev/sda mkl gpt mkpart p 0% 100%", []string{"19-22 parted mkl: rewrites a partition table, destroying the data of the partitions it changes",
			"27-33 parted mkpart: rewrites a partition table, destroying the data of the partitions it changes"}},
		{"parted /dev/sda print", nil},
		{"parted /dev/sda 'r'", nil},
		{"parted /dev/sda $cmd", nil},
		{"sudo sfdisk --delete /dev/sda 2", []string{"12-20 sfdisk --delete: rewrites a partition table, destroying the data of the partitions it removes or moves"}},
		{"sfdisk -l /dev/sda", nil},
		{"sfdisk --del /dev/sda 2", []string{"7-12 sfdisk --del: rewrites a partition table, destroying the data of the partitions it removes or moves"}},
		{"sfdisk --d /dev/sda 2", nil},
	}
	for _, tc := range tests {
		r := Classify(tc.cmd, WithDialect(DialectBash))
		var got []string
		for _, f := range r.Findings {
			if f.Code == "partition-table" {
				got = append(got, f.Span.String()+" "+f.Message)
			}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: partition-table findings (-want +got):\n%s", tc.cmd, diff)
		}
	}
}

// TestPushes: the refs git push updates, as the report lists them.
func TestPushes(t *testing.T) {
	tests := []struct {
		cmd  string
		want []Push
	}{
		{"git push origin main", []Push{{Branch: "main", Span: Span{16, 20}}}},
		{"git push origin +main", []Push{{Branch: "main", Force: true, Span: Span{16, 21}}}},
		{"git push --force origin HEAD:refs/heads/master dev", []Push{{Branch: "master", Force: true, Span: Span{24, 46}}, {Branch: "dev", Force: true, Span: Span{47, 50}}}},
		{"git push origin main --force-with-lease", []Push{{Branch: "main", Force: true, Span: Span{16, 20}}}},
		{"git push origin v1:refs/tags/v1", []Push{{Branch: "refs/tags/v1", Span: Span{16, 31}}}},
		{"git push --force main", nil}, // main is the repository
		{"git push origin $b", nil},
		{"git push", nil},
		{"git fetch origin +main", nil},
	}
	for _, tc := range tests {
		r := Classify(tc.cmd, WithDialect(DialectBash))
		var got []Push
		for _, s := range r.Segments {
			got = append(got, s.Pushes...)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: pushes (-want +got):\n%s", tc.cmd, diff)
		}
	}
}
