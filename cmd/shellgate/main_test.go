package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	// No test reads or writes the user's trust store: a test (or script)
	// that needs one sets XDG_STATE_HOME itself.
	if os.Getenv("XDG_STATE_HOME") == "" {
		os.Setenv("XDG_STATE_HOME", "/nonexistent/shellgate-test-state")
	}
	testscript.Main(m, map[string]func(){
		"shellgate": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") != "",
	})
}
