//go:build darwin

package execution

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// sandboxExec is macOS's Seatbelt front end.
const sandboxExec = "/usr/bin/sandbox-exec"

// sandboxSupport reports Seatbelt when sandbox-exec is there.
func sandboxSupport(string) SandboxSupport {
	if _, err := os.Stat(sandboxExec); err != nil {
		return SandboxSupport{Err: fmt.Errorf("Seatbelt is not available: %w", err)}
	}
	return SandboxSupport{Mechanism: "seatbelt", NetworkGuard: "seatbelt"}
}

// prepareConfined rewrites cmd to run bash under sandbox-exec with the
// profile seatbeltProfile generates for c.
func prepareConfined(cmd *exec.Cmd, c *Confinement, bash string) (func() error, *SandboxInfo, *confinedSets, func() []SandboxDenial, error) {
	if sup := sandboxSupport(bash); sup.Err != nil {
		return nil, nil, nil, nil, sup.Err
	}
	cleanup := func() []SandboxDenial { return nil }
	dirs, files := extraReads(c)
	sets := &confinedSets{mode: c.Mode, read: resolveAll(append(append(readDirs(c, cmd.Env), dirs...), files...))}
	if c.Mode == SandboxWorkspaceWrite {
		tmp, err := os.MkdirTemp("", "shellgate-tmp-")
		if err != nil {
			return nil, nil, nil, nil, fmt.Errorf("sandbox temp dir: %w", err)
		}
		cleanup = func() []SandboxDenial { os.RemoveAll(tmp); return nil }
		sets.write = resolveAll(append(rootDirs(c), tmp))
		sets.read = append(sets.read, sets.write...)
		cmd.Env = setEnv(cmd.Env, "TMPDIR", tmp)
	}
	sets.read = append(sets.read, resolveAll(c.Toolchains)...)
	if wc := workspaceCache(c); wc != "" && ensureCacheDir(wc) {
		sets.write = append(sets.write, resolveAll([]string{wc})...)
		sets.read = append(sets.read, resolveAll([]string{wc})...)
		cmd.Env = cacheEnv(cmd.Env, wc, envHomeOf(cmd.Env))
	}
	profile := seatbeltProfile(c, sets.read, sets.write)
	if profile == "" {
		cleanup()
		return nil, nil, nil, nil, errors.New("seatbelt: no profile")
	}
	cmd.Path = sandboxExec
	cmd.Args = append([]string{"sandbox-exec", "-p", profile, bash}, cmd.Args[1:]...)
	info := &SandboxInfo{Mode: c.Mode, Enforced: true, Mechanism: "seatbelt", Network: "allowed"}
	if !c.Network {
		info.Network, info.NetworkGuard = "denied", "seatbelt"
	}
	return cmd.Start, info, sets, cleanup, nil
}

// resolveAll resolves symlinks (/tmp is /private/tmp): Seatbelt matches
// real paths. A path that does not resolve is kept as given.
func resolveAll(ps []string) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		out = append(out, p)
	}
	return out
}

// setEnv sets k=v in env, replacing every earlier k.
func setEnv(env []string, k, v string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if len(kv) <= len(k) || kv[:len(k)+1] != k+"=" {
			out = append(out, kv)
		}
	}
	return append(out, k+"="+v)
}

// envHomeOf is HOME in env, or the user's home directory.
func envHomeOf(env []string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if len(env[i]) > 5 && env[i][:5] == "HOME=" {
			return env[i][5:]
		}
	}
	h, _ := os.UserHomeDir()
	return h
}
