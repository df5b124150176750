package execution

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestZZStages(t *testing.T) {
	r := &BashRunner{}
	for _, mode := range []string{"ro", "ww"} {
		dir := t.TempDir()
		var c *Confinement
		if mode == "ro" {
			c = &Confinement{Mode: SandboxReadOnly, Roots: []string{dir}}
		} else {
			exec.Command("git", "init", "-q", dir).Run()
			home, _ := os.UserHomeDir()
			c = &Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{dir}, Cache: filepath.Join(t.TempDir(), "cache"), Toolchains: ToolchainDirs(os.Environ(), home, nil)}
		}
		spec := Spec{Command: "true", Dir: dir, Env: BuildEnv(os.Environ(), nil, nil), View: DefaultViewLimits}
		conf := spec
		conf.Sandbox = c
		for i := 0; i < 20; i++ {
			r.Run(context.Background(), conf)
		}
		stageOn = true
		for i := 0; i < 200; i++ {
			stagePrefix = "plain."
			f := st("plain.Run")
			r.Run(context.Background(), spec)
			f()
			stagePrefix = "conf."
			f = st("confined.Run")
			r.Run(context.Background(), conf)
			f()
		}
		stageOn = false
		t.Logf("%s\n%s", mode, stageReport())
	}
}
