# Smuggling a write or an execution through an option of a program that is
# otherwise read-only: find, sed, awk, git, rg, sort, uniq, tar, xargs, tee,
# pagers and a dozen more. The program name alone proves nothing; default
# mode asks, a readonly verifier is refused.
#modes: default readonly

# find: -exec, -execdir, -ok, -okdir, -delete, -fprint*, -fls. The command
# of -exec and -execdir is a segment of its own, judged over find's matches
# (confirmed.sh has the read-only ones); -ok and -okdir read the answer from
# stdin and stay asked.
find . -name '*.tmp' -delete # want ask find-delete
find . -delete # want ask find-delete
find . -type f -name '*.log' -delete -print # want ask find-delete
find . -exec rm {} \; # want ask not-read-only
find . -exec sh -c 'touch pwned' \; # want ask not-read-only
find . -exec sh -c 'rm "$1"' _ {} \; # want ask not-read-only
find . -execdir touch pwned \; # want ask
find . -ok rm {} \; # want ask
find . -ok cat {} \; # want ask find-exec
find . -okdir cat {} \; # want ask
find . -okdir rm {} \; # want ask
find . -fprint out.txt # want ask
find . -fprint0 out.txt # want ask
find . -fprintf out.txt '%p\n' # want ask
find . -fls out.txt # want ask
find src -name '*.py' -exec python3 {} \; # want ask
find . -name '*.sh' -exec bash {} \; # want ask
find . -newer go.mod -exec touch {} + # want ask
find . -maxdepth 1 -name main.go -exec sed -i s/a/b/ {} + # want ask
find . -type d -empty -delete # want ask find-delete
find . \( -name a -o -name b \) -exec rm {} + # want ask not-read-only

# sed: in-place editing, the w, W and e commands, s///w and s///e, script files.
sed -i s/alpha/ALPHA/ notes.txt # want ask
sed -i.bak s/alpha/ALPHA/ notes.txt # want ask
sed --in-place s/alpha/ALPHA/ notes.txt # want ask
sed --in-place=.orig 's/a/b/' notes.txt # want ask
sed -i -e 's/a/b/' -e 's/c/d/' notes.txt # want ask
sed -e 's/a/b/' -i notes.txt # want ask
sed 's/a/b/' notes.txt -i # want ask
sed -s -i 's/a/b/' notes.txt README.md # want ask
sed 's/alpha/x/w out.txt' notes.txt # want ask
sed -n 's/alpha/x/w out.txt' notes.txt # want ask
sed 'w out.txt' notes.txt # want ask
sed -n '/alpha/w out.txt' notes.txt # want ask
sed '1W out.txt' notes.txt # want ask
sed 's/.*/touch pwned/e' notes.txt # want ask
sed 's/a/b/e' notes.txt # want ask
sed '1e touch pwned' notes.txt # want ask
sed -n '1e touch pwned' notes.txt # want ask
sed 'e touch pwned' notes.txt # want ask
sed -e '1{e touch pwned' -e '}' notes.txt # want ask
sed -f script.sed notes.txt # want ask
sed --file=script.sed notes.txt # want ask
sed -E 's/(a)/\1/;w out.txt' notes.txt # want ask
sed $'1w out.txt' notes.txt # want ask
sed "$EXPR" notes.txt # want ask
sed -n "$(echo 1p)" notes.txt # want ask
sed -z 's/a/b/w out.txt' notes.txt # want ask
gsed -i s/a/b/ notes.txt # want ask

# awk: system(), output redirection, pipes to and from commands, inplace, script files.
awk 'BEGIN { system("touch pwned") }' # want ask
awk '{ system($0) }' notes.txt # want ask
awk -v cmd='touch pwned' 'BEGIN { system(cmd) }' # want ask
awk '{ print > "out.txt" }' notes.txt # want ask
awk '{ print >> "out.txt" }' notes.txt # want ask
awk '{ print $1 > $2 }' notes.txt # want ask
awk '{ printf "%s\n", $0 > "out.txt" }' notes.txt # want ask
awk '{ print | "sh" }' notes.txt # want ask
awk '{ print | "sort > out.txt" }' notes.txt # want ask
awk 'BEGIN { "date" | getline d; print d }' # want ask
awk 'BEGIN { while (("ls" | getline line) > 0) print line }' # want ask
awk 'BEGIN { cmd = "id"; cmd | getline x }' # want ask
awk 'BEGIN { print "x" |& "sh" }' # want ask
awk -f prog.awk notes.txt # want ask
awk --file=prog.awk notes.txt # want ask
gawk -i inplace '{ print toupper($0) }' notes.txt # want ask
gawk -i inplace -v INPLACE_SUFFIX=.bak '{ print }' notes.txt # want ask
gawk '@load "filefuncs"; BEGIN { }' # want ask
awk 'BEGIN { close("out.txt"); print "x" > "out.txt" }' # want ask
mawk '{ system("touch pwned") }' notes.txt # want ask
nawk 'BEGIN { system("touch pwned") }' # want ask
awk "$PROG" notes.txt # want ask
awk 'BEGIN { ENVIRON["X"]; system("") }' # want ask
# The awk check parses with goawk: gawk's extensions it does not parse ask.
awk '@include "lib.awk"' notes.txt # want ask
gawk 'BEGIN { "sh" |& getline; print }' # want ask
awk '/[/]/ { system("touch pwned") } /]/' notes.txt # want ask
awk 'function f(a) { a[1] = "/home/demo/.ssh/id_rsa" } BEGIN { f(ARGV); ARGC = 2 } 1' # want ask
awk '{ print $1' notes.txt # want ask

