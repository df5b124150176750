package confirm

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCargoGraph confirms the catalog's claims for cargo tree and cargo
// metadata with the real cargo under strace, in a package with a
// Cargo.lock and a home of its own: with --frozen (or --offline and
// --locked) they write nothing but cargo's own lock files in $CARGO_HOME,
// open no network socket and run only cargo and rustc (rustc -vV, rustc
// --print); with --offline alone, a missing Cargo.lock is written. The
// hostile side (a .cargo/config.toml whose build.rustc-wrapper runs) is
// the cargo-rustc-wrapper row of TestHostileTraps.
func TestCargoGraph(t *testing.T) {
	if testing.Short() {
		t.Skip("runs cargo under strace")
	}
	strace := needTool(t, "strace")
	cargo := needTool(t, "cargo")
	rustupHome := os.Getenv("RUSTUP_HOME")
	if rustupHome == "" {
		h, _ := os.UserHomeDir()
		rustupHome = filepath.Join(h, ".rustup")
	}
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home")
	work := filepath.Join(tmp, "work")
	for _, d := range []string{home, filepath.Join(work, "src")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		"Cargo.toml":  "[package]\nname = \"decoy\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"src/main.rs": "fn main() {}\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(work, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{
		"HOME=" + home, "RUSTUP_HOME=" + rustupHome, "CARGO_HOME=" + filepath.Join(home, ".cargo"),
		"PATH=" + filepath.Dir(cargo) + ":/usr/bin:/bin", "RUSTUP_AUTO_INSTALL=0", "LC_ALL=C",
		// CI installs the stable toolchain without making it the default.
		"RUSTUP_TOOLCHAIN=stable",
	}
	ctx := context.Background()
	lim := Limits{Timeout: 60 * time.Second}
	run := func(command string) *Outcome {
		t.Helper()
		o, err := Run(ctx, strace, command, work, tmp, env, lim)
		if err != nil {
			t.Fatalf("%s: %v", command, err)
		}
		return o
	}
	// --offline alone writes the missing Cargo.lock: the reason the
	// catalog asks it as cargo-lock-write.
	o := run("cargo tree --offline")
	if _, err := os.Stat(filepath.Join(work, "Cargo.lock")); err != nil || o.Exit != 0 {
		t.Fatalf("cargo tree --offline (exit %d) did not write Cargo.lock: %v\n%s", o.Exit, err, o.Output)
	}
	cacheDir := filepath.Join(home, ".cargo") + "/"
	for _, command := range []string{
		"cargo tree --frozen",
		"cargo tree --offline --locked -e normal",
		"cargo metadata --frozen --format-version 1",
		"cargo --frozen metadata --no-deps --format-version 1",
	} {
		t.Run(command, func(t *testing.T) {
			o := run(command)
			if o.Exit != 0 || o.TimedOut {
				t.Fatalf("exit %d (timed out %v):\n%s", o.Exit, o.TimedOut, o.Output)
			}
			if len(o.Trace.Unparsed) > 0 {
				t.Fatalf("the trace has %d lines the parser did not read: %q", len(o.Trace.Unparsed), o.Trace.Unparsed[0])
			}
			ranRustc := false
			for _, ev := range o.Trace.Events {
				if ev.Kind == KindExec && filepath.Base(ev.Path) == "rustc" {
					ranRustc = true
				}
				switch ev.Kind {
				case KindWrite:
					if quietWrite(ev.Path) || strings.HasPrefix(ev.Path, cacheDir+".package-cache") || strings.HasPrefix(ev.Path, cacheDir+".global-cache") {
						continue
					}
					t.Errorf("wrote %s (%s %s)", ev.Path, ev.Syscall, ev.Flags)
				case KindSocket:
					if ev.Family != "AF_UNIX" {
						t.Errorf("opened a %s socket", ev.Family)
					}
				case KindExec:
					switch filepath.Base(ev.Path) {
					case "bash", "cargo", "rustc", "rustup":
					default:
						t.Errorf("ran %s", strings.Join(ev.Argv, " "))
					}
				}
			}
			// The trace is read: tree and metadata ask rustc for the
			// target (metadata --no-deps does not).
			if want := !strings.Contains(command, "--no-deps"); ranRustc != want {
				t.Errorf("ran rustc: %v, want %v", ranRustc, want)
			}
		})
	}
}
