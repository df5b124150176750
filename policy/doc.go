// Package policy holds shellgate's decision model, engine-agnostic: the
// actions (allow, ask, deny), the reasons with their byte spans, the input
// document a policy engine decides on, the YAML configuration (modes, roots,
// grants, read deny rows, extra policy directories), the per-segment grants
// and their suggestions, and the facts that Go precomputes for the rules
// (which segments a grant covers, where each write lands relative to the
// roots).
//
// A config has a Source: one the user named, the user's own, or one found
// in a project. A project's config and its policy directories only tighten
// until the user trusts their content (package trust holds the store);
// Resolve splits such a config into the part in effect and the part
// ignored, and says what was ignored and how to trust it.
//
// It does not import OPA, does not know shell syntax or patterns, and does
// no file-system I/O to judge a command: classification is package
// classify; where reads and writes land is package readstation's model of
// the file system (Config.Boundary maps the config onto its one
// constructor, and Input.Writes carries where writes land into the facts);
// the Rego engine that maps the input to a Decision is package rego. Its
// only file-system access is loading the configuration and the trust
// store.
package policy
