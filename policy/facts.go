package policy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/readstation"
)

// Facts are what Go establishes for the rules, so that Rego maps facts to
// reasons instead of matching paths: the grant covering each segment and
// where each write lands. They are the "facts" part of the policy input.
type Facts struct {
	// Mode is the mode in effect (the input's, else the config's).
	Mode string `json:"mode"`
	// Home is the home directory "~" stands for.
	Home string `json:"home"`
	// Roots are the absolute roots: the workspace (the git top level of
	// the cwd, else the cwd) and the config's roots. Computed only when the
	// command writes.
	Roots []string `json:"roots"`
	// Segments is index-aligned with the report's segments.
	Segments []SegmentFacts `json:"segments"`
	// Writes is index-aligned with the report's writes.
	Writes []WriteFacts `json:"writes"`
	// Index maps names to positions so that rules look up instead of
	// scanning: segments by program name ("name:git"), by program and
	// subcommand ("subcommand:git:push"), and by category
	// ("category:network"), segments the catalog does not know
	// ("unknown"), segments that update refs on a remote ("pushes"), findings by code ("code:fork-bomb"), granted segments
	// ("granted"), segments whose project grant was refused
	// ("grant_refused"), and station reads by verdict ("verdict:denied"). Each
	// value lists indexes in order.
	Index map[string][]int `json:"index"`
	// Has holds flags the default rules test first, so that OPA's rule
	// index skips a rule whose subject is absent.
	Has HasFlags `json:"has"`
}

// HasFlags are the flags of Facts.Has. Every flag is always present in the
// input ("false" when absent), so a rule may test either value.
type HasFlags struct {
	// ParseError: the command does not parse.
	ParseError bool `json:"parse_error"`
	// NotReversible: the report is not reversible.
	NotReversible bool `json:"not_reversible"`
	// Writes: the report has write candidates.
	Writes bool `json:"writes"`
	// Network: a segment is in the network category.
	Network bool `json:"network"`
	// Shell: a segment is in the shell category.
	Shell bool `json:"shell"`
	// Git: a segment runs git (the catalog marks it runs_git).
	Git bool `json:"git"`
	// Pushes: a segment updates refs on a remote (Segment.Pushes).
	Pushes bool `json:"pushes"`
	// DestructiveOrUnknown: a segment is destructive or not in the catalog.
	DestructiveOrUnknown bool `json:"destructive_or_unknown"`
	// ForkBomb: a fork-bomb finding.
	ForkBomb bool `json:"fork_bomb"`
	// Granted: a config grant covers a segment.
	Granted bool `json:"granted"`
	// GrantRefused: a project config's grant was refused for a segment
	// (a wildcard over code).
	GrantRefused bool `json:"grant_refused"`
	// AgentApproved: a rule of the agent's own settings allows a segment
	// (Input.AgentApprovals).
	AgentApproved bool `json:"agent_approved"`
	// ReadsUnjudged: the report reads and no station ran.
	ReadsUnjudged bool `json:"reads_unjudged"`
	// StationReads: the station judged reads.
	StationReads bool `json:"station_reads"`
	// StationDenied: a read the deny rows cover.
	StationDenied bool `json:"station_denied"`
	// StationUnsure: a read outside the roots or not established.
	StationUnsure bool `json:"station_unsure"`
	// StationUnestablished: the station did not establish every read.
	StationUnestablished bool `json:"station_unestablished"`
	// StationUnknownVerdict: a read has a verdict that is not one of
	// readstation.Verdicts.
	StationUnknownVerdict bool `json:"station_unknown_verdict"`
	// RepoHelpers: the repository configures a program git would run.
	RepoHelpers bool `json:"repo_helpers"`
}

