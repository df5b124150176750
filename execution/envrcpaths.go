package execution

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
	"golang.org/x/sys/unix"
)

// A direnv .envrc may load other files of the workspace: direnv asks the
// user to allow the .envrc by its content, not what it loads, so a
// command that wrote .envrc.local (source_env_if_exists .envrc.local) or
// .env (dotenv: PROMPT_COMMAND, LD_PRELOAD, PATH) had the user's shell
// run it at the next cd, with no question asked. envrcNamedPaths finds
// what an .envrc names, so that it is protected as the .envrc is.

// envrcLoaders are direnv's (and bash's) commands that load a file, with
// the file they load when given none ("": they need one).
var envrcLoaders = map[string]string{
	"source_env": "", "source_env_if_exists": "",
	"dotenv": ".env", "dotenv_if_exists": ".env",
	"source": "", ".": "",
}

// envrcNamedPaths returns the files the .envrc at p loads (by a path
// written out: one made of variables or substitutions is not known),
// relative to its directory, and the directories it puts on PATH. The
// answer is kept while the file is unchanged.
func envrcNamedPaths(p string) (files, pathDirs []string) {
	return namedInFile("envrc", p, func(data []byte) (files, dirs []string) {
		return envrcLoads(string(data), filepath.Dir(p)), envrcPathDirs(string(data), filepath.Dir(p))
	})
}

// namedInFile is what parse finds in the file p (nothing when p cannot
// be read), kept under kind and p while the file is unchanged.
func namedInFile(kind, p string, parse func(data []byte) (files, dirs []string)) (files, dirs []string) {
	key := kind + "\x00" + p
	namedCache.Lock()
	e, ok := namedCache.m[key]
	namedCache.Unlock()
	if ok && e.fresh() {
		return e.paths, e.dirs
	}
	read := &stampedFiles{}
	if data, err := read.ReadFile(p); err == nil {
		files, dirs = parse(data)
	}
	namedCache.Lock()
	if len(namedCache.m) >= 256 {
		clear(namedCache.m)
	}
	namedCache.m[key] = namedEntry{files: read.read, paths: files, dirs: dirs}
	namedCache.Unlock()
	return files, dirs
}

// envrcCommands calls f with the words of each command of each line of
// an .envrc's text (split at ; & and |; comments left out).
func envrcCommands(text string, f func(words []string)) {
	for _, line := range strings.Split(text, "\n") {
		for _, cmd := range strings.FieldsFunc(line, func(r rune) bool { return r == ';' || r == '&' || r == '|' }) {
			w := strings.Fields(cmd)
			for i, x := range w {
				if strings.HasPrefix(x, "#") {
					w = w[:i]
					break
				}
			}
			if len(w) > 0 {
				f(w)
			}
		}
	}
}

// envrcPath resolves a path an .envrc writes out against dir: "" for
// one made of variables, substitutions or globs, or in the home.
func envrcPath(arg, dir string) string {
	arg = strings.Trim(arg, `"'`)
	if arg == "" || strings.ContainsAny(arg, "$`*?[") || strings.HasPrefix(arg, "~") {
		return ""
	}
	if !filepath.IsAbs(arg) {
		arg = filepath.Join(dir, arg)
	}
	return filepath.Clean(arg)
}

// envrcPathDirs lists the directories an .envrc's text puts on PATH
// (PATH_add DIR..., path_add PATH DIR..., layout node), resolved
// against dir: the user's shell then runs what lies there for the names
// the user types.
func envrcPathDirs(text, dir string) []string {
	var out []string
	envrcCommands(text, func(w []string) {
		var args []string
		switch {
		case w[0] == "PATH_add":
			args = w[1:]
		case w[0] == "path_add" && len(w) > 1 && w[1] == "PATH":
			args = w[2:]
		case w[0] == "layout" && len(w) > 1 && w[1] == "node":
			args = []string{"node_modules/.bin"}
		}
		for _, a := range args {
			if p := envrcPath(a, dir); p != "" {
				out = append(out, p)
			}
		}
	})
	return out
}

// envrcLoads lists the files an .envrc's text loads (envrcLoaders, in
// each command of each line), resolved against dir.
// envrcUses are the files direnv's use FUNCTION evaluates (nix-direnv,
// devenv), in the directory it is given (the .envrc's by default): a
// devShell's shellHook runs at each load, and direnv reloads when they
// change, with no question.
var envrcUses = map[string][]string{
	"flake":  {"flake.nix", "flake.lock"},
	"nix":    {"shell.nix", "default.nix"},
	"devenv": {"devenv.nix", "devenv.yaml", "devenv.lock"},
}

