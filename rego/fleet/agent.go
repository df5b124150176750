package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/logging"
	"github.com/open-policy-agent/opa/v1/plugins"
	bundleplugin "github.com/open-policy-agent/opa/v1/plugins/bundle"
	"github.com/open-policy-agent/opa/v1/plugins/discovery"
	"github.com/open-policy-agent/opa/v1/plugins/logs"
	"github.com/open-policy-agent/opa/v1/server"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/shellgate/shellgate/trust"
)

// Contents is what an activated bundle gives shellgate.
type Contents struct {
	// Revision names the bundles in force: "name@revision", joined by
	// ", " when there are several.
	Revision string
	// Bundles maps each bundle's name to its revision.
	Bundles map[string]string
	// Modules are the bundle's shellgate modules (package shellgate and
	// below), bundle path (no leading "/") to source.
	Modules map[string]string
	// Config and Catalog are the YAML texts at data.shellgate_bundle
	// ("" when the bundle has none).
	Config, Catalog string
}

// Accept builds an engine from new contents; an error refuses them and
// the last good contents stay in force.
type Accept func(*Contents) error

// Agent runs OPA's plugins from an OPA config: it keeps shellgate's
// engine on the last good bundle and logs decisions.
type Agent struct {
	mgr    *plugins.Manager
	accept Accept
	logs   *logs.Plugin
	dir    string // persistence directory ("" when none)

	// acceptMu serializes calls of accept (a bundle activation and the
	// last good contents at start).
	acceptMu sync.Mutex

	mu      sync.Mutex
	cur     *Contents
	refused string // why the last bundle was refused ("" when it was not)
	// fetch is the bundle plugin's last error per bundle ("" once a
	// download or activation succeeded).
	fetch  map[string]string
	upload string // the last upload's outcome
}

// Status is what doctor and policy status print.
type Status struct {
	// Revision is the bundle revision in force ("" when none).
	Revision string `json:"revision"`
	// Refused says why the last bundle seen was refused.
	Refused string `json:"refused,omitempty"`
	// Upload is the last decision-log upload's outcome: "ok at TIME" or
	// the error ("" when there was none).
	Upload string `json:"upload,omitempty"`
	// Bundles is what is wrong with OPA's plugins and bundles, by name
	// ("bundle NAME" for a bundle's last download or activation error).
	Bundles map[string]string `json:"bundles,omitempty"`
}

// StatusFile is the file, in the OPA config's persistence_directory, in
// which an agent records its Status for other processes (doctor, policy
// status).
const StatusFile = "shellgate-status.json"

// Start reads the OPA configuration (services, bundles, decision_logs,
// status, keys, persistence_directory), starts OPA's plugins and waits up
// to wait for a first bundle (a persisted one activates at once). accept is
// called with every bundle OPA activates, before the next decision. Start
// returns without a bundle when none came in time: the caller then denies
// until one does (Current is nil).
func Start(ctx context.Context, config []byte, id string, accept Accept, wait time.Duration) (*Agent, error) {
	a := &Agent{accept: accept}
	logger := logging.New()
	logger.SetLevel(logging.Error)
	logger.SetOutput(os.Stderr)
	mgr, err := plugins.New(config, id, inmem.New(),
		plugins.Logger(logger), plugins.ConsoleLogger(logging.NewNoOpLogger()),
		plugins.WithParserOptions(ast.ParserOptions{ProcessAnnotation: true, RegoVersion: ast.RegoV1}))
	if err != nil {
		return nil, fmt.Errorf("opa config: %w", err)
	}
	a.mgr = mgr
	if d, err := mgr.GetConfig().GetPersistenceDirectory(); err == nil && mgr.Config.PersistenceDirectory != nil {
		a.dir = d
	}
	var boot map[string]any
	if err := json.Unmarshal(mustJSON(config), &boot); err != nil {
		return nil, fmt.Errorf("opa config: %w", err)
	}
	mgr.RegisterCompilerTrigger(func(txn storage.Transaction) { a.activated(ctx, txn) })
	d, err := discovery.New(mgr, discovery.BootConfig(boot))
	if err != nil {
		return nil, fmt.Errorf("opa config: %w", err)
	}
	mgr.Register(discovery.Name, d)
	if err := mgr.Start(ctx); err != nil {
		return nil, fmt.Errorf("starting OPA's plugins: %w", err)
	}
	// OPA activates a persisted bundle in Start. When there was none, or
	// shellgate refused it (its config did not load), the last bundle
	// shellgate accepted decides until a good one comes.
	if a.Current() == nil {
		a.loadLastGood()
	}
	a.logs = logs.Lookup(mgr)
	if bp := bundleplugin.Lookup(mgr); bp != nil {
		bp.Register("shellgate", a.bundleStatus)
	}
	deadline := time.Now().Add(wait)
	for a.Current() == nil && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
	a.save()
	return a, nil
}

