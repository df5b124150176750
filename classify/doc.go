// Package classify reads a shell command the way the shell that will run
// it does and describes, with evidence, what it does. It is the first
// stage of shellgate: pure (no I/O, no file system, no policy),
// deterministic, safe for concurrent use, and it never panics.
//
// [Classify] parses the command with mvdan.cc/sh/v3 in its [Dialect] (bash,
// zsh, POSIX sh; [WithDialect]) and walks the AST. A command whose shell is
// not known is read as bash and as zsh, and is reversible only when both
// readings prove it; the report then carries the bash reading and, named,
// what only the zsh reading found. zsh's own semantics (glob qualifiers
// that run code, patterns, parameter flags, tied arrays, =cmd, ...) are
// modelled or fail closed with a finding that names them ("zsh-..."). The result is a [Report], whose JSON form is the "report" part of the
// policy input and a stable contract:
//
//   - segments: every simple command anywhere in the command (pipelines,
//     lists, subshells, groups, substitutions, loop and function bodies,
//     and commands nested in strings that will run: bash -c, sh -c,
//     find -exec, xargs, and wrappers such as timeout, env, nice, command,
//     stdbuf, sudo), each with its program, argv (static, or marked
//     dynamic with the reason), options and operands as the catalog parses
//     them, its context and the directory it runs in, and the arguments
//     that carry code or a command (code: the code of python -c, the
//     script of bash -c, the command of env or find -exec, make's
//     VAR=value), which no grant puts a wildcard over;
//   - redirects, reads and writes: every path read or written, with the cwd
//     it is relative to, whether it is literal, a glob or dynamic;
//   - cd: every cd, pushd and popd, following bash: a cd in a subshell or a
//     pipeline stage does not leak out; the walk assumes every cd succeeds
//     and records the steps each cwd assumes (Cwd.After); where the cwd
//     depends on whether another command succeeded, it is unknown;
//   - reversible and findings: the verdict, and every reason against it
//     with a stable lower-case code, a message and a byte span.
//
// The reversible verdict is fail-closed: it is true only when every
// segment is a program on the catalog's read-only allowlist, every option is
// known to be safe, and the shape is safe (no write redirect, no
// substitution, no background job, no function, no unbounded loop, no
// stdin reader that nothing feeds, no dynamic word that could become a
// dangerous option, ...). Anything the walker does not understand, and any
// analysis limit ([Limits]) that is reached, is a finding.
//
// Finding codes the walker emits (the catalog adds its own, such as
// find-delete or sed-in-place, and the effect codes write-option,
// exec-option, follow-option, device-read, network, interactive,
// privilege and destructive):
//
//   - input: empty-command, invalid-utf8, nul-byte, parse-error,
//     parser-mismatch (the parser saw a comment where bash does not),
//     internal-error, and the limits limit-length, limit-nesting,
//     limit-depth, limit-segments, limit-nested, limit-findings;
//   - programs: unknown-program, unknown-subcommand, unknown-option,
//     unexpected-operand, not-read-only, path-prefixed-program,
//     dynamic-program, dynamic-subcommand, dynamic-argument, dynamic-script,
//     function-call, eval, exec, source, shell-builtin;
//   - shape: redirect-write, command-substitution, process-substitution,
//     background, env-assignment, assignment, declaration,
//     function-definition, fork-bomb, unbounded-loop, arithmetic-expansion,
//     unsafe-expansion, large-expansion, param-value (the value of a
//     variable the command did not set and the catalog does not list as
//     harmless), locale-string ($"..." is translated at run time),
//     stdin-read, stdin-script, unsupported-syntax;
//   - scripts: sed-write, sed-exec, sed-unsafe, awk-exec, awk-write,
//     awk-read, awk-unparsed (goawk could not parse the program), env-print (awk ENVIRON, and the catalog effect env-print:
//     ps e; jq env, $ENV and yq strenv), jq-load (jq import and include,
//     yq load and eval).
//
// A command-substitution or process-substitution finding is the shape; the
// facts of each substitution are in [Report.Substitutions] (the segment
// whose argument it is, the role there, whether its output could become
// an option and of what effect, whether the shell splits it and where its
// later words land), from which the policy decides whether a substitution
// that only runs read-only segments is a read. A <(...) operand is a pipe,
// not a path read. A script run with arguments (sh -c SCRIPT NAME ARG...)
// reads a quoted "$N" as its Nth argument (positional.go): find's {} stays
// a read find produces. An unquoted $(...) file operand whose one command
// is a trusted producer (catalog produces_paths substitution) is a read
// that producer produces (substproducer.go); when it is the reader's only
// file operand and nothing feeds stdin, an empty output makes it read
// stdin (a stdin-read finding).
//
// The command catalog ([Catalog], catalog.yaml) is data: which programs are
// read-only, which options take values, write, execute, follow or read
// files, which operands are files, which option values and operands carry
// code or a command (carries), and which subcommands exist. Users
// extend it with [ParseCatalog], [Catalog.Extend] and [WithCatalog].
//
// What a catalog name means is code, kept in two registries in the style
// of go/analysis: every operand [Role] (roles.go) and every [Effect]
// (effects.go) has one handler, a value with a name, a doc and the
// functions the argument parser dispatches to (what an operand in the
// role reads, writes or runs; what an effect adds to the segment and does
// with an option's value). [Catalog.Validate] refuses a role or an effect
// that has no handler.
//
// classify owns parsing, the AST walk, the catalog, the verdict, read and
// write candidates and cd targets. It does not touch the file system
// (readstation judges the reads) or decide allow/ask/deny (policy and rego
// do).
package classify
