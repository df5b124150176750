package readstation

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
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
// is the catalog's unless_env. A path (another toolchain's programs) is
// the rust-toolchain-path check's.

// rustFound is the toolchain file rustup would read for a segment: its
// path ("" when none, or when it cannot be established), and what it says.
type rustFound struct {
	file string
	tf   rustToolchainFile
}

// findRustToolchain finds and reads the toolchain file rustup would read
// (once per segment: both rust checks use it). A file that cannot be read,
// or read as a toolchain file, adds a not-established read and is none.
func findRustToolchain(h *hiddenRun) rustFound {
	if h.rust != nil {
		return *h.rust
	}
	var found rustFound
	defer func() { h.rust = &found }()
	if v, known := h.env("RUSTUP_TOOLCHAIN"); known && v != "" {
		return found // the environment chooses the toolchain; the file is not read
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
			_, overrides = parseRustSettings(data)
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
			b, ok := h.read(p)
			if h.bad > bad {
				return found
			}
			if ok {
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
		return found
	}
	tf, why := readRustToolchain(data, filepath.Base(file) != "rust-toolchain.toml")
	if why != "" {
		h.j.notEstablished(h.s, file, fmt.Sprintf("%s: %s cannot be read as a toolchain file (%s), so the toolchain rustup runs (and whether it installs one) cannot be established", h.who, show(file), why))
		return found
	}
	found = rustFound{file: file, tf: tf}
	return found
}

// checkRustToolchainPath: the rust-toolchain file names a path, a
// directory whose bin/ programs rustup's proxies run in place of a
// toolchain's.
func checkRustToolchainPath(h *hiddenRun) []RepoHelper {
	f := findRustToolchain(h)
	if f.tf.path == "" {
		return nil
	}
	return []RepoHelper{{Key: "path", File: f.file, Value: "path = " + strconv.Quote(clip(f.tf.path)),
		Why:  fmt.Sprintf("names the toolchain directory %s", show(f.tf.path)),
		Does: "run the programs in its bin directory in place of the toolchain's", Segment: h.s.Index, Span: h.s.Span}}
}

// checkRustToolchain: rustup would install the toolchain, components or
// targets a rust-toolchain file names.
func checkRustToolchain(h *hiddenRun) []RepoHelper {
	f := findRustToolchain(h)
	file, tf := f.file, f.tf
	if file == "" || tf.path != "" {
		return nil // none, or a path (checkRustToolchainPath reports it)
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
	st, _ := parseRustSettings(settings)
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

// rustToolchainFile is what a rust-toolchain file (or rustup's
// settings.toml) says.
type rustToolchainFile struct {
	channel, path          string
	components, targets    []string
	defaultToolchain, host string
	autoInstall            string
}

// parseRustToolchain reads a toolchain file as rustup does. A file named
// rust-toolchain (legacy) of one line (as Rust's str::lines counts them:
// "stable\n" is one, "stable\n\n" two) names the channel; anything else,
// and every rust-toolchain.toml, is TOML (decoded by go-toml, so every
// TOML spelling of a key, quoted, dotted, escaped, an inline table or a
// multi-line string, reads as rustup's toml crate reads it) whose
// toolchain table has channel or path, and components and targets. A file
// rustup would not read (not TOML, no toolchain table, neither channel nor
// path, a key with a value of another type than rustup takes) is not read
// (false). (Confirmed with rustup 1.29: "stable\n\n" and a
// rust-toolchain.toml without channel "could not parse override file".)
func parseRustToolchain(data []byte, legacy bool) (rustToolchainFile, bool) {
	tf, why := readRustToolchain(data, legacy)
	return tf, why == ""
}

// readRustToolchain is parseRustToolchain, with why a file is not read
// ("" when it is).
func readRustToolchain(data []byte, legacy bool) (rustToolchainFile, string) {
	var tf rustToolchainFile
	text := string(data)
	if lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n"); legacy && text != "" && len(lines) == 1 {
		line := strings.TrimSpace(lines[0])
		if line == "" || strings.ContainsAny(line, " \t\r\"'=[") {
			return tf, "its one line is not a toolchain name"
		}
		tf.channel = line
		return tf, ""
	}
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		return tf, "it is not TOML: " + clip(err.Error())
	}
	tc, ok := doc["toolchain"].(map[string]any)
	if !ok {
		return tf, "it has no toolchain table"
	}
	why := ""
	str := func(key string, dst *string) {
		switch v := tc[key].(type) {
		case nil:
		case string:
			*dst = v
		default:
			why = "toolchain." + key + " is not a string"
		}
	}
	list := func(key string, dst *[]string) {
		switch v := tc[key].(type) {
		case nil:
		case []any:
			for _, e := range v {
				s, isStr := e.(string)
				if !isStr {
					why = "toolchain." + key + " is not a list of strings"
					return
				}
				*dst = append(*dst, s)
			}
		default:
			why = "toolchain." + key + " is not a list of strings"
		}
	}
	str("channel", &tf.channel)
	str("path", &tf.path)
	list("components", &tf.components)
	list("targets", &tf.targets)
	if why == "" && tf.channel == "" && tf.path == "" {
		why = "its toolchain table names neither a channel nor a path"
	}
	return tf, why
}

// parseRustSettings reads rustup's settings.toml (go-toml):
// default_toolchain, default_host_triple, auto_install, and the
// [overrides] table (directory → toolchain). A file that is not TOML
// reads as empty.
func parseRustSettings(data []byte) (rustToolchainFile, map[string]string) {
	var st struct {
		DefaultToolchain string         `toml:"default_toolchain"`
		Host             string         `toml:"default_host_triple"`
		AutoInstall      string         `toml:"auto_install"`
		Overrides        map[string]any `toml:"overrides"`
	}
	var tf rustToolchainFile
	if err := toml.Unmarshal(data, &st); err != nil {
		return tf, nil
	}
	tf.defaultToolchain, tf.host, tf.autoInstall = st.DefaultToolchain, st.Host, st.AutoInstall
	m := map[string]string{}
	for dir, v := range st.Overrides {
		if tc, ok := v.(string); ok && filepath.IsAbs(dir) {
			m[filepath.Clean(dir)] = tc
		}
	}
	return tf, m
}
