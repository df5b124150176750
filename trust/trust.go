package trust

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

// FileName is the store's file name in the state directory.
const FileName = "trust.json"

// Version is the store format's version.
const Version = 1

// MaxStoreBytes bounds the store file: a larger one is refused as corrupt.
const MaxStoreBytes = 4 << 20

// The kinds of entry.
const (
	KindFile = "file" // a config file: the SHA-256 of its bytes
	KindDir  = "dir"  // a policy directory: the SHA-256 of its tree (see ReadTree)
)

// Entry is one trusted file or directory.
type Entry struct {
	// Path is absolute and clean.
	Path string `json:"path"`
	// Kind is KindFile or KindDir.
	Kind string `json:"kind"`
	// SHA256 is the lower-case hex digest of the content trusted.
	SHA256 string `json:"sha256"`
	// TrustedAt is when the user trusted it.
	TrustedAt time.Time `json:"trusted_at"`
}

// Store is the set of trusted entries, one per path.
type Store struct {
	Version int     `json:"version"`
	Entries []Entry `json:"entries"`
}

// Path returns the store's path: $XDG_STATE_HOME/shellgate/trust.json
// when XDG_STATE_HOME is set to an absolute path, else on macOS
// ~/Library/Application Support/shellgate/trust.json, else
// ~/.local/state/shellgate/trust.json.
func Path() (string, error) {
	if x := os.Getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "shellgate", FileName), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("trust store: %w", err)
	}
	if runtime.GOOS == "darwin" {
		return filepath.Join(home, "Library", "Application Support", "shellgate", FileName), nil
	}
	return filepath.Join(home, ".local", "state", "shellgate", FileName), nil
}