// SegmentFacts are the facts about one segment.
type SegmentFacts struct {
	// Grant is the config grant that covers the segment, or "".
	Grant string `json:"grant"`
	// GrantRefused, when no grant covers a segment that is not read-only,
	// says why a project config's grant that matches it does not: a
	// wildcard of it covers an argument that carries code.
	GrantRefused string `json:"grant_refused,omitempty"`
	// AgentRule is the rule of the agent's own settings that allows the
	// segment (Input.AgentApprovals), or nil.
	AgentRule *AgentApproval `json:"agent_rule,omitempty"`
	// RemoteRead, for a segment of catalog category remote-read whose
	// program the config's remote_reads lists, is where it is listed
	// ("remote_reads in FILE"); the segment is then indexed
	// "remote_read_allowed".
	RemoteRead string `json:"remote_read,omitempty"`
}

// WriteFacts are the facts about one write candidate: where the file-system
// model (readstation.Write) says it lands, and whether that is shellgate's
// own configuration, which only the config knows.
type WriteFacts struct {
	// Write is where the write lands, as the file-system model judged it
	// (its fields are members of the JSON object, not nested).
	readstation.Write
	// ShellgateConfig is set when the path, as written or real, is
	// shellgate's own configuration: any .shellgate.yaml, the config file
	// in effect, or a policy directory it names or a file below one.
	ShellgateConfig bool `json:"shellgate_config"`
}

// ComputeFacts establishes the facts for in. It does no I/O: where writes
// land comes from in.Writes (the file-system model's judgment), and a
// report whose writes were not judged gets none (the engine refuses such
// an input; see Input.Writes).
func ComputeFacts(in *Input) *Facts {
	cfg := in.Config
	if cfg == nil {
		cfg = DefaultConfig()
	}
	f := &Facts{Mode: in.Mode, Roots: []string{}, Segments: []SegmentFacts{}, Writes: []WriteFacts{}, Index: map[string][]int{}}
	if f.Mode == "" {
		f.Mode = cfg.Mode
	}
	if f.Mode == "" {
		f.Mode = ModeDefault
	}
	f.Home = homeDir()
	if in.Writes != nil {
		f.Home = in.Writes.Home
	}
	if in.Report == nil {
		return f
	}
	f.Segments = make([]SegmentFacts, len(in.Report.Segments))
	f.Index = map[string][]int{}
	add := func(k string, i int) { f.Index[k] = append(f.Index[k], i) }
	for i := range in.Report.Segments {
		seg := &in.Report.Segments[i]
		if len(cfg.Grants) > 0 {
			var refused string
			if f.Segments[i].Grant, refused = cfg.grantFor(seg); f.Segments[i].Grant != "" {
				add("granted", i)
			} else if refused != "" && !seg.ReadOnly {
				f.Segments[i].GrantRefused = refused
				add("grant_refused", i)
			}
		}
		if seg.Name != "" {
			add("name:"+seg.Name, i)
			if seg.Subcommand != "" {
				add("subcommand:"+seg.Name+":"+seg.Subcommand, i)
			}
		}
		if a, ok := in.AgentApprovals[i]; ok {
			f.Segments[i].AgentRule = &a
			add("agent_approved", i)
		}
		if !seg.Known {
			add("unknown", i)
		}
		if len(seg.Pushes) > 0 {
			add("pushes", i)
		}
		for _, c := range seg.Categories {
			add("category:"+string(c), i)
			if c == classify.CategoryRemoteRead && slices.Contains(cfg.RemoteReads, seg.Name) {
				f.Segments[i].RemoteRead = "remote_reads in " + cfg.where()
				add("remote_read_allowed", i)
			}
		}
	}
	for i, fd := range in.Report.Findings {
		add("code:"+fd.Code, i)
	}
	st, _ := in.Station.(*readstation.Station)
	if st != nil {
		for i, r := range st.Reads {
			add("verdict:"+string(r.Verdict), i)
		}
	}
	f.setHas(in, st)
	f.setWrites(in, cfg, add)
	return f
}

