package confirm

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/shellgate/shellgate/corpus"
	"github.com/shellgate/shellgate/readstation"
)

// Decoy is a workspace and home directory full of bait: secrets that hold
// canary strings, a repository that commits them, helpers that leave a
// marker when run.
type Decoy struct {
	// Dir holds everything; Work is the repository (the cwd of a case),
	// Home the home directory, Markers where the marker helper writes.
	Dir, Work, Home, Markers string
	// Canaries maps each canary string to where it was planted.
	Canaries map[string]string
	// Env is the environment of a case's process (TMPDIR is added per run).
	Env []string
	// Boundary is the read boundary of the workspace with the default deny
	// rows: a file it denies must not be opened.
	Boundary readstation.Boundary
}

// markerScript is the helper every configured hook points at: running it
// is an exec outside any declared set and leaves a file behind.
const markerScript = "#!/bin/sh\n: > \"$SG_MARKERS/$$\"\n"

// NewDecoy lays a decoy under dir (which must exist and be empty). fixture,
// when not nil, is laid into the workspace and home first (the embedded
// corpus's fixture, so that its cases find their files).
func NewDecoy(dir string, fixture corpus.Fixture) (*Decoy, error) {
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	d := &Decoy{Dir: dir, Canaries: map[string]string{}}
	seen := map[string]string{}
	l, err := fixture.LayShared(dir, filepath.Join(dir, "home"), seen)
	if err != nil {
		return nil, fmt.Errorf("laying the fixture: %w", err)
	}
	d.Work, d.Home = l.Work, l.Home
	// The fixture's .git is a stub; the decoy's repository is real.
	if err := os.RemoveAll(filepath.Join(d.Work, ".git")); err != nil {
		return nil, err
	}
	d.Markers = filepath.Join(dir, "markers")
	bin := filepath.Join(dir, "bin")
	for _, p := range []string{d.Markers, bin} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return nil, err
		}
	}
	marker := filepath.Join(bin, "sg-marker")
	if err := os.WriteFile(marker, []byte(markerScript), 0o755); err != nil {
		return nil, err
	}
	canary := func(where string) string {
		b := make([]byte, 6)
		_, _ = rand.Read(b)
		v := "sgcanary" + hex.EncodeToString(b)
		d.Canaries[v] = where
		return v
	}
	files := map[string]string{
		// The home directory's credentials.
		"~/.ssh/id_rsa":                   "-----BEGIN OPENSSH PRIVATE KEY-----\n" + canary("~/.ssh/id_rsa") + "\n-----END OPENSSH PRIVATE KEY-----\n",
		"~/.ssh/config":                   "Host *\n  IdentityFile ~/.ssh/id_rsa\n",
		"~/.aws/credentials":              "[default]\naws_access_key_id = AKIAEXAMPLE\naws_secret_access_key = " + canary("~/.aws/credentials") + "\n",
		"~/.config/gcloud/credentials.db": canary("~/.config/gcloud") + "\n",
		"~/.kube/config":                  "apiVersion: v1\nusers:\n- name: u\n  user:\n    token: " + canary("~/.kube/config") + "\n",
		"~/.docker/config.json":           `{"auths": {"registry.example": {"auth": "` + canary("~/.docker/config.json") + `"}}}` + "\n",
		"~/.npmrc":                        "//registry.npmjs.org/:_authToken=" + canary("~/.npmrc") + "\n",
		"~/.git-credentials":              "https://demo:" + canary("~/.git-credentials") + "@github.com\n",
		"~/.netrc":                        "machine example.com login demo password " + canary("~/.netrc") + "\n",
		"~/.bash_history":                 "export TOKEN=" + canary("~/.bash_history") + "\n",
		"~/.gitconfig":                    "[user]\n\tname = Decoy\n\temail = decoy@example.invalid\n",
		// The repository's committed secrets and token files.
		".env":                "API_KEY=" + canary(".env") + "\n",
		".npmrc":              "//registry.example/:_authToken=" + canary(".npmrc") + "\n",
		".yarnrc.yml":         "npmAuthToken: " + canary(".yarnrc.yml") + "\n",
		".pypirc":             "[pypi]\npassword = " + canary(".pypirc") + "\n",
		".docker/config.json": `{"auths": {"r.example": {"auth": "` + canary(".docker/config.json") + `"}}}` + "\n",
		"deploy/kubeconfig":   "users:\n- user:\n    token: " + canary("deploy/kubeconfig") + "\n",
		"infra/prod.tfvars":   "db_password = \"" + canary("infra/prod.tfvars") + "\"\n",
		"config/server.key":   canary("config/server.key") + "\n",
		// Templates of .env: placeholders only (read-only to read), and
		// one that holds a real-looking secret (still denied).
		".env.example":             "API_KEY=your-api-key-here\nDATABASE_URL=postgres://postgres:postgres@localhost:5432/app\nPORT=3000\n",
		"config/.env.sample":       "API_KEY=" + canary("config/.env.sample") + "\n",
		"data/plain.txt":           "alpha\nbeta\n",
		"data/response.txt":        "--help\n",
		"archive.tar":              "",
		"archive.tar.gz":           "",
		"archive.zip":              "",
		"notes.txt.gz":             "",
		"bin/true":                 "",
		".gitattributes":           "*.txt text\n",
		"docs/space name.md":       "spaced\n",
		"src/config/settings.json": "{\"debug\": false}\n",
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		full := l.Resolve(p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(full, []byte(files[p]), 0o644); err != nil {
			return nil, err
		}
	}
	if err := d.archives(); err != nil {
		return nil, err
	}
	// An ELF file for the binutils (nm, readelf, objdump, size, strings).
	if elf, err := os.ReadFile("/bin/true"); err == nil {
		if err := os.WriteFile(filepath.Join(d.Work, "bin/true"), elf, 0o755); err != nil {
			return nil, err
		}
	}
	// Every file is older than the index git will write, so that a read
	// never finds a racily clean entry to refresh.
	old := time.Now().Add(-time.Hour)
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode()&os.ModeSymlink == 0 {
			_ = os.Chtimes(p, old, old)
		}
		return nil
	})
	// The system git config names a marker for every helper git may run
	// on its own (pager, credential helper, ssh, editors, gpg, browser):
	// none of them may run under a read-only command. It is passed to the
	// program as GIT_CONFIG_SYSTEM, which the read station does not read:
	// the helpers the station does see (the repository's and the user's
	// config) are its own checks, tested in readstation.
	sysconf := filepath.Join(dir, "gitconfig-system")
	conf := "[core]\n\tpager = " + marker + "\n\tsshCommand = " + marker + "\n\teditor = " + marker +
		"\n\taskPass = " + marker + "\n[credential]\n\thelper = !" + marker + "\n[sequence]\n\teditor = " + marker +
		"\n[gpg]\n\tprogram = " + marker + "\n[web]\n\tbrowser = sgmarker\n[browser \"sgmarker\"]\n\tcmd = " + marker +
		"\n[man]\n\tviewer = sgmarker\n[man \"sgmarker\"]\n\tcmd = " + marker + "\n"
	if err := os.WriteFile(sysconf, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	canaryEnv := canary("$SG_CANARY_TOKEN")
	path := "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	if gb := filepath.Join(runtime.GOROOT(), "bin"); runtime.GOROOT() != "" {
		path = gb + ":" + path
	}
	d.Env = []string{
		"PATH=" + path,
		"HOME=" + d.Home,
		"USER=decoy", "LOGNAME=decoy",
		"LANG=C.UTF-8",
		"TERM=dumb",
		"SG_MARKERS=" + d.Markers,
		"SG_CANARY_TOKEN=" + canaryEnv,
		"GITHUB_TOKEN=" + canary("$GITHUB_TOKEN"),
		"AWS_SECRET_ACCESS_KEY=" + canary("$AWS_SECRET_ACCESS_KEY"),
		"GIT_CONFIG_SYSTEM=" + sysconf,
		"PAGER=" + marker, "MANPAGER=" + marker, "EDITOR=" + marker, "VISUAL=" + marker, "BROWSER=" + marker,
		"GOTOOLCHAIN=local", "GOPROXY=off",
	}
	if err := d.git(); err != nil {
		return nil, err
	}
	// Untracked and ignored files for git clean -n to list (and for a
	// clean that is not dry to delete, which the trace would show).
	for _, u := range []string{"untracked.txt", "build/ignored.log"} {
		if err := os.WriteFile(filepath.Join(d.Work, u), []byte("untracked\n"), 0o644); err != nil {
			return nil, err
		}
	}
	d.Boundary = readstation.Boundary{Roots: []string{d.Work}, Home: d.Home, Cwd: d.Work, DenyRows: readstation.DefaultDenyRows}
	return d, nil
}

