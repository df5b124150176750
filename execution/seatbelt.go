package execution

import (
	"path/filepath"
	"sort"
	"strings"
)

// seatbeltProfile returns the macOS Seatbelt (sandbox-exec) profile that
// confines a command to c: everything is denied by default; the command
// may run programs, read the directories in read (the system's program
// and library directories and the roots), write /dev/null and, in
// workspace-write, the directories in write (the roots and the private
// temp dir); the network only when c.Network. Paths are given resolved
// (macOS's /tmp is /private/tmp): Seatbelt matches the real path.
// full-access has no profile ("").
//
// The profile is generated and tested on every platform; it can only run
// on macOS, where the runner starts `sandbox-exec -p PROFILE bash -c CMD`.
func seatbeltProfile(c *Confinement, read, write []string) string {
	if c == nil || c.Mode == SandboxFullAccess {
		return ""
	}
	var b strings.Builder
	b.WriteString("(version 1)\n")
	b.WriteString("; shellgate " + string(c.Mode) + "\n")
	b.WriteString("(deny default)\n")
	b.WriteString("(allow process-exec process-fork)\n")
	b.WriteString("(allow signal (target same-sandbox))\n")
	b.WriteString("(allow sysctl-read)\n")
	b.WriteString("(allow file-read-metadata)\n")
	// The user and group lookups (getpwuid) and the time zone.
	b.WriteString("(allow mach-lookup (global-name \"com.apple.system.opendirectoryd.libinfo\") (global-name \"com.apple.system.notification_center\"))\n")
	b.WriteString("(allow file-read*\n")
	for _, p := range sortedUnique(read) {
		b.WriteString("  (subpath " + sbString(p) + ")\n")
	}
	b.WriteString("  (literal \"/dev/null\") (literal \"/dev/zero\") (literal \"/dev/urandom\") (literal \"/dev/random\"))\n")
	// An approved listing reads the directory's entries, not its files.
	if len(c.Lists) > 0 {
		b.WriteString("(allow file-read-data\n")
		for _, p := range sortedUnique(c.Lists) {
			b.WriteString("  (literal " + sbString(p) + ")\n")
		}
		b.WriteString(")\n")
	}
	b.WriteString("(allow file-write-data (literal \"/dev/null\"))\n")
	if c.Mode == SandboxWorkspaceWrite && len(write) > 0 {
		b.WriteString("(allow file-write*\n")
		for _, p := range sortedUnique(write) {
			b.WriteString("  (subpath " + sbString(p) + ")\n")
		}
		b.WriteString(")\n")
		// The protected paths stay read-only (a later rule wins), existing
		// or not. Not yet confirmed on a Mac.
		var prot []string
		for _, p := range protectedPaths(c) {
			if !p.pin {
				// Seatbelt matches real paths (/tmp is /private/tmp).
				dir := p.path[:strings.LastIndex(p.path, "/")+1]
				if r, err := filepath.EvalSymlinks(dir); err == nil {
					prot = append(prot, filepath.Join(r, p.path[len(dir):]))
				} else {
					prot = append(prot, p.path)
				}
			}
		}
		if len(prot) > 0 {
			b.WriteString("(deny file-write*\n")
			for _, p := range sortedUnique(prot) {
				b.WriteString("  (subpath " + sbString(p) + ")\n")
			}
			b.WriteString(")\n")
		}
		// Seatbelt matches names: a protected name beneath a root's top
		// cannot be made at all (Landlock cannot say this; see
		// scanNested). What a person unprotected stays writable.
		if roots := rootDirs(c); len(roots) > 0 {
			var names []string
			for _, n := range ProtectedNames {
				names = append(names, quoteMeta(n))
			}
			for _, suf := range ProtectedSuffixes {
				names = append(names, "[^/]+"+quoteMeta(suf))
			}
			b.WriteString("(deny file-write*\n")
			for _, r := range sortedUnique(roots) {
				if real, err := filepath.EvalSymlinks(r); err == nil {
					r = real
				}
				b.WriteString("  (regex #\"^" + quoteMeta(r) + "/(.+/)?(" + strings.Join(names, "|") + ")(/|$)\")\n")
			}
			b.WriteString(")\n")
			if len(c.Unprotect) > 0 {
				b.WriteString("(allow file-write*\n")
				for _, p := range sortedUnique(c.Unprotect) {
					b.WriteString("  (subpath " + sbString(p) + ")\n")
				}
				b.WriteString(")\n")
			}
		}
	}
	if c.Network {
		b.WriteString("(allow network*)\n")
		b.WriteString("(allow mach-lookup (global-name \"com.apple.dnssd.service\") (global-name \"com.apple.SystemConfiguration.configd\"))\n")
	} else {
		b.WriteString("; no network: network* stays denied\n")
	}
	return b.String()
}

// sbString quotes s as a Seatbelt (Scheme) string.
func sbString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

func sortedUnique(ps []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range ps {
		p = filepath.Clean(p)
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// quoteMeta is regexp.QuoteMeta (a test keeps them equal): the package
// does not import regexp, so that its init, which starts the sandbox
// helper (userns_linux.go), runs before the init of packages that wait
// for regexp's.
func quoteMeta(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`\.+*?()|[]{}^$`, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
