package main

import (
	"os"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/shellgate/shellgate/hook"
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
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waitengine": waitEngine,
		},
	})
}

// waitEngine waits (up to 30 s) until an engine of this build answers a
// ping on the socket given: waitengine SOCKET.
func waitEngine(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitengine SOCKET")
	}
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err = hook.Ping(ts.MkAbs(args[0]), hook.BuildVersion(), time.Second); err == nil {
			return
		}
	}
	ts.Fatalf("no engine answers on %s: %v", args[0], err)
}
