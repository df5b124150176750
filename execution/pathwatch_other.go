//go:build !linux

package execution

// knownPath is a kept finding of readDirsIDs (none are kept here: see
// pathwatch_linux.go).
type knownPath struct {
	st   ctimeStat
	safe bool
	real string // the real path (knownRealPath)
	err  error
}

type pathWatch struct{}

type pathWatched struct{}

// knownPaths keeps nothing here.
var knownPaths pathWatch

func (pathWatch) refresh()                                     {}
func (pathWatch) lookup(pathDirKey) (knownPath, bool)          { return knownPath{}, false }
func (pathWatch) watch(string) *pathWatched                    { return nil }
func (pathWatch) remember(pathDirKey, *pathWatched, knownPath) {}
func (pathWatch) watchDirs([]string) *pathWatched              { return nil }
func (pathWatch) unchanged(*pathWatched) bool                  { return false }
func (pathWatch) watchFD(int) (int32, uint64, uint64, bool)    { return 0, 0, 0, false }
func (pathWatch) wdSame(int32, uint64, uint64) bool            { return false }
func (pathWatch) stampsSame([]watchStamp) bool                 { return false }
func (pathWatch) genOf(int32) uint64                           { return 0 }
func (pathWatch) mountGen() uint64                             { return 0 }

// watch watches nothing here.
func (c *guardWatchCache) watch(string, uint64, uint64) (int32, bool) { return 0, false }
