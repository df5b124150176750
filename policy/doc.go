// Package policy holds shellgate's decision model, engine-agnostic: the
// actions (allow, ask, deny), the reasons with their byte spans, the input
// document a policy engine decides on, the YAML configuration (modes, roots,
// grants, read deny rows, extra policy directories), the per-segment grants
// and their suggestions, and the facts that Go precomputes for the rules
// (which segments a grant covers, where each write lands relative to the
// roots).
//
// It does not import OPA and does not know shell syntax: classification is
// package classify, and the Rego engine that maps the input to a Decision
// is package rego.
package policy