func envrcLoads(text, dir string) []string {
	var out []string
	envrcCommands(text, func(w []string) {
		if w[0] == "use" && len(w) > 1 {
			base := dir
			if w[1] == "flake" && len(w) > 2 && !strings.HasPrefix(w[2], "-") {
				ref, _, _ := strings.Cut(strings.Trim(w[2], `"'`), "#")
				if ref == "" || strings.Contains(ref, ":") {
					ref = "." // this directory, or a flake that is not a path
				}
				if base = envrcPath(ref, dir); base == "" {
					return
				}
			}
			for _, n := range envrcUses[w[1]] {
				out = append(out, filepath.Join(base, n))
			}
			return
		}
		def, ok := envrcLoaders[w[0]]
		if !ok {
			return
		}
		arg := def
		for _, a := range w[1:] {
			if !strings.HasPrefix(a, "-") {
				arg = a
				break
			}
		}
		p := envrcPath(arg, dir)
		if p == "" {
			return
		}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return // source_env DIR loads DIR/.envrc, itself protected
		}
		out = append(out, p)
	})
	return out
}

// systemProgramNames are the names of the programs in the system's
// program directories, read once.
var systemProgramNames = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, d := range []string{"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"} {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			m[e.Name()] = true
		}
	}
	return m
})

// maxShadowEntries bounds the entries of a PATH directory looked at.
const maxShadowEntries = 20000

// shadowStates records, in the directories dirs, the entries named as a
// system program (systemProgramNames): the user's shell, with an .envrc
// that put the directory on PATH, runs such an entry for that name.
func shadowStates(dirs []string, into map[string]pathState) {
	names := systemProgramNames()
	for _, d := range dirs {
		// A directory only: the workspace may have a FIFO by that name,
		// which a plain open waits on for ever (before the run, and after
		// it, when the command put one there).
		fd, err := unix.Open(d, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		f := os.NewFile(uintptr(fd), d)
		ents, _ := f.ReadDir(maxShadowEntries)
		f.Close()
		for _, e := range ents {
			if names[e.Name()] {
				p := filepath.Join(d, e.Name())
				into[p] = statePath(p)
			}
		}
	}
}

// mise (trusted by its project directory, not a file's content) sources
// the scripts and reads the dotenv files its configuration's [env]
// names (_.source, _.file) and puts its _.path directories on PATH, in
// the user's shell at each prompt: a confined command that wrote
// env.sh, which a trusted mise.toml sources, had mise 2026.9 run it.

// miseConfigNames are mise's configuration files in a project, as paths
// from the project directory.
var miseConfigNames = []string{"mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml",
	".mise/config.toml", ".config/mise.toml", ".config/mise/config.toml"}

// miseConfigProject is the project directory of the mise configuration
// file p ("" when p is not one).
func miseConfigProject(p string) string {
	for _, n := range miseConfigNames {
		if strings.HasSuffix(p, string(filepath.Separator)+n) {
			return strings.TrimSuffix(p, string(filepath.Separator)+n)
		}
	}
	return ""
}

// miseNamedPaths returns the files the mise configuration p (of the
// project directory project) sources or reads as dotenv files, and the
// directories it puts on PATH. The answer is kept while p is unchanged.
func miseNamedPaths(p, project string) (files, pathDirs []string) {
	return namedInFile("mise", p, func(data []byte) (files, dirs []string) { return miseEnvPaths(data, project) })
}

// miseEnvPaths reads a mise configuration's [env] directives (as a
// table or an array of tables): _.source and _.file (a path, a list,
// or tables with a path) and _.path, resolved against project ({{
// config_root }} is project; another template is not known).
func miseEnvPaths(data []byte, project string) (files, dirs []string) {
	var cfg map[string]any
	if toml.Unmarshal(data, &cfg) != nil {
		return nil, nil
	}
	var envs []map[string]any
	switch v := cfg["env"].(type) {
	case map[string]any:
		envs = append(envs, v)
	case []any:
		for _, x := range v {
			if m, ok := x.(map[string]any); ok {
				envs = append(envs, m)
			}
		}
	}
	var values func(v any) []string
	values = func(v any) []string {
		switch v := v.(type) {
		case string:
			return []string{v}
		case []any:
			var out []string
			for _, x := range v {
				out = append(out, values(x)...)
			}
			return out
		case map[string]any:
			return values(v["path"])
		}
		return nil
	}
	resolve := func(s string) string {
		for _, t := range []string{"{{config_root}}", "{{ config_root }}"} {
			s = strings.ReplaceAll(s, t, project)
		}
		if strings.Contains(s, "{{") {
			return ""
		}
		return envrcPath(s, project)
	}
	for _, env := range envs {
		u, _ := env["_"].(map[string]any)
		for _, k := range []string{"source", "file"} {
			for _, s := range values(u[k]) {
				if p := resolve(s); p != "" {
					files = append(files, p)
				}
			}
		}
		for _, s := range values(u["path"]) {
			if p := resolve(s); p != "" {
				dirs = append(dirs, p)
			}
		}
	}
	return files, dirs
}

// hgrcNamedPaths returns the files a Mercurial repository's hgrc at p
// includes (%include PATH, relative to its directory): hg reads their
// hooks and extensions as the hgrc's own. The answer is kept while p is
// unchanged.
func hgrcNamedPaths(p string) []string {
	paths, _ := namedInFile("hgrc", p, func(data []byte) (paths, _ []string) {
		for _, line := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "%include"); ok {
				if q := envrcPath(strings.TrimSpace(rest), filepath.Dir(p)); q != "" {
					paths = append(paths, q)
				}
			}
		}
		return paths, nil
	})
	return paths
}
