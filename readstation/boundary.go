package readstation

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Default caps used when a Boundary leaves MaxGlobMatches or MaxWalkDirs at
// zero. Hitting a cap makes the read not-established, never ok.
const (
	DefaultMaxGlobMatches = 1024
	DefaultMaxWalkDirs    = 4096
)

// Boundary says where commands may read. Roots are the directories reads
// must stay inside; DenyRows are gitignore-style patterns that no read may
// touch, wherever it is.
type Boundary struct {
	// Roots are the directories reads may touch (the workspace plus extra
	// roots from config). A root may start with "~/" for the home directory;
	// relative roots are relative to Cwd.
	Roots []string
	// DenyRows are gitignore-style patterns (see the package doc).
	DenyRows []string
	// Home is the home directory that "~" and $HOME stand for.
	Home string
	// Cwd is the absolute directory the command starts in.
	Cwd string
	// MaxGlobMatches caps the matches one glob may expand to (0: default).
	MaxGlobMatches int
	// MaxWalkDirs caps the directories one recursive check may list
	// (0: default).
	MaxWalkDirs int
	// Env is what is known of the environment the command runs in (the
	// agent's): a variable that may make a program read more (a walk's
	// config_env) counts as set unless Env knows it is not. Nil knows
	// nothing.
	Env Env
}

