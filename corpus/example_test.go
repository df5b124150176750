package corpus_test

import (
	"fmt"
	"strings"

	"github.com/shellgate/shellgate/corpus"
)

func ExampleParseSh() {
	src := `#modes: default readonly
grep -rn TODO src # want allow
sed -i s/a/b/ notes.txt # want ask
`
	cases, err := corpus.ParseSh("cases.sh", []byte(src), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range cases {
		fmt.Printf("%s: %s → %s\n", c.Name, c.Command, c.Expect.Action)
	}
	// Output:
	// cases.sh:2: grep -rn TODO src → allow
	// cases.sh:2 [readonly]: grep -rn TODO src → allow
	// cases.sh:3: sed -i s/a/b/ notes.txt → ask
	// cases.sh:3 [readonly]: sed -i s/a/b/ notes.txt → deny
}

func ExampleParseYAML() {
	src := `- command: cat id_rsa
  expect: {action: deny, reads: {id_rsa: denied}}
- command: cat README.md
  expected: allow
`
	_, err := corpus.ParseYAML("cases.yaml", []byte(src), nil)
	fmt.Println(err)
	// Output:
	// cases.yaml:4: unknown key "expected" in case (want name, command, mode, shell, cwd, files or expect)
	// cases.yaml:3: case has no expect
}

func ExampleExtract() {
	transcript := `{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"go test ./..."}}]}}
{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"rg -n TODO\"]}"}}
`
	cmds, _, _ := corpus.Extract(strings.NewReader(transcript))
	for _, c := range cmds {
		fmt.Printf("line %d (%s): %s\n", c.Line, c.Source, c.Command)
	}
	// Output:
	// line 1 (claude): go test ./...
	// line 2 (codex): rg -n TODO
}
