# Reaching a secret by a path that does not look like one: globs, quoting,
# redundant components, parameters, a cd first, and options whose value is
# a file the program reads. The read station resolves each to the real
# file, so these are denied like the plain spelling.
#modes: default readonly

cat ~/.ssh/id_rs? # want deny
cat ~/.ss[h]/id_rsa # want deny
cat ~/.*/id_rsa # want deny
cat ~/".ssh"/id_rsa # want deny
cat ~/'.aws'/credentials # want deny
cat ~/.ssh//id_rsa # want deny
cat ~/.ssh/./id_rsa # want deny
cat ~/.aws/../.aws/credentials # want deny
cat ${HOME}/.ssh/../.ssh/id_rsa # want deny
cat "${HOME}"/.netrc # want deny
cat -- ~/.ssh/id_rsa # want deny
cat ~/.ssh/id_rsa 2>/dev/null || true # want deny
head -c0 ~/.ssh/id_rsa # want deny
cat README.md ~/.ssh/id_rsa # want deny
cd; cat .ssh/id_rsa # want deny
cd && cat .netrc # want deny
cd ~ && grep -r token . # want deny
cd ~/.aws && cat credentials # want deny
cd "$HOME/.aws" && cat credentials # want deny
(cd ~/.ssh && cat id_rsa) # want deny
pushd ~/.ssh && cat id_rsa # want deny
cd src && cat ../../home/.ssh/id_rsa # want deny
grep -f ~/.ssh/id_rsa -r . # want deny
grep -f ~/.aws/credentials notes.txt # want deny
grep --file=$HOME/.netrc notes.txt # want deny
rg -f ~/.ssh/id_rsa # want deny
sort --random-source=$HOME/.ssh/id_rsa notes.txt # want deny
wc --files0-from=$HOME/.ssh/id_rsa # want deny
diff --from-file=$HOME/.ssh/id_rsa notes.txt # want deny
sed -f ~/.ssh/id_rsa notes.txt # want deny
awk -f ~/.ssh/id_rsa notes.txt # want deny
gawk -E ~/.ssh/id_rsa notes.txt # want deny
jq -f ~/.ssh/id_rsa package.json # want deny
jq --rawfile k ~/.ssh/id_rsa -n '$k' # want deny
jq --slurpfile k ~/.docker/config.json -n '$k' # want deny
git diff --no-index ~/.aws/credentials notes.txt # want deny
git blame --contents=$HOME/.ssh/id_rsa main.go # want deny
tar -tf ~/.ssh/id_rsa # want deny
strings /proc/1/environ # want deny
xxd /proc/self/environ # want deny
cat /etc/shadow /etc/passwd # want deny
cat < ~/.netrc # want deny
sort < ~/.aws/credentials # want deny
grep token < ~/.config/gh/hosts.yml # want deny
while read l; do echo "$l"; done < ~/.ssh/id_rsa # want deny
exec 3< ~/.ssh/id_rsa # want deny

# Reads inside a program's script: sed's r and R commands, awk's getline.
sed 'r /etc/shadow' notes.txt # want deny
sed '1r /home/demo/.ssh/id_rsa' notes.txt # want deny
# The corpus's $HOME is its fixture home, so /home/demo is some other
# directory outside the roots; an AWS credentials file is a deny row
# wherever it is (**/.aws/credentials), so the R read is denied, and a
# plain file there is outside the roots (asked, readonly denied).
sed '1R /home/demo/.aws/credentials' notes.txt # want deny read-denied
sed '1R /home/demo/notes.txt' notes.txt # want ask read-outside-roots
sed '1R /etc/shadow' notes.txt # want deny read-denied
sed "1r $HOME/.ssh/id_rsa" notes.txt # want deny
awk 'BEGIN { while ((getline l < "/home/demo/.ssh/id_rsa") > 0) print l }' # want deny
awk 'BEGIN { getline l < "\x2fhome/demo/.ssh/id_rsa"; print l }' # want deny
awk 'BEGIN { ARGV[1] = "/home/demo/.ssh/id_rsa"; ARGC = 2 } 1' # want ask
awk '{ print }' /etc/shadow # want deny

# Any reader will do: every program that prints or summarises a file.
paste -d, - - < ~/.ssh/id_rsa # want deny
diff <(cat ~/.ssh/id_rsa) /dev/null # want deny
comm <(sort ~/.netrc) notes.txt # want deny
cat /dev/fd/0 < ~/.ssh/id_rsa # want deny
xargs -a ~/.ssh/id_rsa echo # want deny
sort -m notes.txt ~/.netrc # want deny
uniq ~/.aws/credentials # want deny
cut -c1- ~/.ssh/id_rsa # want deny
nl ~/.ssh/id_rsa # want deny
tac ~/.ssh/id_rsa # want deny
rev ~/.git-credentials # want deny
fold ~/.netrc # want deny
column ~/.aws/credentials # want deny
iconv -f utf8 ~/.ssh/id_rsa # want deny
gzip -c ~/.ssh/id_rsa # want deny
dd if=$HOME/.ssh/id_rsa # want deny
git hash-object ~/.ssh/id_rsa # want deny
file ~/.ssh/id_rsa # want deny
stat ~/.ssh/id_rsa # want deny
grep -r . /proc/self/ # want deny
strings /proc/*/environ # want deny

# Through a for loop's variable: the words are judged as if written out.
for f in ~/.ssh/id_rsa; do cat "$f"; done # want deny read-denied
for f in README.md ~/.aws/credentials; do cat $f; done # want deny read-denied
for f in ~/.ss?/id_*; do cat "$f"; done # want deny read-denied
for f in README.md; do for f in ~/.ssh/id_rsa; do :; done; cat "$f"; done # want deny read-denied
# An unquoted variable splits a match holding spaces ("name with
# spaces.txt") into other paths: not established.
for f in *.txt; do cat $f; done # want ask read-not-established
# A shell started in the body has its own $f: the loop's words are not it.
for f in README.md; do bash -c 'cat "$f"'; done # want ask
# A checksum list names the files read: they are only known when it is read.
sha256sum -c notes.txt # want ask read-not-established
md5sum notes.txt | md5sum --check # want ask read-not-established
# jq and yq functions that read other files.
yq 'load("../.aws/credentials")' data/users.json # want ask jq-load
jq 'import "secrets" as $s; $s' data/users.json # want ask jq-load