# git: -c and --config-env, helpers, pagers, output files, external diff.
git -c core.pager='sh -c "touch pwned"' log # want ask
git -c core.pager=less log # want ask
git -c alias.st='!touch pwned' st # want ask
git -c core.fsmonitor='touch pwned' status # want ask
git -c diff.external=./evil diff # want ask
git -c core.sshCommand='touch pwned' fetch # want ask
git -c core.hooksPath=./hooks status # want ask
git -c protocol.ext.allow=always ls-remote 'ext::sh -c touch% pwned' # want ask
git --config-env=core.pager=EVIL log # want ask
git -c pager.log='touch pwned' log # want ask
git -c gpg.program=./evil log --show-signature # want ask
git diff --output=out.txt # want ask
git log --output=out.txt -p # want ask
git show --output out.txt HEAD # want ask
git diff --ext-diff # want ask
git log -p --ext-diff # want ask
git show --ext-diff HEAD # want ask
git diff --textconv # want ask
git show --textconv HEAD:main.go # want ask
git grep -O TODO # want ask
git grep --open-files-in-pager=vim TODO # want ask
git grep --open-files-in-pager='touch pwned' TODO # want ask
git format-patch -1 # want ask
git format-patch -o patches HEAD~3 # want ask
git archive -o out.tar HEAD # want ask
git archive --output=out.zip HEAD # want ask
git bundle create repo.bundle HEAD # want ask
git --exec-path=./evil status # want ask
git --git-dir=/tmp/evil log # want ask
git --work-tree=/ status # want ask
git -C /tmp status # want ask
git difftool # want ask
git difftool -y -x 'touch pwned' # want ask
git mergetool # want ask
git instaweb # want ask
git daemon # want ask
git submodule foreach 'touch pwned' # want ask
git rebase --exec 'touch pwned' HEAD~1 # want ask
git bisect run touch pwned # want ask
git fetch --upload-pack='touch pwned' . # want ask
git ls-remote --upload-pack='touch pwned' . # want ask
git clone -u 'touch pwned' . clone # want ask
git log --no-walk --format=%H | git update-ref -d HEAD # want ask
git stash show -p --ext-diff # want ask
git branch --edit-description # want ask
git config core.pager 'touch pwned' # want ask
git config --add alias.x '!touch pwned' # want ask
git status --porcelain > status.txt # want ask redirect-write
git blame --contents=notes.txt main.go # want allow

# rg and grep: preprocessors and hostname commands.
rg --pre ./evil TODO # want ask
rg --pre=sh TODO # want ask
rg --pre 'touch' --pre-glob '*.md' TODO # want ask
rg --pre=cat TODO # want ask
rg --hostname-bin=./evil --hyperlink-format=default TODO # want ask
rg TODO --pre ./evil # want ask
rg -n TODO --pre=./evil src # want ask
rg --pre "$PRE" TODO # want ask
grep -rn TODO . --exclude-from=list.txt > out.txt # want ask redirect-write

# sort and uniq: output files and compression programs.
sort -o out.txt notes.txt # want ask
sort -o notes.txt notes.txt # want ask
sort --output=out.txt notes.txt # want ask
sort --output out.txt notes.txt # want ask
sort notes.txt -o out.txt # want ask
sort -u -o out.txt notes.txt # want ask
sort -nro out.txt notes.txt # want ask
sort --compress-program=sh notes.txt # want ask
sort --compress-program ./evil -S 1 notes.txt # want ask
sort -T . --compress-program=gzip notes.txt # want ask
uniq notes.txt out.txt # want ask
uniq -c notes.txt counts.txt # want ask
shuf -o out.txt notes.txt # want ask
shuf notes.txt --output=out.txt # want ask

# tar, zip and friends: extraction, archives, and commands they run.
tar -tf data/archive.tar.gz # want allow
tar -tzvf data/archive.tar.gz # want allow
tar -xf data/archive.tar.gz # want ask
tar xzf data/archive.tar.gz # want ask
tar -cf out.tar src # want ask
tar --to-command='sh -c "touch pwned"' -xf data/archive.tar.gz # want ask
tar -xf data/archive.tar.gz --to-command=cat # want ask
tar -tf data/archive.tar.gz --checkpoint=1 --checkpoint-action=exec='touch pwned' # want ask
tar -I 'sh -c "touch pwned"' -tf data/archive.tar.gz # want ask
tar --use-compress-program=./evil -tf data/archive.tar.gz # want ask
tar -tf data/archive.tar.gz -F ./evil # want ask
tar --info-script=./evil -tf data/archive.tar.gz # want ask
tar -tf data/archive.tar.gz --rsh-command=./evil # want ask
zip -T -TT 'touch pwned' out.zip main.go # want ask
zip out.zip main.go # want ask
unzip -o data.zip # want ask
gzip -k notes.txt # want ask
cpio -i < data/archive.tar.gz # want ask

