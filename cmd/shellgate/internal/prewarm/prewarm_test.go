package prewarm

import "testing"

func TestWanted(t *testing.T) {
	none := func(string) string { return "" }
	opa := func(k string) string {
		if k == "SHELLGATE_OPA_CONFIG" {
			return "/etc/opa.yaml"
		}
		return ""
	}
	tests := []struct {
		args   []string
		getenv func(string) string
		want   bool
	}{
		{[]string{"check", "ls"}, none, true},
		{[]string{"check", "--json", "--", "--policy"}, none, true},
		{[]string{"hook", "claude"}, none, true},
		{[]string{"check", "--policy", "p", "ls"}, none, false},
		{[]string{"check", "-policy=p", "ls"}, none, false},
		{[]string{"check", "--opa-config", "c.yaml", "ls"}, none, false},
		{[]string{"check", "ls"}, opa, false},
		{[]string{"version"}, none, false},
		{[]string{"classify", "ls"}, none, false},
		{[]string{"-test.run=X"}, none, false},
		{nil, none, false},
	}
	for _, tc := range tests {
		if got := Wanted(tc.args, tc.getenv); got != tc.want {
			t.Errorf("Wanted(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}
