# Ordinary read-only work on files: listing, reading, counting, searching.
# A verifier agent does this all day; none of it may need a person, in
# either mode. Every path is inside the workspace of fixture.yaml.
#modes: default readonly

# Listing.
ls # want allow
ls -la # want allow
ls -l src # want allow
ls -lah docs # want allow
ls -1 # want allow
ls -A # want allow
ls -R src # want allow
ls -lt # want allow
ls -ltr logs # want allow
ls -S data # want allow
ls -d */ # want allow
ls src/lib cmd # want allow
ls -la .git # want allow
ls --color=never # want allow
ls -F # want allow
ls -i main.go # want allow
ls "name with spaces.txt" # want allow
ls *.go # want allow
ls src/*.py # want allow
ls -l scripts/ # want allow
tree # want allow
tree -L 2 # want allow
tree src # want allow
tree -a -I node_modules # want allow
du -sh . # want allow
du -sh src # want allow
du -h --max-depth=1 . # want allow
du -a docs # want allow
stat main.go # want allow
stat -c %s go.mod # want allow
file main.go # want allow
file scripts/build.sh # want allow
realpath main.go # want allow
readlink link-readme.md # want allow
readlink -f link-readme.md # want allow
basename src/lib/parse.go # want allow
dirname src/lib/parse.go # want allow
basename src/lib/parse.go .go # want allow
pwd # want allow
pwd -P # want allow

# Reading whole files.
cat README.md # want allow
cat main.go go.mod # want allow
cat -n main.go # want allow
cat -A notes.txt # want allow
cat src/app.py # want allow
cat "name with spaces.txt" # want allow
cat 'name with spaces.txt' # want allow
cat name\ with\ spaces.txt # want allow
cat ./README.md # want allow
cat docs/*.md # want allow
cat link-readme.md # want allow
cat config/settings.yaml config/app.toml # want allow
cat package.json # want allow
cat -- README.md # want allow
tac notes.txt # want allow
nl main.go # want allow
nl -ba src/app.py # want allow
rev notes.txt # want allow

# Heads and tails.
head README.md # want allow
head -n 5 main.go # want allow
head -5 notes.txt # want allow
head -c 100 README.md # want allow
head -n 20 src/app.py src/util.js # want allow
head -n -2 notes.txt # want allow
tail logs/app.log # want allow
tail -n 3 logs/app.log # want allow
tail -5 notes.txt # want allow
tail -n +2 data/values.csv # want allow
tail -c 50 main.go # want allow
head -n 40 Makefile | tail -n 10 # want allow

# Line ranges with sed -n and awk.
sed -n '1,20p' main.go # want allow
sed -n 5p main.go # want allow
sed -n '/func/p' main.go # want allow
sed -n '10,$p' src/app.py # want allow
sed -n -e 1p -e '$p' notes.txt # want allow
sed -n '/^import/,/^$/p' main.go # want allow
sed 's/alpha/ALPHA/' notes.txt # want allow
sed 's/a/b/g' notes.txt # want allow
sed -e 's/^/> /' README.md # want allow
sed '/^$/d' README.md # want allow
sed -E 's/[0-9]+/N/g' data/values.csv # want allow
sed 10q main.go # want allow
awk '{print $1}' notes.txt # want allow
awk 'NR>=2 && NR<=4' notes.txt # want allow
awk -F, '{print $2}' data/values.csv # want allow
awk -F, 'NR>1 {s+=$2} END {print s}' data/values.csv # want allow
awk '/ERROR/' logs/app.log # want allow
awk 'length > 20' main.go # want allow
awk '{n++} END {print n}' notes.txt # want allow
awk 'BEGIN {FS=","} {print NF}' data/values.csv # want allow
awk '{ print toupper($0) }' notes.txt # want allow
awk '!seen[$0]++' notes.txt # want allow
awk 'NR==1' README.md # want allow
awk '{printf "%s\n", $1}' notes.txt # want allow
awk '/system/ { print "system(1) | sh > x" }' notes.txt # want allow
awk '{ n = split($0, parts, " "); print parts[n] }' notes.txt # want allow

# Counting.
wc -l main.go # want allow
wc -l *.go # want allow
wc -w README.md # want allow
wc -c go.mod # want allow
wc src/app.py src/util.js # want allow
wc -l src/*.py src/*.js # want allow
wc -m notes.txt # want allow

# Searching with grep.
grep TODO main.go # want allow
grep -n TODO main.go # want allow
grep -rn TODO . # want allow
grep -rn TODO src # want allow
grep -rni todo . # want allow
grep -rl TODO . # want allow
grep -r --include='*.go' func . # want allow
grep -rn --exclude-dir=vendor TODO . # want allow
grep -c alpha notes.txt # want allow
grep -v alpha notes.txt # want allow
grep -i ALPHA notes.txt # want allow
grep -w beta notes.txt # want allow
grep -x gamma notes.txt # want allow
grep -E 'alpha|beta' notes.txt # want allow
grep -F 'a.b' notes.txt # want allow
grep -o 'al[a-z]*' notes.txt # want allow
grep -A 2 ERROR logs/app.log # want allow
grep -B 1 -C 1 ERROR logs/app.log # want allow
grep -m 1 INFO logs/app.log # want allow
grep -q module go.mod # want allow
grep -H func main.go src/lib/parse.go # want allow
grep -l func *.go # want allow
grep -L TODO src/lib/*.go # want allow
grep -n 'func main' -- main.go # want allow
grep -e TODO -e FIXME -rn src # want allow
grep -P '\d+' data/values.csv # want allow
grep --color=never -n port config/settings.yaml # want allow
grep -rn "import" src/app.py # want allow
grep -rnw . -e parse # want allow
grep -c '' notes.txt # want allow
egrep 'alpha|gamma' notes.txt # want allow
fgrep beta notes.txt # want allow

# Searching with rg.
rg TODO # want allow
rg -n TODO # want allow
rg -n 'func ' -g '*.go' # want allow
rg -l TODO src # want allow
rg -i todo # want allow
rg -w parse # want allow
rg -c alpha notes.txt # want allow
rg --type go func # want allow
rg -t py def # want allow
rg -F 'a.b' # want allow
rg --files # want allow
rg --files src # want allow
rg --files -g '*.md' # want allow
rg -n -A 2 ERROR logs # want allow
rg -uu TODO # want allow
rg --hidden TODO # want allow
rg -S Parse src/lib # want allow
rg --json TODO # want allow
rg -e TODO -e FIXME # want allow
rg --max-count 1 INFO logs/app.log # want allow
rg -o 'v[0-9.]+' CHANGELOG.md # want allow
rg --count-matches alpha # want allow
rg -n 'TODO' --glob '!vendor' # want allow
rg --sort path TODO # want allow
ag TODO # want allow
ack TODO # want allow

# Finding files by name.
find . -name '*.go' # want allow
find . -type f # want allow
find . -type d # want allow
find src -name '*.py' # want allow
find . -maxdepth 1 # want allow
find . -maxdepth 2 -type d -name lib # want allow
find . -iname readme.md # want allow
find . -name '*.md' -not -path './vendor/*' # want allow
find . -path ./vendor -prune -o -name '*.go' -print # want allow
find . -newer go.mod -type f # want allow
find . -size +1k # want allow
find . -mtime -1 # want allow
find . -empty # want allow
find docs -type f -name '*.md' -print # want allow
find . -name '*.go' -print0 # want allow
find src -type f -ls # want allow
find . -name '*_test.go' -o -name '*.py' # want allow
find . -regex '.*\.go$' # want allow
find . -perm -u+x -type f # want allow
find . -name main.go -printf '%p %s\n' # want allow
find . -type l # want allow
find -L . -name '*.md' # want allow
find . -mindepth 2 -name '*.go' # want allow
find src cmd -name '*.go' # want allow

# Sorting, filtering and joining.
sort notes.txt # want allow
sort -u notes.txt # want allow
sort -r notes.txt # want allow
sort -n -t, -k2 data/values.csv # want allow
sort -k2,2nr data/values.csv # want allow
sort notes.txt | uniq # want allow
sort notes.txt | uniq -c | sort -rn # want allow
uniq notes.txt # want allow
uniq -d notes.txt # want allow
cut -d, -f2 data/values.csv # want allow
cut -c1-10 README.md # want allow
tr a-z A-Z < notes.txt # want allow
tr -d '\r' < README.md # want allow
tr -s ' ' < README.md # want allow
paste -sd, notes.txt # want allow
paste notes.txt notes.txt # want allow
column -t -s, data/values.csv # want allow
fold -w 20 README.md # want allow
fmt -w 40 README.md # want allow
expand main.go # want allow
unexpand main.go # want allow
comm notes.txt notes.txt # want allow
join data/values.csv data/values.csv # want allow
diff notes.txt README.md # want allow
diff -u main.go cmd/demo/main.go # want allow
diff -r src cmd # want allow
diff -q docs/guide.md docs/api.md # want allow
cmp notes.txt README.md # want allow
cmp -s go.mod go.mod # want allow
od -c go.mod # want allow
xxd main.go # want allow
xxd -l 32 README.md # want allow
hexdump -C go.mod # want allow
strings data/archive.tar.gz # want allow
md5sum main.go # want allow
sha256sum go.mod go.sum # want allow
sha1sum README.md # want allow
cksum main.go # want allow
base64 go.mod # want allow
base64 -d tests/fixtures/sample.json # want allow
jq . package.json # want allow
jq '.[] | .name' data/users.json # want allow
jq -r '.scripts.test' package.json # want allow
jq length data/users.json # want allow
jq -c 'map(.id)' data/users.json # want allow
jq -e '.version' package.json # want allow
jq --arg n ada '.[] | select(.name == $n)' data/users.json # want allow
jq 'keys' tests/fixtures/sample.json # want allow
yq '.port' config/settings.yaml # want allow

# jq -n builds JSON from nothing: no stdin is read.
jq -n '{name: "demo", version: 1}' # want allow
jq -n '[inputs | .name]' data/users.json # want allow
