package policy_test

import (
	"fmt"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/policy"
)

func ExampleParseConfig() {
	cfg, err := policy.ParseConfig([]byte("mode: readonly\ngrants:\n  - npm test **\n"), "/proj/.shellgate.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cfg.Mode, cfg.Grants)

	_, err = policy.ParseConfig([]byte("mode: default\ngrant: [make]\n"), "/proj/.shellgate.yaml")
	fmt.Println(err)
	// Output:
	// readonly [npm test **]
	// /proj/.shellgate.yaml:2:1: unknown key "grant" (known keys: mode, read_only_programs, remote_reads, grants, roots, deny_reads, replace_default_deny_reads, policy_dirs, sandbox, shell)
}

func ExampleMatchGrant() {
	r := classify.Classify("npm test --watch && npm publish")
	for _, seg := range r.Segments {
		fmt.Println(seg.Span, policy.MatchGrant("npm test **", &seg))
	}
	// Output:
	// 0-16 true
	// 20-31 false
}

func ExampleSuggestGrant() {
	r := classify.Classify("curl -o page.html https://example.com")
	g, ok := policy.SuggestGrant(&r.Segments[0])
	fmt.Println(g.Pattern, ok)
	// Output:
	// curl -o * https://example.com true
}
