# Read-only commands in ordinary shell shapes: pipelines, lists, subshells,
# cd inside the workspace, harmless redirects, wrappers that only bound a
# command, and xargs fed by a trusted producer. Allowed in both modes.
#modes: default readonly

# Pipelines and lists.
cat README.md | head -5 # want allow
cat notes.txt | sort | uniq -c | sort -rn | head -3 # want allow
grep -rn TODO . | head -20 # want allow
grep -rn TODO . | wc -l # want allow
grep -rn func . | grep -v _test | head # want allow
ls -la | grep go # want allow
ls | wc -l # want allow
find . -name '*.go' | wc -l # want allow
find . -name '*.go' | sort # want allow
find . -type f | grep -v '\.git/' | head -50 # want allow
rg -n TODO | cut -d: -f1 | sort -u # want allow
jq -r '.[].name' data/users.json | sort # want allow
cut -d, -f2 data/values.csv | tail -n +2 | sort -n | head -1 # want allow
awk -F, '{print $1}' data/values.csv | paste -sd+ # want allow
cat main.go | grep -n func | head # want allow
head -100 logs/app.log | grep ERROR | wc -l # want allow
tail -n 50 logs/app.log | grep -c INFO # want allow
sed -n '1,10p' main.go | nl # want allow
du -sh * | sort -h # want allow
ls && cat README.md # want allow
ls; pwd # want allow
pwd && ls -la # want allow
grep -q TODO main.go && echo found # want allow
grep -q NOPE main.go || echo missing # want allow
test -f go.mod && cat go.mod # want allow
[ -d src ] && ls src # want allow
[[ -f main.go ]] && head -5 main.go # want allow
test -d build || echo no build dir # want allow
cat README.md; echo; cat LICENSE # want allow
wc -l main.go && wc -l src/app.py # want allow
ls src || true # want allow
grep -c TODO main.go || true # want allow
! grep -q FIXME main.go # want allow
(cd src && ls) # want allow
(ls; pwd) # want allow
{ head -1 README.md; tail -1 README.md; } # want allow
if [ -f go.mod ]; then cat go.mod; fi # want allow
if grep -q TODO main.go; then echo has todo; else echo clean; fi # want allow
for i in 1 2 3; do git status -s; sleep 1; done # want allow

# cd inside the workspace.
cd src && ls # want allow
cd src/lib && cat parse.go # want allow
cd docs && grep -n Guide guide.md # want allow
cd src && cd lib && ls -la # want allow
cd cmd/demo && wc -l main.go # want allow
cd src; ls # want allow
cd . && ls # want allow
cd src/.. && ls # want allow
pushd src && ls && popd # want allow
cd src && git log --oneline -3 # want allow

# Harmless redirects: to /dev/null, duplicating descriptors, reading files.
ls > /dev/null # want allow
grep -rn TODO . 2>/dev/null # want allow
grep -rn TODO . 2>&1 | head # want allow
find . -name '*.go' 2>/dev/null | head # want allow
cat README.md 2> /dev/null # want allow
ls nonexistent 2>/dev/null || echo none # want allow
wc -l < main.go # want allow
sort < notes.txt # want allow
grep alpha < notes.txt # want allow
head -3 < README.md # want allow
cat < go.mod # want allow
ls &> /dev/null # want allow
git status >/dev/null 2>&1 # want allow
diff notes.txt README.md > /dev/null 2>&1 && echo same # want allow

# Printing and inspecting the environment of the session.
echo hello # want allow
echo "hello world" # want allow
echo 'single $quoted' # want allow
echo -n done # want allow
echo -e 'a\tb' # want allow
printf '%s\n' hello # want allow
printf 'a %d\n' 42 # want allow
true # want allow
false # want allow
: # want allow
sleep 1 # want allow
seq 1 5 # want allow
seq -s, 10 # want allow
date # want allow
date +%Y-%m-%d # want allow
date -u # want allow
uname -a # want allow
uname -r # want allow
whoami # want allow
id # want allow
id -u # want allow
hostname # want allow
nproc # want allow
uptime # want allow
which git # want allow
which go python3 # want allow
command -v git # want allow
type ls # want allow
type -a grep # want allow
expr 1 + 2 # want allow

# Wrappers that only bound or time a read-only command.
timeout 10 grep -rn TODO . # want allow
timeout 5s ls -la # want allow
nice ls -la # want allow
nice -n 10 du -sh . # want allow
time ls # want allow
time grep -c alpha notes.txt # want allow
stdbuf -oL grep -n TODO main.go # want allow
command ls -la # want allow
timeout 30 git log --oneline -5 # want allow
nice -n 5 find . -name '*.go' # want allow

# xargs fed by a producer in the same pipeline that lists workspace files.
find . -name '*.go' | xargs wc -l # want allow
find src -name '*.py' | xargs grep -n def # want allow
find . -name '*.go' -print0 | xargs -0 grep -l TODO # want allow
rg -l TODO | xargs wc -l # want allow
rg --files -g '*.md' | xargs head -1 # want allow
find . -type f -name '*.md' | xargs cat # want allow
grep -rl TODO . | xargs grep -c TODO # want allow
find docs -name '*.md' | xargs -n1 wc -l # want allow

# A for loop's variable read in its body: the reads are the loop's words,
# judged by the read station like the words themselves.
for f in *.go; do wc -l "$f"; done # want allow
for f in src/*.py; do head -5 $f; done # want allow
for d in src docs; do ls "$d"; done # want allow
for f in main.go notes.txt; do echo "== $f"; head -3 "$f"; done # want allow
for f in *.txt; do cat "$f"; done # want allow
