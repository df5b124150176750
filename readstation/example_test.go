package readstation_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/readstation"
)

func Example() {
	dir, _ := os.MkdirTemp("", "readstation-example")
	defer os.RemoveAll(dir)
	home := filepath.Join(dir, "home")
	repo := filepath.Join(home, "repo")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(repo, "main.go"), []byte("package main\n"), 0o644)
	os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("KEY"), 0o600)

	b, err := readstation.DefaultBoundary(repo)
	if err != nil {
		fmt.Println(err)
		return
	}
	b.Home = home
	st := readstation.Judge(classify.Classify("cat main.go ~/.ssh/id_rsa ../x *.md"), b)
	for _, r := range st.Reads {
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%-14s %-14s %s", r.Path, r.Verdict, r.Row)))
	}
	fmt.Println("established:", st.Established)
	fmt.Println("recheck:", st.Admission().Recheck())
	// Output:
	// main.go        ok
	// ~/.ssh/id_rsa  denied         ~/.ssh/**
	// ../x           outside-roots
	// *.md           missing
	// established: false
	// recheck: <nil>
}

// An admission refuses a run when a symlink was re-pointed after the check.
func ExampleAdmission_Recheck() {
	dir, _ := os.MkdirTemp("", "readstation-example")
	defer os.RemoveAll(dir)
	repo := filepath.Join(dir, "repo")
	os.MkdirAll(repo, 0o755)
	os.WriteFile(filepath.Join(repo, "notes.txt"), []byte("notes\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "secret"), []byte("KEY"), 0o600)
	os.Symlink("notes.txt", filepath.Join(repo, "latest"))

	b := readstation.Boundary{Roots: []string{repo}, Cwd: repo, Home: dir, DenyRows: readstation.DefaultDenyRows}
	st := readstation.Judge(classify.Classify("cat latest"), b)
	fmt.Println(st.Reads[0].Verdict, st.Established)

	// Between the decision and the spawn, the link is re-pointed.
	os.Remove(filepath.Join(repo, "latest"))
	os.Symlink(filepath.Join(dir, "secret"), filepath.Join(repo, "latest"))
	err := st.Admission().Recheck()
	fmt.Println(errors.Is(err, readstation.ErrChanged))
	var ce *readstation.ChangeError
	if errors.As(err, &ce) {
		fmt.Println(ce.Code())
	}
	// Output:
	// ok true
	// true
	// changed-since-check
}

func ExampleValidateRow() {
	for _, row := range []string{"~/.ssh/**", "**/*.pem", "!keep.pem", "/etc/[shadow"} {
		fmt.Println(row, "→", readstation.ValidateRow(row))
	}
	// Output:
	// ~/.ssh/** → <nil>
	// **/*.pem → <nil>
	// !keep.pem → deny row "!keep.pem": negation is not supported
	// /etc/[shadow → deny row "/etc/[shadow": bad pattern component "[shadow"
}

// JudgeWrites says where each write lands on the same boundary the reads
// are judged on: through a symlink that leads out of the workspace, onto
// the workspace itself, or onto a device.
func ExampleJudgeWrites() {
	dir, _ := os.MkdirTemp("", "readstation-example")
	defer os.RemoveAll(dir)
	repo := filepath.Join(dir, "repo")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.MkdirAll(filepath.Join(dir, "elsewhere"), 0o755)
	os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(repo, "out"))

	b, err := readstation.NewBoundary(repo, readstation.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := classify.Classify("touch notes.txt out/x && rm -rf * && dd if=a of=/dev/sda")
	for i, w := range readstation.JudgeWrites(r, b).Writes {
		fmt.Printf("%-10s outside=%v critical=%v device=%v\n", r.Writes[i].Path, w.OutsideRoots, w.Critical, w.Device)
	}
	// Output:
	// notes.txt  outside=false critical=false device=false
	// out/x      outside=true critical=false device=false
	// *          outside=false critical=true device=false
	// /dev/sda   outside=true critical=false device=true
}