// DefaultDenyRows are the rows a boundary starts with: credentials, keys,
// tokens, shell histories and system secrets. Config can extend or replace
// them.
var DefaultDenyRows = []string{
	// SSH, GPG and cloud credentials.
	"~/.ssh/**",
	"~/.gnupg/**",
	"~/.aws/**",
	"~/.azure/**",
	"~/.config/gcloud/**",
	"~/.oci/**",
	"~/.kube/**",
	"~/.docker/config.json",
	"~/.config/gh/**",
	"~/.config/hub",
	"~/.config/glab-cli/**",
	"~/.terraform.d/credentials.tfrc.json",
	"~/.vault-token",
	"~/.password-store/**",
	"~/.local/share/keyrings/**",
	"~/.config/op/**",
	"~/.config/rclone/rclone.conf",
	"~/.config/doctl/**",
	"~/.s3cfg",
	"~/.boto",
	"~/.huggingface/token",
	"~/.cache/huggingface/token",
	"~/Library/Keychains/**",
	"~/Library/Cookies/**",
	"~/.pgpass",
	"~/.my.cnf",
	"~/.config/sops/age/keys.txt",
	"~/.dockercfg",
	"~/.config/containers/auth.json",
	"/run/user/*/containers/auth.json",
	"~/.terraformrc",
	// Coding agents' own sign-in tokens.
	"~/.claude/.credentials.json",
	"~/.codex/auth.json",
	"~/.gemini/oauth_creds.json",
	"~/.config/github-copilot/**",
	// Deploy and platform CLIs' tokens.
	"~/.wrangler/config/**",
	"~/.config/.wrangler/config/**",
	"~/.fly/config.yml",
	"~/.netlify/config.json",
	"~/.config/netlify/config.json",
	"~/.local/share/com.vercel.cli/auth.json",
	"~/Library/Application Support/com.vercel.cli/auth.json",
	"~/.config/configstore/firebase-tools.json",
	"~/.pulumi/credentials.json",
	"~/.databrickscfg",
	"~/.snowflake/connections.toml",
	"~/.snowflake/config.toml",
	"~/.config/ngrok/ngrok.yml",
	"~/.ngrok2/ngrok.yml",
	"~/Library/Application Support/ngrok/ngrok.yml",
	"~/.config/stripe/config.toml",
	"~/.supabase/access-token",
	"~/.railway/config.json",
	// Package registry and VCS tokens.
	"~/.netrc",
	"~/.git-credentials",
	"~/.config/git/credentials",
	"~/.gitcookies",
	"~/.npmrc",
	"~/.yarnrc.yml",
	"~/.pypirc",
	"~/.gem/credentials",
	"~/.cargo/credentials",
	"~/.cargo/credentials.toml",
	"~/.m2/settings.xml",
	"~/.gradle/gradle.properties",
	"~/.nuget/NuGet/NuGet.Config",
	"~/.composer/auth.json",
	"~/.config/composer/auth.json",
	// Shell and REPL histories.
	"~/.bash_history",
	"~/.zsh_history",
	"~/.local/share/fish/fish_history",
	"~/.python_history",
	"~/.psql_history",
	"~/.mysql_history",
	"~/.node_repl_history",
	"~/.lesshst",
	"~/.viminfo",
	// Browser and mail profiles.
	"~/.mozilla/**",
	"~/.config/google-chrome/**",
	"~/.config/chromium/**",
	"~/.thunderbird/**",
	// Secrets in any tree.
	"**/.git-credentials",
	"**/.env",
	"**/.env.*",
	"**/.envrc",
	"**/.dev.vars",
	"**/.dev.vars.*",
	"**/.streamlit/secrets.toml",
	"**/.netrc",
	"**/.pypirc",
	"**/.pgpass",
	"**/.gitcookies",
	"**/*.ppk",
	"**/*.pem",
	"**/*.key",
	"**/*.p12",
	"**/*.pfx",
	"**/*.keystore",
	"**/*.jks",
	"**/id_rsa*",
	"**/id_dsa*",
	"**/id_ecdsa*",
	"**/id_ed25519*",
	"**/.htpasswd",
	"**/credentials.json",
	"**/service-account*.json",
	"**/*.tfstate",
	"**/*.tfstate.backup",
	// Token files agents meet inside a tree as well as at home: package
	// registries, container registries, cluster access and Terraform.
	"**/.npmrc",
	"**/.yarnrc",
	"**/.yarnrc.yml",
	"**/.gem/credentials",
	"**/.cargo/credentials",
	"**/.cargo/credentials.toml",
	"**/.docker/config.json",
	"**/.dockercfg",
	"**/.kube/config",
	"**/kubeconfig",
	"**/kubeconfig.y*ml",
	"**/*.kubeconfig",
	"**/.terraformrc",
	"**/terraform.rc",
	"**/*.tfvars",
	"**/*.tfvars.json",
	"**/.vault-token",
	"**/.s3cfg",
	// Cloud, database and build-tool credentials copied into a tree (a
	// project's own AWS profile, a CI's Maven settings, Composer's auth.json).
	"**/.aws/credentials",
	"**/.boto",
	"**/.my.cnf",
	"**/.m2/settings.xml",
	"**/.composer/auth.json",
	"**/.databrickscfg",
	"**/.pulumi/credentials.json",
	"**/.terraform.d/credentials.tfrc.json",
	"**/application_default_credentials.json",
	"**/.azure/msal_token_cache.json",
	"**/.azure/accessTokens.json",
	"**/.huggingface/token",
	// System secrets.
	"/etc/shadow",
	"/etc/shadow-",
	"/etc/gshadow",
	"/etc/gshadow-",
	"/etc/master.passwd",
	"/etc/sudoers",
	"/etc/sudoers.d/**",
	"/etc/ssh/ssh_host_*",
	"/etc/ssl/private/**",
	"/proc/*/environ",
	"/proc/*/cmdline",
	"/proc/*/mem",
	"/proc/*/task/*/environ",
	"/proc/*/task/*/cmdline",
	"/proc/*/task/*/mem",
	"/proc/kcore",
	"/sys/firmware/**",
	"/var/run/secrets/**",
	"/run/secrets/**",
}

// Options are what a configuration adds to the zero-configuration
// boundary (see NewBoundary).
type Options struct {
	// Roots are more directories commands may read and write in: "~/x",
	// absolute, or relative to the cwd.
	Roots []string
	// DenyRows are added to DefaultDenyRows, or replace them when
	// ReplaceDefaultDenyRows is set.
	DenyRows               []string
	ReplaceDefaultDenyRows bool
}

