package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/shellgate/shellgate/hook"
)

// geminiFolderTrust: Gemini CLI runs hooks from its settings (the project's
// and the user's) only in a trusted folder (checked against
// @google/gemini-cli 0.61: checkPathTrust, processHooksFromConfig). Folder
// trust is on unless the user's settings turn it off
// (security.folderTrust.enabled = false); GEMINI_CLI_TRUST_WORKSPACE=true
// trusts every folder, =false (or GEMINI_RESTRICTED_MODE=true) none; else
// the longest rule of trustedFolders.json ($GEMINI_CLI_TRUSTED_FOLDERS_PATH,
// else ~/.gemini/trustedFolders.json) that holds the folder decides:
// TRUST_FOLDER, TRUST_PARENT (the rule's parent) or DO_NOT_TRUST. No rule:
// not trusted.
func (o *Options) geminiFolderTrust() Check {
	fix := fmt.Sprintf("gemini   # in %s, and trust the folder when asked (or with /permissions)", o.Dir)
	if o.getenv("GEMINI_RESTRICTED_MODE") == "true" || o.getenv("GEMINI_CLI_TRUST_WORKSPACE") == "false" {
		return Check{Name: "trust", Message: "the environment makes no folder trusted (GEMINI_RESTRICTED_MODE or GEMINI_CLI_TRUST_WORKSPACE=false): Gemini CLI runs no hook", Fix: "unset GEMINI_RESTRICTED_MODE GEMINI_CLI_TRUST_WORKSPACE"}
	}
	if o.getenv("GEMINI_CLI_TRUST_WORKSPACE") == "true" {
		return Check{Name: "trust", OK: true, Message: "GEMINI_CLI_TRUST_WORKSPACE=true trusts every folder"}
	}
	if o.Home == "" {
		return Check{Name: "trust", Message: "no home directory: Gemini CLI's trusted folders cannot be read", Fix: "export HOME=..."}
	}
	if data, err := os.ReadFile(filepath.Join(o.Home, ".gemini", "settings.json")); err == nil {
		if root, err := parseSettings(hook.Gemini, data); err == nil {
			sec, _ := root["security"].(map[string]any)
			ft, _ := sec["folderTrust"].(map[string]any)
			if ft["enabled"] == false {
				return Check{Name: "trust", OK: true, Message: fmt.Sprintf("Gemini CLI trusts %s (folder trust is turned off in %s)", o.Dir, filepath.Join(o.Home, ".gemini", "settings.json"))}
			}
		}
	}
	path := o.getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
	if path == "" {
		path = filepath.Join(o.Home, ".gemini", "trustedFolders.json")
	}
	no := func(why string) Check {
		return Check{Name: "trust", Message: fmt.Sprintf("Gemini CLI does not trust %s (%s), so it runs no hook there", o.Dir, why), Fix: fix}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return no(path + " does not exist: no folder is trusted yet")
	}
	root, err := parseSettings(hook.Gemini, data)
	if err != nil {
		return Check{Name: "trust", Message: fmt.Sprintf("Gemini CLI's trusted folders cannot be read (%s is %v): Gemini CLI refuses to start on a file it cannot parse", path, err), Fix: "fix " + path + " by hand"}
	}
	dir := realPath(o.Dir)
	best, level, why := -1, "", fmt.Sprintf("%s has no rule for %s", path, o.Dir)
	for rule, v := range root {
		lv, _ := v.(string)
		eff := rule
		if lv == "TRUST_PARENT" {
			eff = filepath.Dir(rule)
		}
		eff = realPath(eff)
		if (dir == eff || strings.HasPrefix(dir, strings.TrimSuffix(eff, "/")+"/")) && len(rule) > best {
			best, level, why = len(rule), lv, fmt.Sprintf("%s: %q is %s", path, rule, lv)
		}
	}
	switch level {
	case "TRUST_FOLDER", "TRUST_PARENT":
		return Check{Name: "trust", OK: true, Message: fmt.Sprintf("Gemini CLI trusts %s (%s)", o.Dir, why)}
	case "":
		why = fmt.Sprintf("%s has no rule for %s", path, o.Dir)
	}
	return no(why)
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}