// mustJSON converts YAML or JSON config bytes to JSON (OPA accepts both).
func mustJSON(b []byte) []byte {
	var v any
	if err := json.Unmarshal(b, &v); err == nil {
		return b
	}
	j, err := yamlToJSON(b)
	if err != nil {
		return []byte("{}")
	}
	return j
}

// activated reads what the store now holds and hands it to accept.
func (a *Agent) activated(ctx context.Context, txn storage.Transaction) {
	a.acceptMu.Lock()
	defer a.acceptMu.Unlock()
	c, err := read(ctx, a.mgr.Store, txn)
	if err == nil {
		err = a.accept(c)
	}
	a.mu.Lock()
	if err != nil {
		a.refused = fmt.Sprintf("bundle %s refused: %v", c.revisionOr("?"), err)
	} else {
		a.cur, a.refused = c, ""
	}
	a.mu.Unlock()
	if err == nil {
		a.saveLastGood(c)
	}
	a.save()
}

// LastGoodFile is the file, in the persistence directory, that keeps the
// last bundle contents shellgate accepted: OPA persists what it activates,
// which shellgate may still have refused.
const LastGoodFile = "shellgate-last-good.json"

func (a *Agent) saveLastGood(c *Contents) {
	if a.dir == "" {
		return
	}
	b, err := json.Marshal(c)
	if err != nil || os.MkdirAll(a.dir, 0o700) != nil {
		return
	}
	tmp := filepath.Join(a.dir, LastGoodFile+".tmp")
	if os.WriteFile(tmp, b, 0o600) == nil {
		_ = os.Rename(tmp, filepath.Join(a.dir, LastGoodFile))
	}
}

// loadLastGood accepts the last good contents saved in the persistence
// directory, if any.
func (a *Agent) loadLastGood() {
	if a.dir == "" {
		return
	}
	b, err := trust.ReadRegular(filepath.Join(a.dir, LastGoodFile), maxStateBytes)
	if err != nil {
		return
	}
	var c Contents
	if json.Unmarshal(b, &c) != nil || len(c.Modules) == 0 {
		return
	}
	a.acceptMu.Lock()
	defer a.acceptMu.Unlock()
	if a.Current() != nil || a.accept(&c) != nil {
		return
	}
	a.mu.Lock()
	a.cur = &c
	a.mu.Unlock()
}

func (c *Contents) revisionOr(s string) string {
	if c == nil || c.Revision == "" {
		return s
	}
	return c.Revision
}

