// Package corpusdata finds and reads the shared corpus of real commands
// that tests and benchmarks replay: ../shared/corpus-data beside the
// repository, or the directory SHELLGATE_CORPUS_DATA names.
package corpusdata

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Files are the corpus files: NL2Bash's commands, a coding agent's
// one-line commands in the order it ran them, and its multi-line ones
// (JSON lines with a "command").
var Files = []string{"nl2bash.cm", "agent-commands.txt", "agent-commands-multiline.jsonl"}

// Agent is the file of the agent's one-line commands.
const Agent = "agent-commands.txt"

// Dir is the corpus directory: SHELLGATE_CORPUS_DATA, or shared/corpus-data
// beside the module's root (found from the working directory up).
func Dir() string {
	if d := os.Getenv("SHELLGATE_CORPUS_DATA"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		return filepath.Join("..", "..", "shared", "corpus-data")
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(d), "shared", "corpus-data")
		}
		if filepath.Dir(d) == d {
			return filepath.Join("..", "..", "shared", "corpus-data")
		}
	}
}

// Read returns the commands of the corpus file name (in Dir): one per
// non-blank line, or the "command" of each JSON line of a .jsonl file.
func Read(name string) ([]string, error) {
	path := filepath.Join(Dir(), name)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasSuffix(name, ".jsonl") {
			var rec struct {
				Command string `json:"command"`
			}
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			out = append(out, rec.Command)
			continue
		}
		if strings.TrimSpace(line) != "" {
			out = append(out, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}
