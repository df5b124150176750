package hook

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestInputStampRacy: an edit that keeps the size is a change, within the
// racy window (content compared) and after it (times compared); so are a
// new file in a directory and a re-pointed symlink; nothing else is.
func TestInputStampRacy(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	pol := filepath.Join(dir, "pol")
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(pol, 0o755); err != nil {
		t.Fatal(err)
	}
	write(cfg, "mode: default\n")
	write(filepath.Join(pol, "a.rego"), "package shellgate\n")
	write(filepath.Join(dir, "x.rego"), "package shellgate\n")
	write(filepath.Join(dir, "y.rego"), "package shellgate\n")
	link := filepath.Join(pol, "l.rego")
	if err := os.Symlink("../x.rego", link); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.json")

	s := NewInputStamp(cfg, pol, missing)
	if s.sum == "" {
		t.Fatal("a stamp of files written just now is not racy")
	}
	if s.Changed() {
		t.Fatal("an unchanged input changed")
	}
	// Same size, same second: the content tells.
	write(cfg, "mode: readonl\n")
	if !s.Changed() {
		t.Error("a same-size edit within the racy window was not seen")
	}

	for _, step := range []struct {
		name string
		do   func()
	}{
		{"same-size edit", func() { write(cfg, "mode: default\n") }},
		{"new file", func() { write(filepath.Join(pol, "b.rego"), "package shellgate\n") }},
		{"re-pointed symlink", func() {
			os.Remove(link)
			os.Symlink("../y.rego", link)
		}},
		{"symlink target edited", func() { write(filepath.Join(dir, "y.rego"), "package shellgatE\n") }},
		{"missing file appears", func() { write(missing, "{}") }},
		{"chmod", func() { os.Chmod(cfg, 0o600) }},
	} {
		time.Sleep(10 * time.Millisecond)
		s := NewInputStamp(cfg, pol, missing)
		step.do()
		if !s.Changed() {
			t.Errorf("%s: not seen (racy stamp)", step.name)
		}
	}

	// A policy dir that is a symlink to a directory: its entries count.
	linked := filepath.Join(dir, "linked")
	if err := os.Symlink(pol, linked); err != nil {
		t.Fatal(err)
	}
	ls := NewInputStamp(linked)
	write(filepath.Join(pol, "c.rego"), "package shellgate\n")
	if !ls.Changed() {
		t.Error("a new file behind a symlinked directory was not seen")
	}

	// Past the window the stamp is stats only, and still sees an edit.
	s = NewInputStamp(cfg, pol, missing)
	time.Sleep(RacyWindow + 50*time.Millisecond)
	if s.Changed() {
		t.Fatal("an unchanged input changed after the window")
	}
	if s.sum != "" {
		t.Error("the stamp stays racy after its window")
	}
	if s.Changed() {
		t.Fatal("an unchanged input changed")
	}
	write(cfg, "mode: readonl\n")
	if !s.Changed() {
		t.Error("a same-size edit after the window was not seen")
	}
}
