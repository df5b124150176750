package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/shellgate/shellgate/trust"
)

// GeminiTrust says whether Gemini CLI trusts a folder. Gemini CLI runs no
// hooks from settings (the user's or the project's) in a folder it does not
// trust: there it ignores the project's settings and asks before shell
// commands itself (its approval mode is forced to the default).
type GeminiTrust struct {
	// Trusted is true when Gemini CLI runs hooks in the folder.
	Trusted bool
	// Why says which rule decided, for a person.
	Why string
	// File is the trusted-folders file read ("" when folder trust is off).
	File string
}

// GeminiTrustedFoldersFile is Gemini CLI's trusted-folders file for a user
// whose home is home: $GEMINI_CLI_TRUSTED_FOLDERS_PATH, else
// ~/.gemini/trustedFolders.json.
func GeminiTrustedFoldersFile(home string) string {
	if p := os.Getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH"); p != "" {
		return p
	}
	return filepath.Join(home, ".gemini", "trustedFolders.json")
}

// GeminiFolderTrust reads how Gemini CLI (0.61) treats dir: folder trust
// turned off in the user's settings (security.folderTrust.enabled: false)
// trusts every folder; else the longest rule of the trusted-folders file
// whose folder holds dir decides (TRUST_FOLDER: that folder, TRUST_PARENT:
// its parent, DO_NOT_TRUST), and a folder no rule covers is not trusted
// (Gemini CLI asks about it on its first start there). A file that cannot
// be read or parsed is an error (shellgate reads plain JSON; Gemini CLI also
// takes comments, and refuses to start on a file it cannot parse).
func GeminiFolderTrust(home, dir string) (GeminiTrust, error) {
	if b, err := trust.ReadRegular(filepath.Join(home, ".gemini", "settings.json"), MaxSettingsBytes); err == nil {
		var st struct {
			Security struct {
				FolderTrust struct {
					Enabled *bool `json:"enabled"`
				} `json:"folderTrust"`
			} `json:"security"`
		}
		if json.Unmarshal(b, &st) == nil && st.Security.FolderTrust.Enabled != nil && !*st.Security.FolderTrust.Enabled {
			return GeminiTrust{Trusted: true, Why: "folder trust is turned off in " + filepath.Join(home, ".gemini", "settings.json")}, nil
		}
	}
	file := GeminiTrustedFoldersFile(home)
	t := GeminiTrust{File: file}
	b, err := trust.ReadRegular(file, MaxSettingsBytes)
	if errors.Is(err, os.ErrNotExist) {
		t.Why = file + " does not exist: no folder is trusted yet"
		return t, nil
	}
	if err != nil {
		return t, err
	}
	var rules map[string]string
	if err := json.Unmarshal(b, &rules); err != nil {
		return t, fmt.Errorf("%s: %v", file, err)
	}
	real := realPath(dir)
	best, level := -1, ""
	for path, lv := range rules {
		eff := path
		if lv == "TRUST_PARENT" {
			eff = filepath.Dir(path)
		}
		if !within(realPath(eff), real) || len(path) <= best {
			continue
		}
		best, level = len(path), lv
		t.Why = fmt.Sprintf("%s: %q is %s", file, path, lv)
	}
	switch level {
	case "TRUST_FOLDER", "TRUST_PARENT":
		t.Trusted = true
	case "":
		t.Why = fmt.Sprintf("%s has no rule for %s", file, dir)
	}
	return t, nil
}

func realPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// within reports whether p is dir or inside it.
func within(dir, p string) bool {
	if dir == p {
		return true
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
