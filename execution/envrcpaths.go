package execution

import (
	"os"
	"path/filepath"
	"strings"
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
// relative to its directory. The answer is kept while the file is
// unchanged.
func envrcNamedPaths(p string) []string {
	key := "envrc\x00" + p
	namedCache.Lock()
	e, ok := namedCache.m[key]
	namedCache.Unlock()
	if ok && e.fresh() {
		return e.paths
	}
	files := &stampedFiles{}
	data, err := files.ReadFile(p)
	var paths []string
	if err == nil {
		paths = envrcLoads(string(data), filepath.Dir(p))
	}
	namedCache.Lock()
	if len(namedCache.m) >= 256 {
		clear(namedCache.m)
	}
	namedCache.m[key] = namedEntry{files: files.read, paths: paths}
	namedCache.Unlock()
	return paths
}

// envrcLoads lists the files an .envrc's text loads (envrcLoaders, in
// each command of each line), resolved against dir.
func envrcLoads(text, dir string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		for _, cmd := range strings.FieldsFunc(line, func(r rune) bool { return r == ';' || r == '&' || r == '|' }) {
			f := strings.Fields(cmd)
			if len(f) == 0 || strings.HasPrefix(f[0], "#") {
				continue
			}
			def, ok := envrcLoaders[f[0]]
			if !ok {
				continue
			}
			arg := def
			for _, a := range f[1:] {
				if strings.HasPrefix(a, "#") {
					break
				}
				if !strings.HasPrefix(a, "-") {
					arg = strings.Trim(a, `"'`)
					break
				}
			}
			if arg == "" || strings.ContainsAny(arg, "$`*?[") {
				continue
			}
			if strings.HasPrefix(arg, "~") {
				continue // the home: not in the roots
			}
			if !filepath.IsAbs(arg) {
				arg = filepath.Join(dir, arg)
			}
			arg = filepath.Clean(arg)
			if fi, err := os.Stat(arg); err == nil && fi.IsDir() {
				continue // source_env DIR loads DIR/.envrc, itself protected
			}
			out = append(out, arg)
		}
	}
	return out
}