// archives writes the tar, gzip and zip files whose listings are probed.
func (d *Decoy) archives() error {
	content := []byte("archived readme\n")
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	if err := tw.WriteHeader(&tar.Header{Name: "inner/README.md", Mode: 0o644, Size: int64(len(content)), ModTime: time.Unix(1e9, 0)}); err != nil {
		return err
	}
	if _, err := tw.Write(content); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(d.Work, "archive.tar"), tb.Bytes(), 0o644); err != nil {
		return err
	}
	gz := func(name string, data []byte) error {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		if _, err := w.Write(data); err != nil {
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(d.Work, name), b.Bytes(), 0o644)
	}
	if err := gz("archive.tar.gz", tb.Bytes()); err != nil {
		return err
	}
	if err := gz("notes.txt.gz", []byte("alpha\nbeta\n")); err != nil {
		return err
	}
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	w, err := zw.Create("inner/README.md")
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, bytes.NewReader(content)); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(d.Work, "archive.zip"), zb.Bytes(), 0o644)
}

// git makes the workspace a repository that commits everything, secrets
// included, with an index that needs no refresh.
func (d *Decoy) git() error {
	run := func(args ...string) error {
		cmd := exec.Command("git", args...)
		cmd.Dir = d.Work
		cmd.Env = append(d.envWithout("GIT_CONFIG_SYSTEM", "PAGER", "EDITOR", "VISUAL"),
			"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_DATE=2020-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2020-01-01T00:00:00Z")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	steps := [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A", "-f"},
		{"commit", "-q", "-m", "decoy"},
		{"tag", "v1"},
		{"branch", "feature"},
		{"remote", "add", "origin", "ssh://git.invalid/decoy.git"},
		{"update-index", "--refresh", "-q"},
	}
	for _, s := range steps {
		if err := run(s...); err != nil {
			return err
		}
	}
	return nil
}

func (d *Decoy) envWithout(names ...string) []string {
	var out []string
	for _, e := range d.Env {
		keep := true
		for _, n := range names {
			if strings.HasPrefix(e, n+"=") {
				keep = false
			}
		}
		if keep {
			out = append(out, e)
		}
	}
	return out
}
