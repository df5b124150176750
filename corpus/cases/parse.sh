# Commands bash cannot parse. Nothing about them is proven, so default mode
# asks and a readonly verifier is refused, whatever they look like.
#modes: default readonly

ls 'unclosed # want ask parse-error
cat "README.md # want ask parse-error
echo $( # want ask parse-error
echo `ls # want ask parse-error
ls && # want ask parse-error
ls | # want ask parse-error
if true; then ls # want ask parse-error
if then fi # want ask parse-error
for do done # want ask parse-error
case x in # want ask parse-error
)( # want ask parse-error
;; # want ask parse-error
ls ;; rm notes.txt # want ask parse-error
{ ls # want ask parse-error
(ls # want ask parse-error
ls ) # want ask parse-error
echo ${ # want ask parse-error
echo ${x # want ask parse-error
echo $(( 1 + # want ask parse-error
cat <( # want ask parse-error
ls > # want ask parse-error
cat < # want ask parse-error
ls 2>& # want ask parse-error
f() { # want ask parse-error
[[ -f x # want ask parse-error
ls; ; rm notes.txt # want ask parse-error
|| ls # want ask parse-error
&& ls # want ask parse-error
| ls # want ask parse-error