// NewBoundary is the one constructor of a boundary for a command started
// in cwd: the workspace (the git top level of cwd, found by walking up
// for .git, or cwd itself) and o.Roots as roots; the default deny rows
// extended (or replaced) by o.DenyRows; the user's home directory. It fails
// on a cwd that is not a directory, an unknown home directory and a
// boundary that does not validate. Even then the boundary it returns holds
// what could be known (cwd, home, roots), so that writes can be judged on
// it (JudgeWrites); reads are not judged on a boundary that failed.
func NewBoundary(cwd string, o Options) (Boundary, error) {
	b := Boundary{}
	if !o.ReplaceDefaultDenyRows {
		b.DenyRows = append(b.DenyRows, DefaultDenyRows...)
	}
	b.DenyRows = append(b.DenyRows, o.DenyRows...)
	var errs []error
	if home, err := os.UserHomeDir(); err != nil {
		errs = append(errs, fmt.Errorf("readstation: home directory: %w", err))
	} else if h := filepath.Clean(home); filepath.IsAbs(h) {
		b.Home = h
	}
	if cwd == "" {
		errs = append([]error{errors.New("readstation: no working directory")}, errs...)
		b.Roots = append(b.Roots, o.Roots...)
		return b, errs[0]
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		b.Roots = append(b.Roots, o.Roots...)
		return b, fmt.Errorf("readstation: working directory %q: %w", cwd, err)
	}
	b.Cwd = abs
	root := abs
	if top, ok := gitTopLevel(abs); ok {
		root = top
	}
	b.Roots = append([]string{root}, o.Roots...)
	if fi, err := os.Stat(abs); err != nil {
		errs = append([]error{fmt.Errorf("readstation: working directory: %w", err)}, errs...)
	} else if !fi.IsDir() {
		errs = append([]error{fmt.Errorf("readstation: working directory %q is not a directory", abs)}, errs...)
	}
	if len(errs) > 0 {
		return b, errs[0]
	}
	if err := getMatcher(b).err; err != nil {
		return b, err
	}
	return b, nil
}

// DefaultBoundary is the zero-configuration boundary for a command started
// in cwd: NewBoundary with no options.
func DefaultBoundary(cwd string) (Boundary, error) {
	return NewBoundary(cwd, Options{})
}

// gitTopLevel walks up from dir (lexically, as git does from $PWD) looking
// for a .git entry.
func gitTopLevel(dir string) (string, bool) {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// Validate checks the boundary: an absolute Cwd, a usable Home, at least one
// root, and deny rows that compile. Judge never fails, so a boundary that
// does not validate makes every read not-established; config loaders call
// Validate to report the mistake early.
func (b Boundary) Validate() error {
	var errs []error
	if b.Cwd == "" || !filepath.IsAbs(b.Cwd) {
		errs = append(errs, fmt.Errorf("cwd %q is not an absolute path", b.Cwd))
	}
	if b.Home != "" && !filepath.IsAbs(b.Home) {
		errs = append(errs, fmt.Errorf("home %q is not an absolute path", b.Home))
	}
	if len(b.Roots) == 0 {
		errs = append(errs, errors.New("no roots"))
	}
	for _, r := range b.Roots {
		if r == "" {
			errs = append(errs, errors.New("empty root"))
		}
	}
	if b.MaxGlobMatches < 0 || b.MaxWalkDirs < 0 {
		errs = append(errs, errors.New("negative cap"))
	}
	for _, row := range b.DenyRows {
		if err := ValidateRow(row); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("readstation: boundary: %w", errors.Join(errs...))
	}
	return nil
}

func (b Boundary) maxGlob() int {
	if b.MaxGlobMatches > 0 {
		return b.MaxGlobMatches
	}
	return DefaultMaxGlobMatches
}

func (b Boundary) maxWalk() int {
	if b.MaxWalkDirs > 0 {
		return b.MaxWalkDirs
	}
	return DefaultMaxWalkDirs
}
