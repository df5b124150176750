# Read-only claims the confirm harness (corpus/confirm) broke by running the
# real program under strace in a decoy workspace, each with the spelling that
# stays read-only beside it. The harness is the evidence; these cases keep
# the catalog from sliding back.
#modes: default readonly

# A wrapper given no command is the program itself: env prints the environment.
env -u OLDPWD # want ask env-print
env -0 # want ask env-print
env -- # want ask env-print
env LC_ALL=C # want ask env-print
env LC_ALL=C grep -n TODO README.md # want allow

# binutils read an @FILE word as a response file: they echo its lines back
# in their errors (the secret is printed) and take --plugin from it.
nm @notes.txt # want ask response-file
nm -C @notes.txt # want ask response-file
strings @notes.txt # want ask response-file
readelf -h @notes.txt # want ask response-file
readelf -x @notes.txt main.go # want ask response-file
objdump -f @notes.txt # want ask response-file
strings -n 8 main.go # want allow

# tar reaches a host:file archive through the remote shell.
tar -tf localhost:data/archive.tar.gz # want ask exec-option
tar --file=backup:x.tar -t # want ask exec-option
tar -tzf data/archive.tar.gz # want allow
tar tf backup:x.tar # want ask tar-old-style

# Fewer needless asks: old-style listing keys (t and f, with v, z, j or J).
tar tzf data/archive.tar.gz # want allow
tar tvf data/archive.tar.gz # want allow
tar xf data/archive.tar.gz # want ask tar-old-style

# unzip -x takes no value: the next word is the archive, which is extracted.
unzip -x data/a.zip # want ask unzip-extract
unzip -qx data/a.zip # want ask unzip-extract
unzip -nx data/a.zip # want ask unzip-extract

# getent: shadow prints hashes, hosts and the other name databases resolve names.
getent shadow # want ask
getent hosts example.com # want ask
getent ahostsv4 example.com # want ask
getent passwd root # want allow

# jq's program from a file or stdin is unseen (and can print $ENV).
jq -n -f /dev/stdin # want ask jq-program-file
jq -f - data/users.json # want ask jq-program-file
jq --from-file prog.jq data/users.json # want ask jq-program-file
jq -r '.[].name' data/users.json # want allow

# git remote show asks the remote over ssh; --help runs man or a browser.
git remote show origin # want ask git-remote-write
git log --help # want ask git-help
git diff --help # want ask git-help
git log -h # want allow

# mikefarah's yq -s writes a file per document; npm help and fund open a
# viewer; npm asks the registry for a newer npm once a day (it connected from
# a fresh home) unless --no-update-notifier.
yq -s '.a' config/settings.yaml # want ask yq-split
npm help ls # want ask
npm fund left-pad # want ask
npm ls # want ask npm-update-check
npm --no-update-notifier ls # want allow

# docker inspect and compose config print environments and secrets.
docker inspect web # want ask env-print
docker container inspect web # want ask env-print
docker image inspect web # want ask env-print
docker compose config # want ask env-print
docker compose config --images # want ask env-print
docker compose config --services # want ask env-print
docker logs --tail 100 web # want allow
docker ps # want allow

# Token files agents meet inside a tree are deny rows wherever they are.
cat web/.npmrc # want deny read-denied
cat .yarnrc # want deny read-denied
grep -r token .yarnrc.yml # want deny read-denied
cat .pypirc # want deny read-denied
cat vendor/.gem/credentials # want deny read-denied
cat .docker/config.json # want deny read-denied
cat deploy/kubeconfig # want deny read-denied
cat ci/.kube/config # want deny read-denied
head .terraformrc # want deny read-denied
cat infra/prod.tfvars # want deny read-denied
git show HEAD:.npmrc # want deny read-denied
git show HEAD:infra/prod.tfvars # want deny read-denied
cat .aws/credentials # want deny read-denied
grep -r key ci/.boto # want deny read-denied
cat .m2/settings.xml # want deny read-denied
cat .composer/auth.json # want deny read-denied
cat gcp/application_default_credentials.json # want deny read-denied
cat .aws/config # want allow

