package readstation_test

import (
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
