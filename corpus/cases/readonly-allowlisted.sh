# Reads people allowlist for their agents (issue 25): the families that
# were asked although they only read, one line each, beside the spelling
# that still asks. Each read-only claim is confirmed in the decoy by
# corpus/confirm (probes).
#modes: default readonly

# Options misread.
git branch --merged main # want allow
git branch --merged main feature # want allow
git tag --merged main # want allow
git remote show -n origin # want allow
go list -json # want allow
go list -json -deps ./... # want allow
go doc -all fmt # want allow
seq 3 -1 1 # want allow
seq -w 1 -0.5 -2 # want allow
go mod edit -json # want allow
go mod edit -print # want allow
go mod graph # want allow
cargo tree --frozen # want allow
cargo tree --offline --locked -e normal # want allow
cargo metadata --frozen --format-version 1 # want allow
cargo --frozen metadata --no-deps --format-version 1 # want allow
cargo tree --offline # want ask cargo-lock-write
cargo tree # want ask cargo-fetch
cargo metadata --locked --format-version 1 # want ask cargo-fetch
git branch -v --no-abbrev # want allow

# Common read-only programs.
tokei # want allow
tokei --files src # want allow
cloc . # want allow
cloc --by-file src # want allow
bat main.go # want allow
batcat -p --paging=never main.go # want allow
eza -la # want allow
exa -T src # want allow
shellcheck setup.py # want allow
rustup show # want allow
rustup --version # want allow
nvidia-smi # want allow
nvidia-smi --query-gpu=name,memory.used --format=csv # want allow
locate parse.go # want allow
printenv HOME # want allow
printenv PATH HOME # want allow
dpkg -l # want allow
dpkg -L bash # want allow

# Nothing runs: syntax checks.
bash -n setup.py # want allow
sh -n setup.py # want allow
zsh -n setup.py # want allow
bash -ne setup.py # want allow

# No terminal: pagers print and end.
less main.go # want allow
more notes.txt # want allow
man -P cat ls # want allow
top -b -n 1 # want allow

# Update checks turned off.
npm ls --no-update-notifier # want allow
npm explain react --no-update-notifier # want allow
pip list --disable-pip-version-check # want allow

# Lists names only (rg --files: readonly-files.sh).
rg -L --files src # want allow
bash -n -o xtrace setup.py # want allow
