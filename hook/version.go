package hook

import (
	"runtime/debug"
	"strconv"
	"sync"
)

// BuildVersion identifies this build for the client/engine handshake: the
// protocol version, the main module's version and, when the build recorded
// them, the VCS revision and whether the tree was modified. The thin client
// and the engine talk only when their BuildVersions are equal.
func BuildVersion() string { return buildVersion() }

// buildVersion is worked out on first use, not at start-up: reading the
// build info parses a line per module the binary holds (some 600
// allocations), and most processes never ask.
var buildVersion = sync.OnceValue(func() string {
	v := "p" + strconv.Itoa(ProtocolVersion)
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v += " " + bi.Main.Version
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v += " " + s.Value
		case "vcs.modified":
			if s.Value == "true" {
				v += "+modified"
			}
		}
	}
	return v
})
