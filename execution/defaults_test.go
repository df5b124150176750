package execution_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/execution"
	"github.com/shellgate/shellgate/policy"
)

// TestDefaultResourceLimitsMatchPolicy: the runner's default limits are
// the policy config's (execution keeps its own copy so as not to import
// policy; see DefaultResourceLimits).
func TestDefaultResourceLimitsMatchPolicy(t *testing.T) {
	d := policy.DefaultSandboxLimits
	want := execution.ResourceLimits{Processes: d.Processes, MemoryMB: d.MemoryMB, FileSizeMB: d.FileSizeMB}
	if diff := cmp.Diff(want, execution.DefaultResourceLimits); diff != "" {
		t.Errorf("DefaultResourceLimits differ from policy.DefaultSandboxLimits (-policy +execution):\n%s", diff)
	}
}
