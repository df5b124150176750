package rego

import (
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/shellgate/shellgate/rego/internal/irvm"
)

// The default policy's plan is made when shellgate is built, not at every
// start: parsing, compiling and planning the policy is the longest path of
// a batch's start-up. policy/shellgate.plan.bin is generated from the
// embedded modules by `go test ./rego -run TestDefaultPlan -update`;
// TestDefaultPlan fails when it is not what the planner makes of them now,
// and an engine takes it only when the SHA-256 of its modules is the one
// the file names (otherwise it compiles them).
//
// The file is a length-prefixed JSON header (planHeader), then the
// compiled plan (irvm.Program.MarshalBinary).
//
//go:embed policy/shellgate.plan.bin
var defaultPlanFile []byte

// planHeader says what the plan is of: the modules' SHA-256 (sourcesSum),
// their files, and the rule index (rule name → file:line, as parseModules
// makes it).
type planHeader struct {
	Sum   string            `json:"sum"`
	Files []string          `json:"files"`
	Index map[string]string `json:"index"`
}

type defaultPlan struct {
	planHeader
	prog *irvm.Program
}

// defaultProgram reads the generated file, once.
var defaultProgram = sync.OnceValues(func() (*defaultPlan, error) {
	n, k := binary.Uvarint(defaultPlanFile)
	if k <= 0 || n > uint64(len(defaultPlanFile)-k) {
		return nil, errors.New("policy/shellgate.plan.bin: no header")
	}
	var d defaultPlan
	if err := json.Unmarshal(defaultPlanFile[k:k+int(n)], &d.planHeader); err != nil {
		return nil, fmt.Errorf("policy/shellgate.plan.bin: %w", err)
	}
	prog, err := irvm.UnmarshalProgram(defaultPlanFile[k+int(n):])
	if err != nil {
		return nil, fmt.Errorf("policy/shellgate.plan.bin: %w", err)
	}
	d.prog = prog
	return &d, nil
})

// defaultEngine is the engine of the default policy alone (srcs), from the
// plan made at build time. It fails when the generated file is not of
// srcs (the caller then compiles them).
func defaultEngine(srcs map[string]string, o options) (*Engine, error) {
	d, err := defaultProgram()
	if err != nil {
		return nil, err
	}
	if sourcesSum(srcs) != d.Sum {
		return nil, errors.New("the generated plan is not of these modules")
	}
	return &Engine{srcs: srcs, vm: d.prog, index: d.Index, files: d.Files, memo: newMemo(o.memo)}, nil
}

// makePlanFile plans and compiles srcs as the engine does and returns the
// generated file's content.
func makePlanFile(srcs map[string]string) ([]byte, error) {
	mods, index, err := parseModules(srcs, false)
	if err != nil {
		return nil, err
	}
	prog, err := plan(queryArgs(mods))
	if err != nil {
		return nil, err
	}
	h := planHeader{Sum: sourcesSum(srcs), Index: index}
	for n := range mods {
		h.Files = append(h.Files, n)
	}
	sort.Strings(h.Files)
	hb, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	pb, err := prog.MarshalBinary()
	if err != nil {
		return nil, err
	}
	out := binary.AppendUvarint(nil, uint64(len(hb)))
	return append(append(out, hb...), pb...), nil
}

// sourcesSum is the SHA-256 of the modules, by name in order.
func sourcesSum(srcs map[string]string) string {
	names := make([]string, 0, len(srcs))
	for n := range srcs {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%d:%s%d:%s", len(n), n, len(srcs[n]), srcs[n])
	}
	return hex.EncodeToString(h.Sum(nil))
}
