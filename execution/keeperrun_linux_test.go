//go:build linux

package execution

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestKeeperRunRoundTrip: a request reads back as written; a cut or
// padded one is refused.
func TestKeeperRunRoundTrip(t *testing.T) {
	tests := []keeperRun{
		{Path: "/bin/bash", Args: []string{"bash", "-c", "echo 'a b'\n; x=$'\\t'"}, Env: []string{"A=1", "EMPTY=", "PATH=/usr/bin:/bin"}, Dir: "/tmp/w s", Files: []int{0, 1, -1, 2}},
		{Path: "/bin/sh", Args: []string{"sh"}, Dir: "/", Files: []int{-1, -1, -1}},
		{Path: "", Args: []string{""}, Env: []string{""}, Dir: "", Files: []int{}},
	}
	for _, r := range tests {
		b := r.appendTo(nil)
		got, err := parseKeeperRun(b)
		if err != nil {
			t.Fatalf("%q: %v", b, err)
		}
		if got.Files == nil {
			got.Files = []int{}
		}
		want := r
		if want.Env == nil {
			want.Env = []string{}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
		for _, bad := range [][]byte{b[:len(b)-1], append(append([]byte{}, b...), 'x'), append(append([]byte{}, b...), 0)} {
			if _, err := parseKeeperRun(bad); err == nil {
				t.Errorf("%q was read", bad)
			}
		}
	}
}

// FuzzParseKeeperRun: any request is read or refused, never a panic; one
// that is read is written back the same.
func FuzzParseKeeperRun(f *testing.F) {
	f.Add(keeperRun{Path: "/bin/bash", Args: []string{"bash", "-c", "true"}, Env: []string{"A=1"}, Dir: "/tmp", Files: []int{0, 1, 2}}.appendTo(nil))
	f.Add([]byte("x\x00y\x00999999999\x00"))
	f.Add([]byte("\x00\x00-1\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseKeeperRun(b)
		if err != nil {
			return
		}
		if again := r.appendTo(nil); string(again) != string(b) {
			// The only other spelling of a number: leading zeros or a
			// plus sign; the request still reads the same.
			r2, err := parseKeeperRun(again)
			if err != nil || !cmp.Equal(r, r2) {
				t.Errorf("%q read as %+v, written as %q", b, r, again)
			}
		}
	})
}
