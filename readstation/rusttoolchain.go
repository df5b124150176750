package readstation

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// rustup's proxies (cargo, rustc, rustdoc, …) run the toolchain that the
// nearest rust-toolchain or rust-toolchain.toml from the directory they
// run in names (unless RUSTUP_TOOLCHAIN is set), with the components and
// targets it lists. One not installed is installed from the network
// unless auto-install is off (confirmed with rustup 1.29.0 against an
// unreachable dist server: "syncing channel updates" by default and with
// RUSTUP_AUTO_INSTALL=1, even when settings.toml says auto_install =
// "disable"; a refusal with RUSTUP_AUTO_INSTALL=0, or with it unset and
// settings.toml's "disable"). The station compares what the file names
// with the toolchains under $RUSTUP_HOME/toolchains; RUSTUP_AUTO_INSTALL=0
// is the catalog's unless_env. A path line (another toolchain's programs)
// is the catalog's regular expression.

// checkRustToolchain: rustup would install the toolchain, components or
// targets a rust-toolchain file names.
func checkRustToolchain(h *hiddenRun) []RepoHelper {
	if v, known := h.env("RUSTUP_TOOLCHAIN"); known && v != "" {
		return nil // the environment chooses the toolchain; the file is not read
	}
	// rustup's directory overrides (rustup override set, kept in
	// settings.toml) come before a toolchain file of the same directory.
	var overrides map[string]string
	var settingsFile string
	if home, known := h.env("RUSTUP_HOME"); known {
		if home == "" && h.j.b.Home != "" {
			home = filepath.Join(h.j.b.Home, ".rustup")
		}
		if home != "" {
			settingsFile = filepath.Join(home, "settings.toml")
			data, _ := h.read(settingsFile)
			overrides = parseRustOverrides(data)
		}
	}
	var file string
	var data []byte
	for d := h.cwd; file == ""; {
		if tc, ok := overrides[d]; ok {
			file, data = settingsFile, []byte(tc+"\n")
			break
		}
		for _, name := range []string{"rust-toolchain", "rust-toolchain.toml"} {
			p := filepath.Join(d, name)
			bad := h.bad
			b, found := h.read(p)
			if h.bad > bad {
				return nil
			}
			if found {
				file, data = p, b
				break
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	if file == "" {
		return nil
	}
	tf, ok := parseRustToolchain(data)
	if !ok {
		h.j.notEstablished(h.s, file, fmt.Sprintf("%s: %s cannot be read as a toolchain file, so the toolchain rustup runs (and whether it installs one) cannot be established", h.who, show(file)))
		return nil
	}
	if tf.path != "" {
		return nil // the catalog's path entry reports it
	}
	home, known := h.env("RUSTUP_HOME")
	if !known {
		h.j.notEstablished(h.s, "$RUSTUP_HOME", h.who+": RUSTUP_HOME is not known, so whether rustup installs the toolchain "+show(file)+" names cannot be established")
		return nil
	}
	if home == "" {
		if h.j.b.Home == "" {
			h.j.notEstablished(h.s, file, h.who+": the home directory is not known, so whether rustup installs the toolchain "+show(file)+" names cannot be established")
			return nil
		}
		home = filepath.Join(h.j.b.Home, ".rustup")
	}
	settings, _ := h.read(filepath.Join(home, "settings.toml"))
	st, _ := parseRustToolchain(append([]byte("[toolchain]\n"), settings...))
	if v, known := h.env("RUSTUP_AUTO_INSTALL"); known && v == "" && st.autoInstall == "disable" {
		return nil // rustup refuses to install
	}
	channel := tf.channel
	if channel == "" {
		channel = st.defaultToolchain
	}
	if channel == "" {
		return nil // rustup fails: no toolchain
	}
	host := st.host
	if host == "" {
		if m := rustFullName.FindStringSubmatch(st.defaultToolchain); m != nil {
			host = m[4]
		}
	}
	tcDir := ""
	for _, name := range []string{channel, channel + "-" + host} {
		if name == channel+"-" {
			continue
		}
		d := filepath.Join(home, "toolchains", name)
		fsCalls.Add(1)
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			tcDir = d
			break
		}
	}
	rh := func(key, line, why string) RepoHelper {
		return RepoHelper{Key: key, File: file, Value: line, Why: why,
			Does:    "have rustup download and install it (set RUSTUP_AUTO_INSTALL=0 to make rustup refuse)",
			Segment: h.s.Index, Span: h.s.Span}
	}
	if tcDir == "" {
		if host == "" && !rustFullName.MatchString(channel) {
			h.j.notEstablished(h.s, file, h.who+": rustup's host triple is not known, so whether the toolchain "+show(file)+" names is installed cannot be established")
			return nil
		}
		return []RepoHelper{rh("channel", "channel = "+strconv.Quote(channel),
			fmt.Sprintf("names the toolchain %s, which is not installed in %s", channel, show(filepath.Join(home, "toolchains"))))}
	}
	var out []RepoHelper
	if len(tf.components) > 0 {
		comps, _ := h.read(filepath.Join(tcDir, "lib", "rustlib", "components"))
		have := strings.Fields(string(comps))
		for _, c := range tf.components {
			found := false
			for _, x := range have {
				if x == c || strings.HasPrefix(x, c+"-") {
					found = true
				}
			}
			if !found {
				out = append(out, rh("components", "components = [..."+strconv.Quote(c)+"...]",
					fmt.Sprintf("names the component %s, which %s does not have", c, filepath.Base(tcDir))))
				break
			}
		}
	}
	for _, t := range tf.targets {
		if strings.ContainsAny(t, "/\\") || t == "" || t == "." || t == ".." {
			continue
		}
		fsCalls.Add(1)
		if fi, err := os.Stat(filepath.Join(tcDir, "lib", "rustlib", t)); err != nil || !fi.IsDir() {
			out = append(out, rh("targets", "targets = [..."+strconv.Quote(t)+"...]",
				fmt.Sprintf("names the target %s, which %s does not have", t, filepath.Base(tcDir))))
			break
		}
	}
	return out
}

// rustFullName is a full toolchain name: channel, optional date, host.
var rustFullName = regexp.MustCompile(`^(stable|beta|nightly|\d+\.\d+(?:\.\d+)?)(-\d{4}-\d{2}-\d{2})?()-([a-z0-9_]+-[a-z0-9_]+-[a-z0-9_.-]+)$`)

// tomlTable is a table header with a bare name; tomlBareKey a bare key.
var (
	tomlTable   = regexp.MustCompile(`^\[\s*([A-Za-z0-9_-]+)\s*\]$`)
	tomlBareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
)

// rustToolchainFile is what a rust-toolchain file (or rustup's
// settings.toml) says.
type rustToolchainFile struct {
	channel, path          string
	components, targets    []string
	defaultToolchain, host string
	autoInstall            string
}

// parseRustToolchain reads a rust-toolchain file: TOML whose [toolchain]
// table has channel, path, components and targets (string or array of
// strings values, arrays on several lines), or the legacy form, one line
// naming the channel. Anything else is not read (false): a quoted or
// dotted key or table name, an inline table, a multi-line string. It reads
// settings.toml's default_toolchain and default_host_triple the same way.
func parseRustToolchain(data []byte) (rustToolchainFile, bool) {
	var tf rustToolchainFile
	text := string(data)
	if !strings.Contains(text, "[") && !strings.Contains(text, "=") {
		line := strings.TrimSpace(text)
		if line == "" || strings.ContainsAny(line, " \t\n\"'") {
			return tf, false
		}
		tf.channel = line
		return tf, true
	}
	section := ""
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(stripTOMLComment(lines[i]))
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "[") {
			// TOML also names a table quoted (["toolchain"]) or dotted;
			// those are not read.
			m := tomlTable.FindStringSubmatch(line)
			if m == nil {
				return tf, false
			}
			section = m[1]
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok {
			return tf, false
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if section == "" || section == "toolchain" {
			// rustup reads "path", toolchain.path = and toolchain = { path
			// = ... } as the path key, and a multi-line string can hold
			// what looks like a table: none of them is read.
			if !tomlBareKey.MatchString(key) || strings.HasPrefix(val, "{") ||
				strings.HasPrefix(val, `"""`) || strings.HasPrefix(val, "'''") {
				return tf, false
			}
		}
		if strings.HasPrefix(val, "[") {
			for !strings.Contains(val, "]") && i+1 < len(lines) {
				i++
				val += " " + strings.TrimSpace(stripTOMLComment(lines[i]))
			}
		}
		if section != "toolchain" {
			continue
		}
		switch key {
		case "channel", "path", "default_toolchain", "default_host_triple", "auto_install":
			s, err := strconv.Unquote(val)
			if err != nil {
				s, ok = tomlLiteral(val)
				if !ok {
					return tf, false
				}
			}
			switch key {
			case "channel":
				tf.channel = s
			case "path":
				tf.path = s
			case "default_toolchain":
				tf.defaultToolchain = s
			case "auto_install":
				tf.autoInstall = s
			default:
				tf.host = s
			}
		case "components", "targets":
			list, ok := tomlStrings(val)
			if !ok {
				return tf, false
			}
			if key == "components" {
				tf.components = list
			} else {
				tf.targets = list
			}
		}
	}
	return tf, true
}

// stripTOMLComment removes a # comment outside a string.
func stripTOMLComment(line string) string {
	var q byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case q != 0 && c == '\\' && q == '"':
			i++
		case q != 0 && c == q:
			q = 0
		case q == 0 && (c == '"' || c == '\''):
			q = c
		case q == 0 && c == '#':
			return line[:i]
		}
	}
	return line
}