# Name lookups: netstat and lsof resolve every address unless -n; hostname -f
# and friends, ss -r and a host in an ss filter go to DNS.
netstat -tlp # want ask netstat-resolve
netstat -tlnp # want allow
lsof -i :8080 # want ask lsof-resolve
lsof -n -i :8080 # want allow
ss -r # want ask
ss -tn dst example.com # want ask
ss -tlnp state listening sport = :8080 # want allow
hostname -f # want ask
hostname --all-fqdns # want ask
hostname -s # want allow

# git ls-files --eol reads every tracked file, so the station judges them.
git ls-files --eol # want allow

# pip's index commands ask PyPI for a newer pip once a week.
pip list # want ask pip-version-check
pip --disable-pip-version-check list # want allow
pip freeze # want allow

# Fewer needless asks: git clean -n lists and deletes nothing (the harness ran
# git clean -nfdx over untracked and ignored files: no unlink).
git clean -n # want allow
git clean -nfdx # want allow
git clean --dry-run -d # want allow
git clean -n -i # want ask git-clean-interactive
git clean -fdx # want ask git-clean

# Fewer needless asks: find -exec and -execdir run their command over find's
# matches; a read-only command is judged as a segment of its own, and its {}
# reads are judged by walking find's start points for deny rows (the harness
# ran these over a tree with a committed .env: no write, no other program).
find . -name '*.go' -exec grep -n TODO {} + # want allow
find . -name '*.go' -exec grep -n TODO {} \; # want allow
find src -type f -exec wc -l {} + # want allow
find . -name '*.md' -execdir head -n 3 {} \; # want allow
find . -maxdepth 1 -type f -exec cat {} + # want allow
find . -name '*.go' -exec grep -n TODO {}/../x +  # want ask read-not-established
find . -name '*.go' -execdir cat go.mod {} + # want ask read-not-established
find . -exec cat \; # want ask stdin-read
find . -exec rm {} + # want ask not-read-only
find . -exec sed -i s/a/b/ {} + # want ask
find . -exec sh -c 'cat "$1" > out' _ {} \; # want ask

# Fewer needless asks: --help or --version alone on a program that handles
# it itself (catalog help: true; the harness ran each: no write, no other
# program). Anything more is the program's ordinary spelling.
rm --help # want allow
rm --version # want allow
cp --help # want allow
mv --version # want allow
mkdir --help # want allow
chmod --version # want allow
# curl starts its resolver even for --version (the harness traced it opening
# /etc/hosts): not help: true.
curl --version # want ask network
curl --help # want ask network
rm --help x # want ask not-read-only
rm -rf --help # want ask
rm --hel # want ask not-read-only
rm --help > out.txt # want ask
sudo --help # want ask
# git --help (or -h) alone prints git's usage; with a word after it, it is
# git help WORD, which runs man (traced by the harness): asked.
git --help # want allow
git -h # want allow
git --help log # want ask unexpected-operand
git -h log # want ask unexpected-operand

# Fewer needless asks: journalctl -n N prints the latest entries and exits;
# systemctl status --no-pager prints a unit's state and exits (the harness
# ran both: no write, no other program). Without -n journalctl prints the
# whole journal; without --no-pager systemctl status may page; -f follows.
journalctl -n 20 # want allow
journalctl -u ssh -n 50 --no-pager # want allow
journalctl --lines=5 # want allow
journalctl # want ask journal-read
journalctl -u ssh # want ask journal-read
journalctl -n 20 -f # want ask follow-option
journalctl -n 5 --vacuum-time 1d # want ask journalctl-write
systemctl status ssh --no-pager # want allow
systemctl --no-pager status # want allow
systemctl status ssh # want ask systemctl-pager
systemctl restart ssh --no-pager # want ask not-read-only

# find's {} and xargs' -I string glued to an option are that option's value:
# --pre={} runs find's match as rg's preprocessor.
find src -exec rg --pre={} TODO \; # want ask rg-pre
ls | xargs -I{} rg --pre={} TODO # want ask rg-pre
find src -exec sort --output={} main.go \; # want ask sort-output
ls | xargs -I@ sort -o@ main.go # want ask sort-output