func read(ctx context.Context, store storage.Store, txn storage.Transaction) (*Contents, error) {
	c := &Contents{Bundles: map[string]string{}, Modules: map[string]string{}}
	names, err := bundle.ReadBundleNamesFromStore(ctx, store, txn)
	if err != nil && !storage.IsNotFound(err) {
		return c, err
	}
	sort.Strings(names)
	var revs []string
	for _, n := range names {
		r, _ := bundle.ReadBundleRevisionFromStore(ctx, store, txn, n)
		c.Bundles[n] = r
		revs = append(revs, n+"@"+r)
	}
	c.Revision = strings.Join(revs, ", ")
	ids, err := store.ListPolicies(ctx, txn)
	if err != nil {
		return c, err
	}
	for _, id := range ids {
		src, err := store.GetPolicy(ctx, txn, id)
		if err != nil {
			return c, err
		}
		m, err := ast.ParseModuleWithOpts(id, string(src), ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			return c, err
		}
		if m.Package.Path.HasPrefix(ast.MustParseRef("data.system")) {
			continue // the decision-log mask and OPA's own: not shellgate's
		}
		name := id
		// OPA names a bundle's modules "NAME/path" with several bundles.
		for _, n := range names {
			name = strings.TrimPrefix(name, n+"/")
		}
		c.Modules[strings.TrimPrefix(name, "/")] = string(src)
	}
	if len(c.Modules) == 0 {
		return c, errors.New("the bundle has no shellgate policy (no module in package shellgate)")
	}
	v, err := store.Read(ctx, txn, storage.MustParsePath("/"+DataRoot))
	if err != nil && !storage.IsNotFound(err) {
		return c, err
	}
	if m, ok := v.(map[string]any); ok {
		var bad bool
		if c.Config, bad = str(m["config"]); bad {
			return c, errors.New("data." + DataRoot + ".config is not a string (the YAML text of a shellgate config)")
		}
		if c.Catalog, bad = str(m["catalog"]); bad {
			return c, errors.New("data." + DataRoot + ".catalog is not a string (the YAML text of a catalog)")
		}
	}
	return c, nil
}

func str(v any) (string, bool) {
	if v == nil {
		return "", false
	}
	s, ok := v.(string)
	return s, !ok
}

// bundleStatus records the bundle plugin's last outcome for a bundle: a
// download, verification or activation error, or none.
func (a *Agent) bundleStatus(s bundleplugin.Status) {
	msg := s.Message
	for _, e := range s.Errors {
		msg += "; " + e.Error()
	}
	if s.Code == "" && len(s.Errors) == 0 {
		msg = ""
	}
	a.mu.Lock()
	if a.fetch == nil {
		a.fetch = map[string]string{}
	}
	a.fetch[s.Name] = msg
	a.mu.Unlock()
	a.save()
}

// Current returns the contents in force (nil when no good bundle was ever
// activated).
func (a *Agent) Current() *Contents {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cur
}

// Unavailable says why there is no bundle in force, for a deny reason.
func (a *Agent) Unavailable() string {
	st := a.Status()
	var why []string
	if st.Refused != "" {
		why = append(why, st.Refused)
	}
	for n, s := range st.Bundles {
		why = append(why, n+": "+s)
	}
	sort.Strings(why)
	if len(why) == 0 {
		why = append(why, "no bundle downloaded yet")
	}
	return "no policy bundle has been loaded (" + strings.Join(why, "; ") + "): every command is denied until one is"
}

// Record is one decision to log.
type Record struct {
	Command, Cwd, Dialect, Mode, Action string
	// Codes and Rules are the reasons' codes and rule names.
	Codes, Rules []string
	// Reasons are the reasons as the check JSON gives them.
	Reasons any
	// Secrets are source texts the mask policy hides (assignment values,
	// denied reads).
	Secrets []string
	// Revision is the bundle revision that decided.
	Revision string
}

