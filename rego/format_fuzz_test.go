package rego

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzFormat: `shellgate policy fmt` on any file gives formatted source or
// an error naming the file (never a panic), and formatting what it gave
// changes nothing.
func FuzzFormat(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("policy", "*.rego"))
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(src))
	}
	for _, s := range []string{
		"package x\n", "package x\nimport rego.v1\n", "package x\n\ndeny contains r if { r := 1 }\n",
		"package x\n# c\nallow := true # d\n", "package", "package x\np[x] { x := 1 }\n", "\xff", "",
		"package x\nf(a) := b if { b := a }\ntest_f if f(1) == 1\n", "package x\na := {\"k\": [1, {2}]}\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		out, err := Format("p.rego", []byte(src))
		if err != nil {
			if out != nil {
				t.Fatalf("output beside the error %v", err)
			}
			if !strings.Contains(err.Error(), "p.rego") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		again, err := Format("p.rego", out)
		if err != nil {
			t.Fatalf("formatted source does not format: %v\n%s", err, out)
		}
		if string(again) != string(out) {
			t.Fatalf("formatting is not stable:\n%s\nthen\n%s", out, again)
		}
	})
}
