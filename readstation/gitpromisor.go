package readstation

import (
	"fmt"
	"strings"

	"github.com/shellgate/shellgate/classify"
)

// Partial clones. In a repository with a promisor remote (a partial
// clone: git clone --filter), git fetches every object it needs and does
// not have from that remote, over the network, whatever the command: git
// log -p, git show, git grep REV, git blame, git cat-file, git log --stat
// and git diff all may (confirmed with the real git: they exec git fetch,
// and the transport to the remote's URL; gate.TestGitTrapsConfirm). A remote
// is a promisor when remote.NAME.promisor is true or
// extensions.partialClone names it; the packs a partial clone fetched
// carry a .promisor file. git 2.44 added git --no-lazy-fetch (and
// GIT_NO_LAZY_FETCH) to turn the fetches off; git 2.39 refuses the option
// ("unknown option"), and a variable set on a segment asks anyway, so
// neither is taken as a way out: every git segment in a partial clone,
// or in a repository git steps into that is one, is reported.

// maxPromisorPacks bounds the pack directory entries looked at.
const maxPromisorPacks = 4096

// promisors reports the promisor remotes of repository r (own config
// cfg) for segment s; failing those, a .promisor pack file.
func (j *judger) promisors(s *classify.Segment, r gitRepoRef, cfg []cfgEntry) []RepoHelper {
	urls := map[string]string{}
	for _, e := range cfg {
		if e.section == "remote" && e.sub != "" && e.key == "url" {
			urls[e.sub] = e.value
		}
	}
	var out []RepoHelper
	seen := map[string]bool{}
	add := func(remote string, e cfgEntry) {
		if seen[remote] {
			return
		}
		seen[remote] = true
		out = append(out, RepoHelper{Key: e.name(), File: e.file, Value: urls[remote], Segment: s.Index, Span: s.Span, Kind: HelperPromisor})
	}
	for _, e := range cfg {
		switch {
		case e.section == "remote" && e.sub != "" && e.key == "promisor" && !gitFalse(e.value):
			add(e.sub, e)
		case e.section == "extensions" && e.sub == "" && e.key == "partialclone" && e.value != "":
			add(e.value, e)
		}
	}
	if len(out) > 0 {
		return out
	}
	packs := joinAbs(r.common, "objects/pack")
	res := j.fs.resolve(packs)
	switch {
	case res.err != nil:
		if !notDir(res.err) {
			j.unreadable = append(j.unreadable, unreadableFile{packs, res.err.Error()})
		}
		return nil
	case !res.isDir():
		return nil
	}
	es, _, err := listDir(res.real)
	if err != nil {
		j.unreadable = append(j.unreadable, unreadableFile{packs, err.Error()})
		return nil
	}
	if len(es) > maxPromisorPacks {
		j.unreadable = append(j.unreadable, unreadableFile{packs, fmt.Sprintf("it holds more than %d files", maxPromisorPacks)})
		return nil
	}
	for _, e := range es {
		if strings.HasSuffix(e.Name(), ".promisor") {
			return []RepoHelper{{File: joinAbs(packs, e.Name()), Segment: s.Index, Span: s.Span, Kind: HelperPromisor}}
		}
	}
	return nil
}

// gitFalse reports a git boolean that is false. Anything else git
// either takes as true or refuses; a refusal is taken as true (fail
// closed).
func gitFalse(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "false", "no", "off", "0":
		return true
	}
	return false
}