# xargs: every input line becomes part of a command.
echo notes.txt | xargs rm # want ask
ls | xargs rm # want ask
find . -name '*.tmp' | xargs rm -f # want ask
find . -print0 | xargs -0 touch # want ask
ls | xargs -I{} mv {} {}.bak # want ask
ls | xargs -I{} sh -c 'echo {}' # want ask
xargs -a notes.txt touch # want ask
xargs rm < notes.txt # want ask
grep -rl TODO . | xargs sed -i s/TODO/DONE/ # want ask
git ls-files | xargs sed -i 's/a/b/' # want ask
echo README.md | xargs cat # want ask
cat notes.txt | xargs -n1 grep -rn # want ask
ls | xargs -P4 -n1 sh -c 'touch "$0"' # want ask
find . -name '*.go' | xargs -I% cp % /tmp/ # want deny

# tee: every operand is written.
ls | tee out.txt # want ask
echo hi | tee notes.txt # want ask
grep -rn TODO . | tee todo.txt | head # want ask
ls | tee -a notes.txt # want ask
tee out.txt < README.md # want ask
ls | tee /dev/null out.txt # want ask
ls | tee >(sh) # want ask
ls | sudo tee /etc/motd # want deny

# Pagers and viewers that open a shell with ! or run a command. With no
# terminal (an agent's pipe) less, more and man print and end: allowed
# (issue 25, confirmed under strace); a +command, a log file and a pager
# program still ask.
less README.md # want allow
more README.md # want allow
most README.md # want ask
view README.md # want ask
vim -R README.md # want ask
less -o log.txt README.md # want ask
less -O log.txt README.md # want ask
git log | less # want allow
cat README.md | more # want allow
man ls # want allow
less +F README.md # want ask
less '+!touch pwned' README.md # want ask
man -l README.md # want ask
man -P 'sh -c "touch pwned"' ls # want ask
man --pager=./evil ls # want ask
info ls # want ask
pydoc os # want ask
journalctl -u nginx # want ask
systemctl status nginx # want ask
pg README.md # want ask
w3m README.md # want ask

# Read-only programs with a write or run option.
tree -o out.txt # want ask
tree src -o tree.txt # want ask
xxd main.go out.hex # want ask
xxd -r out.hex main.go # want ask
split -l 1 notes.txt part- # want ask
csplit notes.txt 2 # want ask
sdiff -o merged.txt notes.txt README.md # want ask
diff --output=out.txt notes.txt README.md # want ask
file -C -m magic # want ask
date -s '2020-01-01' # want ask
date --set=tomorrow # want ask
hostname evil # want ask
touch -r README.md notes.txt # want ask
jq . package.json > out.json # want ask redirect-write
yq -i '.port = 1' config/settings.yaml # want ask
yq --inplace '.debug = true' config/settings.yaml # want ask
cp -n README.md README.md # want ask
dd if=README.md of=copy.md # want ask
install -m 755 scripts/build.sh bin/ # want ask
mkfifo pipe # want ask
wc --files0-from=list.txt # want ask
du --files0-from=list.txt # want ask
grep -f patterns.txt notes.txt # want allow
comm -3 notes.txt notes.txt --output-delimiter=, # want allow
column -o ' | ' -t -s, data/values.csv # want allow

# More ways to hand sed, awk and git a command to run.
sed -e '1{' -e 'e touch pwned' -e '}' notes.txt # want ask
sed --expression='1e touch pwned' notes.txt # want ask
sed -n -e p -e 'w out.txt' notes.txt # want ask
sed 's/x/y/;e touch pwned' notes.txt # want ask
sed '1s/.*/touch pwned/e' notes.txt # want ask
sed -n -f /dev/stdin notes.txt <<< 'e touch pwned' # want ask
awk -e 'BEGIN { system("touch pwned") }' # want ask
awk --source='BEGIN { system("touch pwned") }' # want ask
awk -E prog.awk notes.txt # want ask
awk -v x="$(touch pwned)" '{ print }' notes.txt # want ask
git cat-file --filters HEAD:main.go # want ask
git cat-file --textconv HEAD:main.go # want ask
git config --file=x.cfg core.pager cat # want ask
git --no-pager -c core.fsmonitor='touch pwned' status # want ask
git -C . -c core.pager='touch pwned' log # want ask
git show HEAD:main.go > copy.go # want ask redirect-write
git log --format=%H -n1 > head.txt # want ask redirect-write

# A dry run that still runs: make -n executes recipe lines marked + and
# those that invoke $(MAKE).
make -n # want ask
make --dry-run install # want ask
make -n -f Makefile test # want ask
