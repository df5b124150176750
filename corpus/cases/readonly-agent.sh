# Read-only work in the shapes coding agents actually send: a cd first,
# long pipelines with head, line-numbered excerpts, several probes chained
# with && or ;, quoted patterns with spaces and regex metacharacters.
# Allowed in both modes.
#modes: default readonly

cd src && grep -rn "def main" . # want allow
cd src/lib && sed -n '1,40p' parse.go # want allow
sed -n '1,40p' src/app.py | cat -n # want allow
cat -n main.go | sed -n '1,10p' # want allow
nl -ba main.go | sed -n '1,5p' # want allow
grep -n "def " src/app.py | head -20 # want allow
grep -rn "import" --include="*.py" . # want allow
grep -rn "func [A-Z]" --include='*.go' src cmd internal # want allow
grep -rnE "TODO|FIXME|XXX" . --exclude-dir=.git # want allow
grep -rn 'fmt\.Println' . # want allow
grep -rn "port:" config/ # want allow
grep -n -A3 -B3 "main" main.go # want allow
grep -c "" src/app.py src/util.js # want allow
grep -l "package main" $(echo main.go) # want ask
find . -name "*.py" -path "*test*" # want allow
find . -type f -name "*.go" -not -path "./vendor/*" | head -20 # want allow
find . -maxdepth 3 -type f | sort | head -50 # want allow
find src -type f | xargs ls -la # want allow
ls -la src/ | head -20 # want allow
ls -la && git status && git log --oneline -5 # want allow
wc -l src/*.py | sort -n # want allow
wc -l $(find . -name '*.go') # want ask
git log --oneline -n 5 -- src/app.py # want allow
git diff HEAD -- src/ # want allow
git show HEAD --stat | head -30 # want allow
git log -1 --format=%cd # want allow
git status --short | grep '^??' # want allow
git diff --stat HEAD~1..HEAD # want allow
git log --oneline --since="1 week ago" # want allow
git grep -n "Parse(" -- '*.go' # want allow
head -n 50 src/app.py # want allow
tail -n 20 logs/app.log | grep -i error # want allow
cat package.json | jq '.scripts' # want allow
jq -r '.dependencies // {} | keys[]' package.json # want allow
cat go.mod | grep -E '^(module|go) ' # want allow
awk 'NR>=1 && NR<=20 {print NR": "$0}' main.go # want allow
awk -F: '{print $1}' config/settings.yaml | sort -u # want allow
sort data/values.csv | head -3; tail -1 data/values.csv # want allow
test -f Makefile && grep -n '^[a-z]*:' Makefile # want allow
[ -f requirements.txt ] && cat requirements.txt || echo none # want allow
ls docs && cat docs/guide.md | head -20 # want allow
cd docs && ls -la && cat api.md # want allow
cd /tmp && ls # want ask
pwd && ls -la && cat README.md | head -5 # want allow
echo "=== main.go ===" && cat main.go # want allow
printf '%s\n' "--- lib ---"; ls src/lib # want allow
diff -u src/lib/parse.go cmd/demo/main.go | head -40 # want allow
grep -rn "TODO" . | awk -F: '{print $1}' | sort | uniq -c # want allow
rg -n --no-heading "TODO" | head # want allow
rg -n "func main" -g '!vendor' # want allow
rg --files | grep -E '\.(go|py)$' | wc -l # want allow
rg -C 2 'ERROR' logs/ # want allow
tree -L 2 -I '.git|vendor' # want allow
du -sh src docs data 2>/dev/null # want allow
stat -c '%n %s' main.go go.mod # want allow
file src/* | head # want allow
md5sum src/*.py | sort # want allow
cat README.md CHANGELOG.md LICENSE | wc -l # want allow
ls -1 src | while read f; do echo "$f"; done # want ask

# Probing the toolchain and the machine.
go version # want allow
go env GOPATH # want allow
python3 --version # want allow
node --version # want allow
npm --version # want allow
rustc --version # want allow
gcc --version # want allow
make --version # want allow
uname -m # want allow
ps aux # want allow
df -h # want allow
free -m # want allow
which python3 node # want allow
git remote get-url origin # want allow
git log -1 --stat # want allow
cat -v README.md # want allow
hexdump -n 16 README.md # want allow
column -t notes.txt # want allow
