# Read-only output handed to something that acts on it: a shell, xargs, a
# while loop, patch, git apply; writes by redirect on builtins and unusual
# descriptors; option abbreviations of dangerous long options. Default mode
# asks, a readonly verifier is refused; harmless redirects stay allowed.
#modes: default readonly

grep -r TODO --exclude-from=<(touch pwned) . # want ask
env -C src touch pwned # want ask
env --chdir=src ls # want allow
find . -name '*.go' -print | sh # want ask
ls -la > /dev/stderr # want allow
echo hi >&2 # want allow
echo hi 1>&2 2>/dev/null # want allow
cat README.md >/dev/null 2>&1 </dev/null # want allow
git log -n1 --format=%B | sh # want ask
git show HEAD:scripts/build.sh | bash # want ask
sed -n 1p notes.txt | xargs touch # want ask
sort -u notes.txt | tee >(wc -l) # want ask
jq -r '.scripts.test' package.json | sh # want ask
awk '{print "touch " $1}' notes.txt | sh # want ask
printf 'ls\n' | xargs -I{} sh -c '{}' # want ask
head -1 notes.txt | bash # want ask
ls | while read f; do rm "$f"; done # want ask
grep -l TODO *.go | xargs -n1 rm # want ask
wc -l < <(touch pwned) # want ask
cat <(ls) # want allow
true > out.txt # want ask
test -n x > out.txt # want ask
[ -f x ] > out.txt # want ask
echo > out.txt # want ask
printf '' > out.txt # want ask
: >> out.txt # want ask
ls 2>>errors.log # want ask
ls 9>out.txt # want ask
ls {fd}>out.txt # want ask
ls >out.txt 2>&1 # want ask
rm -i notes.txt < /dev/null # want ask
git stash show -p | git apply # want ask
diff -u a b | patch -p0 # want ask
find . -type f -name '*.bak' -print0 | xargs -0 rm -f # want ask
sed -n '1,5p' main.go > excerpt.txt # want ask
grep -rn TODO . | tee todo.txt # want ask
head -c 1000000 /dev/urandom > big.bin # want ask
tail -n +1 -f logs/app.log # want ask
tail --pid=1 -f logs/app.log # want ask
less -F README.md # want allow
git --no-pager log -p --ext-diff # want ask
git log -p --textconv # want ask
git show --textconv # want ask
rg --pre-glob '*.md' --pre ./x TODO # want ask
sort --compress-prog=sh notes.txt # want ask
sort --comp=sh notes.txt # want ask
sort -S1 --compress-program sh notes.txt # want ask
uniq -u notes.txt result.txt # want ask
tee < README.md out.txt # want ask
find . -maxdepth 1 -exec echo {} \; # want allow
