package rego

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
)

// TestCatalogDrivesThePolicy gives programs the policy has never heard of
// partition-table keywords and refspec operands by a catalog edit alone,
// and checks that the default policy denies them as it denies parted rm
// and git push --force origin main: the rules read the report's facts
// (findings, pushes), not program names.
func TestCatalogDrivesThePolicy(t *testing.T) {
	f := newFixture(t, nil)
	// catalog is the edit: diskedit with or without keywords that rewrite
	// a partition table, hub ship with or without refspec operands.
	catalog := func(keywords, refspecs bool) string {
		y := `
programs:
  - name: diskedit
    doc: edits disks
    categories: [write]
    syntax: none
    operands: [any...]
`
		if keywords {
			y += `    keywords:
      - {names: [zap, zero-table], abbrev: 2, effect: partition-table, doc: rewrites the partition table}
`
		}
		y += `  - name: hub
    doc: talks to a forge
    categories: [network]
    subcommands:
      - name: ship
        doc: uploads commits
        options:
          - {names: [--clobber], categories: [destructive], effects: [force], doc: overwrites the remote branch}
`
		if refspecs {
			return y + "        operands: [any, refspec...]\n"
		}
		return y + "        operands: [any...]\n"
	}
	plain, edited := catalog(false, false), catalog(true, true)
	tests := []struct {
		name, yaml, cmd string
		want            policy.Action
		has             string // the one of the two codes it must have ("" neither)
	}{
		{"no keywords: asked", plain, "diskedit /dev/sda zap", policy.Ask, ""},
		{"a keyword", edited, "diskedit /dev/sda zap", policy.Deny, "partition-table"},
		{"a keyword's beginning", edited, "diskedit /dev/sda zer 1", policy.Deny, "partition-table"},
		{"shorter than abbrev", edited, "diskedit /dev/sda z", policy.Ask, ""},
		{"another word", edited, "diskedit /dev/sda show", policy.Ask, ""},
		{"a dynamic word", edited, "diskedit /dev/sda $op", policy.Ask, ""},
		{"no refspec role: asked", plain, "hub ship origin +main", policy.Ask, ""},
		{"a + refspec to main", edited, "hub ship origin +main", policy.Deny, "force-push-protected"},
		{"a force option", edited, "hub ship --clobber origin HEAD:refs/heads/master", policy.Deny, "force-push-protected"},
		{"not forced", edited, "hub ship origin main", policy.Ask, ""},
		{"forced, not protected", edited, "hub ship --clobber origin feature", policy.Ask, ""},
		{"the repository is no refspec", edited, "hub ship --clobber main", policy.Ask, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ext, err := classify.ParseCatalog([]byte(tc.yaml), "test.yaml")
			if err != nil {
				t.Fatal(err)
			}
			cat, err := classify.DefaultCatalog().Extend(ext)
			if err != nil {
				t.Fatal(err)
			}
			in := policy.Input{Command: tc.cmd, Mode: policy.ModeDefault, Cwd: f.ws, Config: f.cfg,
				Report: classify.Classify(tc.cmd, classify.WithCatalog(cat), classify.WithDialect(classify.DialectBash))}
			b, err := f.cfg.Boundary(f.ws)
			if err != nil {
				t.Fatal(err)
			}
			b.Env = readstation.FullEnv{}
			in.Station = readstation.Judge(in.Report, b)
			in.Writes = readstation.JudgeWrites(in.Report, b)
			d, err := f.engine.Decide(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range []string{"partition-table", "force-push-protected"} {
				if slices.Contains(d.Codes(), c) {
					got = append(got, c)
				}
			}
			var want []string
			if tc.has != "" {
				want = []string{tc.has}
			}
			if d.Action != tc.want || !cmp.Equal(got, want) {
				t.Errorf("%s: %s %v, want %s %v; reasons %v", tc.cmd, d.Action, got, tc.want, want, d.Reasons)
			}
		})
	}
}
