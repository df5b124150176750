package execution

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// dirReportFD is the descriptor the shell reports its final directory on.
// It is high so that a command's own descriptors (exec 3>file, flock 9)
// are not it; bash and zsh take a descriptor above 9 in a redirection,
// dash does not, so sh reports nothing.
const dirReportFD = 75

// maxDirReport bounds what is read of the report: a path longer than
// PATH_MAX is not one the shell could be in.
const maxDirReport = 4096 + 1

// dirReportPrefix is what runs before the command, on the command's first
// line (so that line numbers in the shell's messages stay the command's):
// an EXIT trap that prints the shell's physical directory on
// dirReportFD, its errors (a deleted directory) to nowhere. It does not
// change the exit status. A command that sets its own EXIT trap, execs or
// is killed leaves no report. "" when the shell cannot report.
func dirReportPrefix(shell string) string {
	switch shell {
	case "", "bash", "zsh":
		return "trap 'builtin pwd -P >&" + strconv.Itoa(dirReportFD) + " 2>&-' EXIT; "
	}
	return ""
}

// openDirReport is an anonymous file the shell writes its report to: a
// file and not a pipe, so that nothing the command leaves running can
// block the shell's write or the runner's read.
func openDirReport() (*os.File, error) {
	f, err := os.CreateTemp("", "shellgate-cwd-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	return f, nil
}

// readDirReport is the directory in f: exactly one clean absolute path
// and a newline, in UTF-8 and with no NUL, else "" (nothing reported,
// several reports, a path with a newline in it, or bytes the command
// wrote there itself).
func readDirReport(f *os.File) string {
	buf := make([]byte, maxDirReport+1)
	n, _ := f.ReadAt(buf, 0)
	s := string(buf[:n])
	p, ok := strings.CutSuffix(s, "\n")
	if !ok || n > maxDirReport || p == "" || strings.ContainsAny(p, "\n\x00") || !utf8.ValidString(p) ||
		!filepath.IsAbs(p) || filepath.Clean(p) != p {
		return ""
	}
	return p
}

// ReportsDir says whether a run in shell ("" is bash) reports the
// directory it ended in when the request asks (Request.ReportDir).
func ReportsDir(shell string) bool { return dirReportPrefix(shell) != "" }
