# The neighbours of readonly-allowlisted.sh that still ask (readonly:
# deny): each changes something, runs something, follows forever, prints
# a token or talks to the network (issue 25).
#modes: default readonly

git tag v1 # want ask git-tag-write
git remote add up https://example.com/x # want ask
go list -versions -m all # want ask network
go mod edit -fmt # want ask
go mod edit -require=example.com/x@v1.0.0 # want ask
seq 1 inf # want ask
cloc archive.tar.gz # want ask
cloc --report-file=out.txt . # want ask
bat --paging=always main.go # want ask bat-pager
bat --pager=./evil main.go # want ask
bat --list-languages # want ask
shellcheck -x setup.py # want ask
rustup update # want ask
rustup toolchain install nightly # want ask
nvidia-smi -l 1 # want ask
nvidia-smi -pm 1 # want ask
printenv HOME AWS_SECRET_ACCESS_KEY # want ask env-print
dpkg -i demo.deb # want ask
dpkg --configure -a # want ask
dpkg # want ask
bash -n +n setup.py # want ask
zsh -n +o noexec setup.py # want ask
bash -n +o noexec setup.py # want ask set-option
bash -n -c 'touch pwned' # want ask
less +F main.go # want ask
less -o log.txt main.go # want ask
man -l main.go # want ask
top # want ask
top -b # want ask follow-option
top -n 1 # want ask interactive
htop # want ask
npm explain react # want ask npm-update-check
pip list --outdated --disable-pip-version-check # want ask network
