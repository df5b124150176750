//go:build linux

package execution

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/shellgate/shellgate/internal/testenv"
)

// TestPidsCgroupLeftBehind: a cgroup an earlier process left (it was
// killed before it removed it) neither makes a new one fail, though the
// earlier process had this process's id, nor stays once its process is
// gone. (CI hit both: "the pids cgroup could not be made" when a reused
// process id met a cgroup of 771 left behind.)
func TestPidsCgroupLeftBehind(t *testing.T) {
	base := pidsCgroupBase()
	if base == "" {
		testenv.Missing(t, "no writable cgroup v1 pids hierarchy (root)")
	}
	// A dead process's id: a child that has exited and been reaped.
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	dead := c.Process.Pid
	stale := filepath.Join(base, "shellgate-"+strconv.Itoa(dead)+"-1")
	if err := os.Mkdir(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(stale) })
	// One named as this process's next cgroup would have been named
	// before the random part.
	mine := filepath.Join(base, "shellgate-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(pidsBase.n.Load()+1, 10))
	if err := os.Mkdir(mine, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(mine) })
	cg := newPidsCgroup(8)
	if cg == nil {
		t.Fatal("no pids cgroup made beside one left behind")
	}
	if _, err := cg.end(); err != nil {
		t.Fatal(err)
	}
	sweepPidsCgroups(base)
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the cgroup of the dead process %d stays: %v", dead, err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a cgroup of a live process was swept: %v", err)
	}
}