// Parse decodes a store strictly: an unknown key, an unknown version or
// kind, a relative path, a path given twice or a digest that is not 64
// lower-case hex digits is an error.
func Parse(data []byte) (*Store, error) {
	if len(data) > MaxStoreBytes {
		return nil, fmt.Errorf("the store is %d bytes, over the %d-byte limit", len(data), MaxStoreBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Store
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("not a trust store: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("not a trust store: data after the JSON object")
	}
	if s.Version != Version {
		return nil, fmt.Errorf("trust store version %d (want %d)", s.Version, Version)
	}
	seen := map[string]bool{}
	for i, e := range s.Entries {
		switch {
		case e.Path == "" || !filepath.IsAbs(e.Path) || filepath.Clean(e.Path) != e.Path || strings.IndexByte(e.Path, 0) >= 0:
			return nil, fmt.Errorf("entry %d: path %q is not a clean absolute path", i, e.Path)
		case e.Kind != KindFile && e.Kind != KindDir:
			return nil, fmt.Errorf("entry %d (%s): kind %q (want %s or %s)", i, e.Path, e.Kind, KindFile, KindDir)
		case !validDigest(e.SHA256):
			return nil, fmt.Errorf("entry %d (%s): sha256 %q is not 64 lower-case hex digits", i, e.Path, e.SHA256)
		case seen[e.Path]:
			return nil, fmt.Errorf("entry %d: path %s given twice", i, e.Path)
		}
		seen[e.Path] = true
	}
	return &s, nil
}

func validDigest(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Load reads the store at path. A store that does not exist is empty (no
// error). A store that is not a regular file, is writable by its group or
// others, is owned by another user, or does not parse is refused: the
// error says why, and the caller must then trust nothing.
func Load(path string) (*Store, error) {
	// A FIFO or a device must never block the read (a resident engine
	// would hang on it): its type is checked before it is opened, it is
	// opened without blocking, and checked again once open.
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Store{Version: Version}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trust store: %v (ignored: nothing is trusted)", describeStatError(path, err))
	}
	if what := FileKind(fi.Mode()); what != "" {
		return nil, fmt.Errorf("trust store %s is %s, not a regular file (ignored: nothing is trusted)", path, what)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNoBlock, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return &Store{Version: Version}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trust store %s: %w", path, err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, fmt.Errorf("trust store %s: %w", path, err)
	}
	if what := FileKind(fi.Mode()); what != "" {
		return nil, fmt.Errorf("trust store %s is %s, not a regular file (ignored: nothing is trusted)", path, what)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return nil, fmt.Errorf("trust store %s is writable by others (mode %v; ignored: nothing is trusted; fix with chmod 600 %s)", path, fi.Mode().Perm(), path)
	}
	if err := CheckOwner(path, fi); err != nil {
		return nil, fmt.Errorf("trust store %v (ignored: nothing is trusted)", err)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxStoreBytes+1))
	if err != nil {
		return nil, fmt.Errorf("trust store %s: %w", path, err)
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("trust store %s: %v (ignored: nothing is trusted; remove it and trust again)", path, err)
	}
	return s, nil
}

// Save writes the store to path atomically (a temporary file renamed over
// it), with mode 0600 in a directory made 0700.
func (s *Store) Save(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	out := Store{Version: Version, Entries: append([]Entry{}, s.Entries...)}
	sort.Slice(out.Entries, func(i, j int) bool { return out.Entries[i].Path < out.Entries[j].Path })
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	tmp, err := os.CreateTemp(dir, ".trust-*.json")
	if err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("trust store: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("trust store: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("trust store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	return nil
}

// Lookup returns the entry for path, if any.
func (s *Store) Lookup(path string) (Entry, bool) {
	if s == nil {
		return Entry{}, false
	}
	for _, e := range s.Entries {
		if e.Path == path {
			return e, true
		}
	}
	return Entry{}, false
}

// Trusted reports whether path is trusted with exactly the content whose
// digest is sum. A nil store trusts nothing.
func (s *Store) Trusted(path, kind, sum string) bool {
	e, ok := s.Lookup(path)
	return ok && e.Kind == kind && e.SHA256 == sum
}

// Add records e, replacing the entry for the same path.
func (s *Store) Add(e Entry) {
	s.Remove(e.Path)
	s.Entries = append(s.Entries, e)
}

// Remove drops the entry for path and reports whether there was one.
func (s *Store) Remove(path string) bool {
	for i, e := range s.Entries {
		if e.Path == path {
			s.Entries = append(s.Entries[:i], s.Entries[i+1:]...)
			return true
		}
	}
	return false
}

// Sum returns the lower-case hex SHA-256 of data.
func Sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// Tree is a directory read for trust: its digest and the content of every
// regular file under it (symlinks to regular files included, read through
// the link), keyed by path (dir joined with the relative path).
type Tree struct {
	SHA256 string
	Files  map[string][]byte
}

// MaxTreeBytes bounds the content ReadTree reads.
const MaxTreeBytes = 64 << 20

// ReadTree reads dir and digests it: every entry's relative name and type,
// each regular file's content, and each symlink's target (and, when the
// target is a regular file, its content). A new, removed or renamed file,
// an edit, or a re-pointed symlink changes the digest. The files are
// returned with the digest, so that a caller uses the very bytes it
// judged. dir itself may be a symlink to a directory.
func ReadTree(dir string) (Tree, error) {
	t := Tree{Files: map[string][]byte{}}
	st, err := os.Stat(dir)
	if err != nil {
		return t, err
	}
	if !st.IsDir() {
		return t, fmt.Errorf("%s: not a directory", dir)
	}
	h := sha256.New()
	fmt.Fprintf(h, "shellgate-tree-v1\x00")
	if target, err := os.Readlink(dir); err == nil {
		fmt.Fprintf(h, "root-link\x00%s\x00", target)
	}
	total := 0
	walkRoot := dir
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		walkRoot = r
	}
	err = filepath.WalkDir(walkRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(walkRoot, p)
		if err != nil {
			return err
		}
		key := filepath.Join(dir, rel)
		switch {
		case d.IsDir():
			fmt.Fprintf(h, "dir\x00%s\x00", rel)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "link\x00%s\x00%s\x00", rel, target)
			fi, err := os.Stat(p)
			if err != nil {
				// A module that links to nothing, or loops, is not
				// skipped: what it would hold is not known.
				return describeStatError(p, err)
			}
			if m := fi.Mode(); !m.IsRegular() && !m.IsDir() {
				return fmt.Errorf("%s is a symlink to %s, which is %s, not a regular file", p, target, FileKind(m))
			}
			if fi.Mode().IsRegular() {
				b, err := readBounded(p, &total)
				if err != nil {
					return err
				}
				fmt.Fprintf(h, "target\x00%s\x00", Sum(b))
				t.Files[key] = b
			}
		case d.Type().IsRegular():
			b, err := readBounded(p, &total)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "file\x00%s\x00%s\x00", rel, Sum(b))
			t.Files[key] = b
		default:
			// A FIFO, a socket or a device in a policy directory is
			// never read (it could block or never end), and never
			// skipped either: what it would hold is not known.
			return fmt.Errorf("%s is %s, not a regular file", p, FileKind(d.Type()))
		}
		return nil
	})
	if err != nil {
		return Tree{}, err
	}
	t.SHA256 = hex.EncodeToString(h.Sum(nil))
	return t, nil
}

func readBounded(p string, total *int) ([]byte, error) {
	b, err := ReadRegular(p, int64(MaxTreeBytes-*total))
	if err != nil {
		return nil, err
	}
	*total += len(b)
	if *total > MaxTreeBytes {
		return nil, fmt.Errorf("%s: the directory holds more than %d bytes", p, MaxTreeBytes)
	}
	return b, nil
}
