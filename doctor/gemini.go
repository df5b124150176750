package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/shellgate/shellgate/hook"
)

// geminiFolderTrust: Gemini CLI runs a project's hooks only in a trusted
// folder (checked against @google/gemini-cli 0.61: checkPathTrust). Folder
// trust is on unless the user's settings turn it off
// (security.folderTrust.enabled = false); GEMINI_CLI_TRUST_WORKSPACE=true
// trusts every folder, =false (or GEMINI_RESTRICTED_MODE=true) none; else
// the longest rule of trustedFolders.json ($GEMINI_CLI_TRUSTED_FOLDERS_PATH,
// else ~/.gemini/trustedFolders.json) that holds the folder decides:
// TRUST_FOLDER, TRUST_PARENT (the rule's parent) or DO_NOT_TRUST. No rule:
// not trusted.
func (o *Options) geminiFolderTrust() Check {
	fix := fmt.Sprintf("gemini   # in %s, and trust the folder when asked; or: shellgate install gemini --user", o.Dir)
	if o.getenv("GEMINI_RESTRICTED_MODE") == "true" || o.getenv("GEMINI_CLI_TRUST_WORKSPACE") == "false" {
		return Check{Name: "trust", Message: "the environment makes no folder trusted (GEMINI_RESTRICTED_MODE or GEMINI_CLI_TRUST_WORKSPACE=false): Gemini CLI runs no project hook", Fix: "shellgate install gemini --user"}
	}
	if o.getenv("GEMINI_CLI_TRUST_WORKSPACE") == "true" {
		return Check{Name: "trust", OK: true, Message: "GEMINI_CLI_TRUST_WORKSPACE=true trusts every folder"}
	}
	if o.Home == "" {
		return Check{Name: "trust", Message: "no home directory: Gemini CLI's trusted folders cannot be read", Fix: "shellgate install gemini --user"}
	}
	if data, err := os.ReadFile(filepath.Join(o.Home, ".gemini", "settings.json")); err == nil {
		if root, err := parseSettings(hook.Gemini, data); err == nil {
			sec, _ := root["security"].(map[string]any)
			ft, _ := sec["folderTrust"].(map[string]any)
			if ft["enabled"] == false {
				return Check{Name: "trust", OK: true, Message: "folder trust is off in your Gemini CLI settings: project hooks run everywhere"}
			}
		}
	}
	path := o.getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
	if path == "" {
		path = filepath.Join(o.Home, ".gemini", "trustedFolders.json")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Check{Name: "trust", Message: fmt.Sprintf("%s is not a trusted Gemini CLI folder (no %s): Gemini CLI does not run its project hooks", o.Dir, path), Fix: fix}
	}
	root, err := parseSettings(hook.Gemini, data)
	if err != nil {
		return Check{Name: "trust", Message: fmt.Sprintf("%s is %v: Gemini CLI refuses to start", path, err), Fix: "fix " + path + " by hand"}
	}
	dir := realPath(o.Dir)
	best, level := -1, ""
	for rule, v := range root {
		lv, _ := v.(string)
		eff := rule
		if lv == "TRUST_PARENT" {
			eff = filepath.Dir(rule)
		}
		eff = realPath(eff)
		if (dir == eff || strings.HasPrefix(dir, strings.TrimSuffix(eff, "/")+"/")) && len(rule) > best {
			best, level = len(rule), lv
		}
	}
	switch level {
	case "TRUST_FOLDER", "TRUST_PARENT":
		return Check{Name: "trust", OK: true, Message: fmt.Sprintf("%s is a trusted Gemini CLI folder (%s)", o.Dir, path)}
	case "DO_NOT_TRUST":
		return Check{Name: "trust", Message: fmt.Sprintf("%s marks %s DO_NOT_TRUST: Gemini CLI does not run its project hooks", path, o.Dir), Fix: fix}
	}
	return Check{Name: "trust", Message: fmt.Sprintf("%s is not a trusted Gemini CLI folder (%s has no rule for it): Gemini CLI does not run its project hooks", o.Dir, path), Fix: fix}
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}
