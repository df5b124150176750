# Reads inside substitutions: a $(…), `…` or <(…) whose every command only
# reads, whose output becomes an argument of a read-only command in a role
# where it only names what to print, compare or match (or a pipe the
# argument names), is a read like any other (issue 25). Where the output
# could become an option that writes, runs code, reads another file or
# widens the read (a hostile notes.txt holding "-r" or "--pre=sh"), where
# the shell splits it into words that reach a file operand or an option's
# operands, where it becomes a program, an assignment, a loop's words or a
# redirect target, or where a command it runs is not read-only, it is asked
# as before. Shell semantics: TestSubstitutionShells (classify) runs the
# claims in real bash and zsh; TestConfirm runs the allowed cases under the
# tracer.
#modes: default readonly

# Allowed: read-only commands inside, output as text, a pattern or a pipe.
echo "$(git rev-parse HEAD)" # want allow
echo "branch: $(git rev-parse --abbrev-ref HEAD)" # want allow
echo $(ls) # want allow
echo "$(echo "$(pwd)")" # want allow
echo "$(wc -l < notes.txt) lines" # want allow
printf '%s\n' "$(date)" # want allow
grep -e "$(head -1 notes.txt)" README.md # want allow
grep -- "$(head -1 notes.txt)" README.md # want allow
head -n "$(wc -l < notes.txt)" README.md # want allow
grep -c TODO <(cat main.go) # want allow
cat <(ls) | wc -l # want allow
diff <(sort notes.txt) <(sort notes.txt) # want allow
sort <(cut -d, -f1 data/values.csv) # want allow

# Asked: the output could become an option of the reader (grep -r, grep -f
# FILE, rg --pre=CMD, git log --output=FILE, printf -v VAR).
grep $(head -1 notes.txt) README.md # want ask command-substitution
grep "$(head -1 notes.txt)" README.md # want ask command-substitution
rg "$(head -1 notes.txt)" . # want ask
git log "$(head -1 notes.txt)" # want ask
printf "$(head -1 notes.txt)" # want ask

# Asked: split into words that reach other operands or an option's operands.
grep -- $(head -1 notes.txt) README.md # want ask command-substitution
head -n $(wc -l < notes.txt) README.md # want ask command-substitution
grep -e $(head -1 notes.txt) README.md # want ask command-substitution

# Asked: a path only known at run time (its reads cannot be judged first).
wc -l $(git ls-files '*.go') # want ask
cat "$(head -1 notes.txt)" # want ask

# Asked: not an argument (program, assignment, loop words, redirect).
$(head -1 notes.txt) README.md # want ask
X=$(ls) ls # want ask
for f in $(ls); do echo "$f"; done # want ask
cat < <(ls) # want ask

# Asked or denied: a command inside that is not a read, or a read the
# station refuses.
echo "$(touch pwned)" # want ask
echo "$(curl -s http://example.com)" # want ask
echo "$(npm test)" # want ask
sort <(ls) -o out.txt # want ask
tee >(cat) < notes.txt # want ask
diff <(sort notes.txt) <(cat ~/.ssh/id_rsa) # want deny
echo "$(cat ~/.aws/credentials)" # want deny

# Nested shells run with arguments: "$1" is the word after the shell's $0
# (find's {} is judged by walking find's roots, as find -exec's own {}).
find . -name '*.go' -exec sh -c 'head -1 "$1"' _ {} \; # want allow
find src -name '*.py' -exec bash -c 'wc -l "$1"' sh {} \; # want allow
sh -c 'head -3 "$1"' _ notes.txt # want allow
find ~/.ssh -exec sh -c 'cat "$1"' _ {} \; # want deny
sh -c 'cat "$2"' _ *.txt ~/.ssh/id_rsa # want ask
find . -name '*.go' -exec sh -c 'head -1 $1' _ {} \; # want ask
find . -name '*.go' -exec sh -c 'shift; cat "$1"' _ {} x \; # want ask
find . -name '*.go' -exec sh -c 'rm "$1"' _ {} \; # want ask
find . -name '*.go' -exec sh -c 'cat "$2"' _ {} ~/.ssh/id_rsa \; # want deny

# File operands from a trusted producer: an unquoted $(...) alone whose one
# command is find, git ls-files or rg --files (catalog produces_paths
# substitution) is read as every path it could print, judged by walking its
# roots; a name the shell would split or glob-expand, one starting with "-"
# where the reader parses options, NUL output, another producer, IFS
# changed, or an output that may be empty while nothing feeds stdin (the
# reader would wait on it) is asked.
wc -l $(find . -name '*.go') < /dev/null # want allow
cat $(find docs -name '*.md') < /dev/null # want allow
grep -n TODO $(find src -name '*.py') < /dev/null # want allow
head -5 $(rg --files config) < /dev/null # want allow
cat -- $(find . -name '*.json') < /dev/null # want allow
cat $(find . -name '*.txt') < /dev/null # want ask read-not-established
cat $(git ls-files) < /dev/null # want ask
cat $(find . -name '*.go' -print0) < /dev/null # want ask
cat "$(find . -name '*.go')" < /dev/null # want ask
cat $(cd src && find .) < /dev/null # want ask
IFS=/; cat $(find . -name '*.go') < /dev/null # want ask
cat $(git diff --name-only) < /dev/null # want ask
cat $(grep -l TODO *.go) < /dev/null # want ask
sort -o out.txt $(find . -name '*.go') < /dev/null # want ask
cat $(find ~/.ssh -name 'id_*') < /dev/null # want deny