// tomlLiteral reads a 'literal' string.
func tomlLiteral(v string) (string, bool) {
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' && !strings.Contains(v[1:len(v)-1], "'") {
		return v[1 : len(v)-1], true
	}
	return "", false
}

// tomlStrings reads an array of strings.
func tomlStrings(v string) ([]string, bool) {
	v = strings.TrimSpace(v)
	if !strings.HasPrefix(v, "[") || !strings.HasSuffix(v, "]") {
		return nil, false
	}
	var out []string
	for _, e := range strings.Split(v[1:len(v)-1], ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		s, err := strconv.Unquote(e)
		if err != nil {
			var ok bool
			if s, ok = tomlLiteral(e); !ok {
				return nil, false
			}
		}
		out = append(out, s)
	}
	return out, true
}

// parseRustOverrides reads the [overrides] table of rustup's settings.toml:
// directory → toolchain.
func parseRustOverrides(data []byte) map[string]string {
	m := map[string]string{}
	section := ""
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(stripTOMLComment(line))
		if strings.HasPrefix(line, "[") {
			section = strings.TrimSpace(strings.Trim(line, "[]"))
			continue
		}
		if section != "overrides" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		dir, err1 := strconv.Unquote(strings.TrimSpace(k))
		tc, err2 := strconv.Unquote(strings.TrimSpace(v))
		if err1 == nil && err2 == nil && filepath.IsAbs(dir) {
			m[filepath.Clean(dir)] = tc
		}
	}
	return m
}
