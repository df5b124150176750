package mcpserver

import (
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellgate/shellgate/gate"
)

// maxJobsPerSession bounds the background jobs one session may hold.
const maxJobsPerSession = 64

// jobTable holds the background jobs by the session that started them.
// A session sees only its own jobs; when it ends, its jobs are stopped
// and their spill files removed; closeAll does the same for every
// session when the server ends.
type jobTable struct {
	mu     sync.Mutex
	closed bool
	jobs   map[*mcp.ServerSession]map[string]*gate.Job
}

func newJobTable() *jobTable {
	return &jobTable{jobs: map[*mcp.ServerSession]map[string]*gate.Job{}}
}

// errNoJob is the one answer for a job id that does not exist and one
// that another session started: nothing tells them apart.
func errNoJob(id string) error {
	return fmt.Errorf("job %q is not a job of this session (a job belongs to the session that started it)", id)
}

func (t *jobTable) room(ss *mcp.ServerSession) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return errors.New("the server is shutting down")
	}
	if len(t.jobs[ss]) >= maxJobsPerSession {
		return fmt.Errorf("this session already has %d background jobs, the most it may have", maxJobsPerSession)
	}
	return nil
}

func (t *jobTable) add(ss *mcp.ServerSession, j *gate.Job) error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		j.Close()
		return errors.New("the server is shutting down; the job was stopped")
	}
	m := t.jobs[ss]
	first := m == nil
	if first {
		m = map[string]*gate.Job{}
		t.jobs[ss] = m
	}
	m[j.ID()] = j
	t.mu.Unlock()
	if first && ss != nil {
		go func() {
			_ = ss.Wait()
			t.endSession(ss)
		}()
	}
	return nil
}

func (t *jobTable) get(ss *mcp.ServerSession, id string) (*gate.Job, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if j, ok := t.jobs[ss][id]; ok {
		return j, nil
	}
	return nil, errNoJob(id)
}

// endSession stops every job of ss.
func (t *jobTable) endSession(ss *mcp.ServerSession) {
	t.mu.Lock()
	m := t.jobs[ss]
	delete(t.jobs, ss)
	t.mu.Unlock()
	closeJobs(m)
}

// closeAll stops every job; no job starts after.
func (t *jobTable) closeAll() {
	t.mu.Lock()
	t.closed = true
	all := t.jobs
	t.jobs = map[*mcp.ServerSession]map[string]*gate.Job{}
	t.mu.Unlock()
	for _, m := range all {
		closeJobs(m)
	}
}

func closeJobs(m map[string]*gate.Job) {
	var wg sync.WaitGroup
	for _, j := range m {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j.Close()
		}()
	}
	wg.Wait()
}