// Log hands a decision to OPA's decision-log plugin (a no-op without
// decision_logs in the config). The plugin applies the mask policy
// (data.system.log.mask) and uploads in batches.
func (a *Agent) Log(ctx context.Context, r Record) error {
	if a.logs == nil {
		return nil
	}
	secrets := r.Secrets
	if secrets == nil {
		secrets = []string{}
	}
	var input any = map[string]any{
		"command": r.Command, "cwd": r.Cwd, "dialect": r.Dialect, "mode": r.Mode,
		"secrets": secrets,
	}
	var result any = map[string]any{
		"action": r.Action, "codes": nonNil(r.Codes), "rules": nonNil(r.Rules), "reasons": r.Reasons,
		"revision": r.Revision,
	}
	bundles := map[string]server.BundleInfo{}
	if c := a.Current(); c != nil {
		for n, rev := range c.Bundles {
			bundles[n] = server.BundleInfo{Revision: rev}
		}
	}
	id := fmt.Sprintf("%d", time.Now().UnixNano())
	// The plugin evaluates the drop and mask policies in this read
	// transaction. Without one it opens its own while holding its query
	// cache's lock, and a bundle activation that commits meanwhile waits
	// for that lock inside its write transaction: a deadlock.
	txn, err := a.mgr.Store.NewTransaction(ctx)
	if err != nil {
		return err
	}
	defer a.mgr.Store.Abort(ctx, txn)
	return a.logs.Log(ctx, &server.Info{
		Txn: txn, Timestamp: time.Now().UTC(), Path: "shellgate/decision", Input: &input, Results: &result,
		Bundles: bundles, DecisionID: id,
	})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Flush uploads the buffered decision logs now and records the outcome.
func (a *Agent) Flush(ctx context.Context) error {
	if a.logs == nil {
		return nil
	}
	err := a.logs.Trigger(ctx)
	a.mu.Lock()
	if err != nil {
		a.upload = "failed at " + time.Now().UTC().Format(time.RFC3339) + ": " + err.Error()
	} else {
		a.upload = "ok at " + time.Now().UTC().Format(time.RFC3339)
	}
	a.mu.Unlock()
	a.save()
	return err
}

// Status reports the revision in force, a refusal and the last upload.
func (a *Agent) Status() Status {
	s := Status{Bundles: bundlePluginStatus(a.mgr)}
	a.mu.Lock()
	s.Refused, s.Upload = a.refused, a.upload
	if a.cur != nil {
		s.Revision = a.cur.Revision
	}
	for n, m := range a.fetch {
		if m != "" {
			s.Bundles["bundle "+n] = m
		}
	}
	a.mu.Unlock()
	if len(s.Bundles) == 0 {
		s.Bundles = nil
	}
	return s
}

func bundlePluginStatus(m *plugins.Manager) map[string]string {
	out := map[string]string{}
	for n, s := range m.PluginStatus() {
		if s != nil && s.State != plugins.StateOK {
			msg := string(s.State)
			if s.Message != "" {
				msg += ": " + s.Message
			}
			out[n] = msg
		}
	}
	return out
}

// save records the status in the persistence directory, for other
// processes.
func (a *Agent) save() {
	if a.dir == "" {
		return
	}
	s := a.Status()
	if s.Upload == "" {
		if old, err := ReadStatus(a.dir); err == nil {
			s.Upload = old.Upload
		}
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return
	}
	if os.MkdirAll(a.dir, 0o700) != nil {
		return
	}
	tmp := filepath.Join(a.dir, StatusFile+".tmp")
	if os.WriteFile(tmp, append(b, '\n'), 0o600) == nil {
		_ = os.Rename(tmp, filepath.Join(a.dir, StatusFile))
	}
}

// ReadStatus reads the status an agent recorded in dir.
func ReadStatus(dir string) (Status, error) {
	var s Status
	b, err := trust.ReadRegular(filepath.Join(dir, StatusFile), maxStateBytes)
	if err != nil {
		return s, err
	}
	return s, json.Unmarshal(b, &s)
}

// PersistenceDir returns the persistence_directory an OPA config names
// ("" when none).
func PersistenceDir(config []byte) string {
	var c struct {
		Dir *string `json:"persistence_directory"`
	}
	if json.Unmarshal(mustJSON(config), &c) != nil || c.Dir == nil {
		return ""
	}
	return *c.Dir
}

// Stop uploads what is buffered (Flush) and stops the plugins.
func (a *Agent) Stop(ctx context.Context) {
	_ = a.Flush(ctx)
	a.mgr.Stop(ctx)
}

// StopQuiet stops the plugins without uploading or recording anything.
func (a *Agent) StopQuiet(ctx context.Context) { a.mgr.Stop(ctx) }

// maxStateBytes bounds the files an agent keeps in its directory (the
// last good bundle's contents, the status): read as regular files only,
// opened without blocking.
const maxStateBytes = 64 << 20