// setWrites carries the file-system model's judgment of the writes
// (in.Writes) into the facts, marks shellgate's own configuration, and
// indexes the writes that matter. Writes nobody judged get no facts.
func (f *Facts) setWrites(in *Input, cfg *Config, add func(string, int)) {
	if len(in.Report.Writes) == 0 || in.Writes == nil || len(in.Writes.Writes) != len(in.Report.Writes) {
		return
	}
	f.Roots = append(f.Roots, in.Writes.Roots...)
	f.Writes = make([]WriteFacts, len(in.Writes.Writes))
	for i, w := range in.Writes.Writes {
		f.Writes[i] = WriteFacts{Write: w}
		fw := &f.Writes[i]
		if !fw.Established {
			continue
		}
		fw.ShellgateConfig = shellgateConfig(fw.Path, cfg, f.Home) || shellgateConfig(fw.Real, cfg, f.Home)
		// The index lets the rules visit only the writes that matter.
		if fw.Critical {
			add("write:critical", i)
		}
		if fw.OutsideRoots {
			add("write:outside-roots", i)
		}
		if fw.Device {
			add("write:device", i)
		}
		if fw.ShellgateConfig {
			add("write:shellgate-config", i)
		}
	}
}

// shellgateConfig reports whether p is shellgate's own configuration: a
// .shellgate.yaml anywhere, the config file cfg was read from, or one of
// its policy directories or a path below one.
func shellgateConfig(p string, cfg *Config, home string) bool {
	if p == "" {
		return false
	}
	if filepath.Base(p) == ConfigFileName || cfg.Path != "" && p == cfg.Path {
		return true
	}
	for _, d := range cfg.PolicyDirs {
		if d == "~" || strings.HasPrefix(d, "~/") {
			if home == "" {
				continue
			}
			d = filepath.Join(home, d[1:])
		}
		if filepath.IsAbs(d) && isAncestorOrSelf(filepath.Clean(d), p) {
			return true
		}
	}
	return false
}

// isAncestorOrSelf reports whether dir is p or an ancestor of p.
func isAncestorOrSelf(dir, p string) bool {
	if dir == p {
		return true
	}
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	return strings.HasPrefix(p, dir+"/")
}

func homeDir() string {
	h, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(h) {
		return ""
	}
	return filepath.Clean(h)
}

// runsGit reports whether a segment runs git (the catalog's runs_git).
func runsGit(r *classify.Report) bool {
	for i := range r.Segments {
		if r.Segments[i].RunsGit {
			return true
		}
	}
	return false
}

// setHas fills the flags from the report, the index and the station. A
// station that is not a *readstation.Station (or nil with a non-nil
// interface) counts as present with every station flag set, so that no
// rule is skipped for it.
func (f *Facts) setHas(in *Input, st *readstation.Station) {
	r := in.Report
	has := func(k string) bool { return len(f.Index[k]) > 0 }
	h := HasFlags{
		ParseError:           !r.Parse.OK,
		NotReversible:        !r.Reversible,
		Writes:               len(r.Writes) > 0,
		Network:              has("category:network"),
		Shell:                has("category:shell"),
		Git:                  runsGit(r),
		Pushes:               has("pushes"),
		DestructiveOrUnknown: has("category:destructive") || has("unknown"),
		ForkBomb:             has("code:fork-bomb"),
		Granted:              has("granted"),
		GrantRefused:         has("grant_refused"),
		AgentApproved:        has("agent_approved"),
	}
	switch {
	case in.Station == nil:
		h.ReadsUnjudged = len(r.Reads) > 0
	case st == nil:
		// A station of another type: every station rule is tried.
		h.StationReads, h.StationDenied, h.StationUnsure, h.StationUnestablished, h.RepoHelpers = true, true, true, true, true
		h.StationUnknownVerdict = true
	default:
		h.StationReads = len(st.Reads) > 0
		h.StationDenied = has("verdict:denied")
		h.StationUnsure = has("verdict:outside-roots") || has("verdict:not-established")
		h.StationUnestablished = !st.Established
		h.RepoHelpers = len(st.RepoHelpers) > 0
		for _, r := range st.Reads {
			if !slices.Contains(readstation.Verdicts, r.Verdict) {
				h.StationUnknownVerdict = true
			}
		}
	}
	f.Has = h
}
