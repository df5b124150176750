package classify

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellgate/shellgate/internal/testenv"
)

// TestConfirmPartitionKeywords runs the real parted and sfdisk on a disk
// image with two partitions, once per spelling, and holds the catalog's
// keywords to what they did: every spelling that changed the partitions
// has a partition-table finding, and a spelling that changed nothing has
// none, except the beginnings the program refuses as ambiguous, which the
// catalog counts all the same (fail closed, across versions).
func TestConfirmPartitionKeywords(t *testing.T) {
	parted := testenv.LookPath(t, "parted")
	sfdisk := testenv.LookPath(t, "sfdisk")
	dir := t.TempDir()
	img := filepath.Join(dir, "disk.img")
	// fresh makes the image: a GPT with partitions 1 and 2.
	fresh := func(t *testing.T) {
		t.Helper()
		if err := os.WriteFile(img, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(img, 20<<20); err != nil {
			t.Fatal(err)
		}
		run(t, sfdisk, []string{"-q", img}, "label: gpt\n,4MiB\n,4MiB\n")
	}
	// layout is the partition table as sfdisk dumps it, without the ids
	// that a new label makes anew.
	layout := func(t *testing.T) string {
		t.Helper()
		out, _ := exec.Command(sfdisk, "-d", img).CombinedOutput()
		var keep []string
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, img) || strings.HasPrefix(l, "label:") {
				if i := strings.Index(l, ", uuid="); i >= 0 {
					l = l[:i]
				}
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	tests := []struct {
		program string
		args    string // after the image
		changes bool   // the real program changes the partitions
		flagged bool   // the classifier has a partition-table finding
	}{
		{"parted", "rm 2", true, true},
		{"parted", "mklabel msdos", true, true},
		{"parted", "mkl msdos", true, true},
		{"parted", "mkt msdos", true, true},
		{"parted", "mkp p 9MiB 12MiB", true, true},
		{"parted", "resizepart 2 12MiB", true, true},
		{"parted", "resizep 2 12MiB", true, true},
		{"parted", "resi 2 12MiB", false, true}, // resize (a stub since 3.0) or resizepart: refused, counted
		{"parted", "print", false, false},
		{"parted", "p", false, false},
		{"parted", "unit s print", false, false},
		{"parted", "r 2", false, false},          // rm, rescue or resizepart: refused
		{"parted", "mk msdos", false, true},      // mklabel, mkpart or mktable: refused, counted
		{"parted", "res 2 12MiB", false, true},   // rescue or resizepart: refused, counted
		{"sfdisk", "--delete 2", true, true},     // (sfdisk IMAGE --delete 2 is the same)
		{"sfdisk", "--del 2", true, true},        // getopt_long: --delete
		{"sfdisk", "--de 2", true, true},         // the shortest it takes
		{"sfdisk", "--d 2", false, false},        // --delete, --disk-id or --dump: refused
		{"sfdisk", "--list", false, false},       // lists
		{"sfdisk", "--move-data 2", false, true}, // moves no data without a new start
		{"sfdisk", "--wi always 2", false, true}, // --wipe or --wipe-partitions: refused, counted
	}
	for _, tc := range tests {
		t.Run(tc.program+" "+tc.args, func(t *testing.T) {
			fresh(t)
			before := layout(t)
			prog := parted
			args := append([]string{"-s", img}, strings.Fields(tc.args)...)
			if tc.program == "sfdisk" {
				prog = sfdisk
				args = append(strings.Fields(tc.args)[:1:1], append([]string{img}, strings.Fields(tc.args)[1:]...)...)
			}
			out, _ := exec.Command(prog, args...).CombinedOutput()
			if changed := layout(t) != before; changed != tc.changes {
				t.Errorf("the real %s changed the partitions: %t, want %t\n%s", tc.program, changed, tc.changes, out)
			}
			cmd := tc.program + " " + strings.Join(args, " ")
			var got []string
			for _, f := range Classify(cmd, WithDialect(DialectBash)).Findings {
				if f.Code == "partition-table" {
					got = append(got, f.Code)
				}
			}
			if flagged := len(got) > 0; flagged != tc.flagged {
				t.Errorf("%s: partition-table finding %t, want %t", cmd, flagged, tc.flagged)
			}
			if tc.changes && !tc.flagged {
				t.Errorf("a spelling that changes the partitions must be flagged")
			}
		})
	}
}

// run runs a program with stdin and fails the test when it fails.
func run(t *testing.T, prog string, args []string, stdin string) {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Stdin = strings.NewReader(stdin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", prog, args, err, out)
	}
}
