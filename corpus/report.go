package corpus

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// Formats accepted by [Write].
var Formats = []string{"text", "json", "junit", "github"}

// Write reports results in a format: text (failures, then the summary line),
// json (one object), junit (XML for CI dashboards) or github (workflow
// annotations, then the summary line). With verbose, text also lists
// passing results. The junit format writes the summary line to summaryW
// so that its own output stays valid XML.
func Write(w, summaryW io.Writer, format string, rs []Result, verbose bool) error {
	switch format {
	case "", "text":
		return writeText(w, rs, verbose)
	case "json":
		return writeJSON(w, rs)
	case "junit":
		if err := writeJUnit(w, rs); err != nil {
			return err
		}
		_, err := fmt.Fprintln(summaryW, Summarize(rs))
		return err
	case "github":
		return writeGitHub(w, rs)
	}
	return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats, ", "))
}

// Describe renders one failing result for a person: where it is, the
// command, what was wanted, what was decided with its reasons, and each
// difference.
func Describe(r Result) string {
	var b strings.Builder
	where := r.Name
	if r.Kind == "rego" {
		where = "rego " + r.Name
	}
	fmt.Fprintf(&b, "FAIL %s\n", where)
	if r.Kind == "case" {
		fmt.Fprintf(&b, "    mode:    %s\n", r.Mode)
		fmt.Fprintf(&b, "    command: %s\n", oneLine(r.Command))
		if r.Want != nil {
			fmt.Fprintf(&b, "    want:    %s\n", r.Want)
		}
	}
	if r.Got != nil {
		fmt.Fprintf(&b, "    got:     %s\n", r.Got)
		for _, rs := range r.Got.Reasons {
			fmt.Fprintf(&b, "      %s: %s", rs.Code, oneLine(rs.Message))
			if rs.Rule != "" {
				fmt.Fprintf(&b, " (%s)", rs.Rule)
			}
			b.WriteString("\n")
		}
	}
	if r.Err != "" {
		fmt.Fprintf(&b, "    error:   %s\n", oneLine(r.Err))
	}
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "    - %s\n", p)
	}
	return b.String()
}

// oneLine shows a multi-line command on one line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r") {
		return s
	}
	q, _ := json.Marshal(s)
	return string(q)
}

func writeText(w io.Writer, rs []Result, verbose bool) error {
	for _, r := range rs {
		if r.Pass {
			if verbose {
				fmt.Fprintf(w, "ok   %s\n", r.Name)
			}
			continue
		}
		fmt.Fprint(w, Describe(r))
	}
	_, err := fmt.Fprintln(w, Summarize(rs))
	return err
}

func writeJSON(w io.Writer, rs []Result) error {
	s := Summarize(rs)
	if rs == nil {
		rs = []Result{}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Passed  int      `json:"passed"`
		Failed  int      `json:"failed"`
		Summary string   `json:"summary"`
		Results []Result `json:"results"`
	}{s.Passed, s.Failed, s.String(), rs})
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

func writeJUnit(w io.Writer, rs []Result) error {
	// One suite per corpus file (and one for Rego tests), in first-seen order.
	idx := map[string]int{}
	var out junitSuites
	for _, r := range rs {
		suite := r.File
		if r.Kind == "rego" || suite == "" {
			suite = r.Kind
		}
		i, ok := idx[suite]
		if !ok {
			i = len(out.Suites)
			idx[suite] = i
			out.Suites = append(out.Suites, junitSuite{Name: suite})
		}
		jc := junitCase{Classname: suite, Name: r.Name}
		if !r.Pass {
			msg := strings.Join(r.Problems, "; ")
			if r.Err != "" {
				msg = r.Err
			}
			jc.Failure = &junitFailure{Message: msg, Text: Describe(r)}
			out.Suites[i].Failures++
			out.Failures++
		}
		out.Suites[i].Tests++
		out.Tests++
		out.Suites[i].Cases = append(out.Suites[i].Cases, jc)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// ghEscape escapes a workflow command's message; ghProp a property value.
func ghEscape(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func ghProp(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

func writeGitHub(w io.Writer, rs []Result) error {
	for _, r := range rs {
		if r.Pass {
			continue
		}
		props := "title=" + ghProp("shellgate test: "+r.Name)
		if r.File != "" {
			props = "file=" + ghProp(r.File) + "," + props
			if r.Line > 0 {
				props = fmt.Sprintf("file=%s,line=%d,%s", ghProp(r.File), r.Line, "title="+ghProp("shellgate test: "+r.Name))
			}
		}
		fmt.Fprintf(w, "::error %s::%s\n", props, ghEscape(strings.TrimRight(Describe(r), "\n")))
	}
	_, err := fmt.Fprintln(w, Summarize(rs))
	return err
}
