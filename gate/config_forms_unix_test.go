//go:build unix

package gate

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shellgate/shellgate/internal/testenv"
	"github.com/shellgate/shellgate/policy"
)

// TestBatchConfigForms: check (and check --batch, which loads the config
// the same way: policy.LoadConfigFor, then one Pipeline) in a project
// whose .shellgate.yaml is a directory, a dangling symlink, a FIFO, or a
// link to /dev/zero or /dev/stdin denies every command, in both modes,
// with config-unreadable naming the file; never "no config", never a read
// that blocks.
func TestBatchConfigForms(t *testing.T) {
	for _, tc := range testenv.UnreadableForms {
		t.Run(tc.Name, func(t *testing.T) {
			ws := testenv.Project(t, "proj", map[string]string{".git/": "", "notes.txt": "alpha\n"})
			p := filepath.Join(ws, policy.ConfigFileName)
			if err := tc.Plant(p); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				cfg, err := policy.LoadConfigFor("", ws)
				if err != nil {
					t.Errorf("LoadConfigFor: %v", err)
					return
				}
				pl, err := NewPipeline(PipelineOptions{Config: cfg})
				if err != nil {
					t.Errorf("NewPipeline: %v", err)
					return
				}
				b := pl.Batch()
				for _, cmd := range []string{"ls", "cat notes.txt", "git status"} {
					for _, mode := range []string{policy.ModeDefault, policy.ModeReadonly} {
						in, _, _ := b.Input(policy.Request{Command: cmd, Cwd: ws, Mode: mode})
						d, _, err := pl.Decide(context.Background(), in)
						if err != nil {
							t.Errorf("Decide(%q): %v", cmd, err)
							continue
						}
						if d.Action != policy.Deny || len(d.Reasons) == 0 || d.Reasons[0].Code != policy.ConfigUnreadable || !strings.Contains(d.Reasons[0].Message, p) {
							t.Errorf("%s %q: %s %v", mode, cmd, d.Action, d.Reasons)
						}
					}
				}
			}()
			select {
			case <-done:
			case <-time.After(time.Minute):
				t.Fatal("still blocked after a minute")
			}
		})
	}
}
