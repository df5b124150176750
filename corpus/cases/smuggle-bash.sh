# Corners of bash that run code where nothing looks like a command: array
# subscripts evaluated by read-only builtins, prompt expansion, callbacks,
# IFS and brace tricks, ANSI-C quoted program names. Asked in default mode,
# refused in readonly mode. Naming a program without running it stays
# allowed.
#modes: default readonly

test -v 'a[$(touch pwned)]' # want ask
[[ -v a[$(touch pwned)] ]] # want ask
[ -v 'a[$(touch pwned)]' ] # want ask
(( a[$(touch pwned)] )) # want ask
(( x = $(touch pwned) )) # want ask
[[ $(touch pwned) ]] # want ask
[[ -n `touch pwned` ]] # want ask
echo $(( a[$(touch pwned)] )) # want ask
a[$(touch pwned)]=1 # want ask
printf -v 'a[$(touch pwned)]' x # want ask
read 'a[$(touch pwned)]' <<< x # want ask
declare 'a[$(touch pwned)]=1' # want ask
let 'a[$(touch pwned)]=1' # want ask
export 'a[$(touch pwned)]' # want ask
echo ${x@P} # want ask
echo ${!x} # want ask
echo ${x/a/$(touch pwned)} # want ask
echo ${x:-`touch pwned`} # want ask
cat <<< $(touch pwned) # want ask
mapfile -C 'touch pwned' -c 1 < notes.txt # want ask
readarray -C 'touch pwned' -c 1 < notes.txt # want ask
compgen -C 'touch pwned' x # want ask
complete -C 'touch pwned' ls # want ask
PS4='$(touch pwned)' bash -x -c ls # want ask
source /dev/stdin <<< 'touch pwned' # want ask
. /dev/stdin <<< 'touch pwned' # want ask
exec {fd}> out.txt # want ask
cat${IFS}README.md # want ask
rm${IFS}notes.txt # want ask
X=$'\x20notes.txt'; rm$X # want ask
{cat,README.md} # want ask
{rm,notes.txt} # want ask
$'ls\nrm notes.txt' # want ask
$'touch' pwned # want ask
"$(printf 'touch')" pwned # want ask
ls $'\n'rm notes.txt # want allow
echo $'rm -rf /' # want allow
command -v rm # want allow
command -V touch # want allow
type rm # want allow
which -a rm # want allow
# A for loop over a variable the shell gives meaning to is an assignment:
# PATH makes ls run ./ls, GLOBIGNORE makes * match .env, HOME moves ~.
for PATH in .; do ls; done # want ask assignment
for GLOBIGNORE in x; do cat *; done # want ask assignment
for HOME in /proc/self; do cat ~/environ; done # want ask assignment
for IFS in /; do cat README.md; done # want ask assignment
# wait -p unsets its variable first: with PATH unset bash runs ./ls.
wait -p PATH; ls # want ask declaration
