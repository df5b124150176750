# Read-only git: inspecting history, status and diffs changes nothing.
# The workspace is a git repository with a plain .git/config (no
# repository-controlled helpers), so these are allowed in both modes.
#modes: default readonly

git status # want allow
git status -s # want allow
git status -sb # want allow
git status --porcelain # want allow
git status --short --branch # want allow
git status --ignored # want allow
git status -uno # want allow
git log # want allow
git log --oneline # want allow
git log --oneline -5 # want allow
git log -n 3 # want allow
git log --graph --oneline --all # want allow
git log --stat # want allow
git log -p -1 # want allow
git log --format='%h %an %s' # want allow
git log --pretty=oneline # want allow
git log --author=ada --since=2.weeks # want allow
git log -S Parse --oneline # want allow
git log -G 'func .*' # want allow
git log --follow -- main.go # want allow
git log main..HEAD # want allow
git log --decorate --oneline -10 # want allow
git log --name-only -3 # want allow
git log --reverse --oneline # want allow
git log --merges # want allow
git log --no-merges --oneline # want allow
git log -- src/lib # want allow
git log --date=short --format='%ad %s' # want allow
git diff # want allow
git diff --stat # want allow
git diff --cached # want allow
git diff --staged # want allow
git diff HEAD # want allow
git diff HEAD~1 # want allow
git diff HEAD~3 --stat # want allow
git diff main...HEAD # want allow
git diff --name-only # want allow
git diff --name-status HEAD~1 # want allow
git diff -w # want allow
git diff --word-diff # want allow
git diff -- main.go # want allow
git diff --check # want allow
git diff --numstat # want allow
git show # want allow
git show HEAD # want allow
git show --stat HEAD # want allow
git show HEAD:main.go # want allow
git show HEAD~1 --name-only # want allow
git show -s --format=%H # want allow
git branch # want allow
git branch -a # want allow
git branch -v # want allow
git branch -r # want allow
git branch --show-current # want allow
git branch --list 'feat*' # want allow
git branch --merged # want allow
git branch --contains HEAD # want allow
git tag # want allow
git tag -l # want allow
git tag --list 'v*' # want allow
git remote # want allow
git remote -v # want allow
git blame main.go # want allow
git blame -L 1,5 main.go # want allow
git ls-files # want allow
git ls-files -m # want allow
git ls-files --others --exclude-standard # want allow
git ls-tree HEAD # want allow
git ls-tree -r --name-only HEAD # want allow
git grep TODO # want allow
git grep -n func # want allow
git grep -l TODO -- '*.go' # want allow
git grep -c TODO HEAD # want allow
git rev-parse HEAD # want allow
git rev-parse --abbrev-ref HEAD # want allow
git rev-parse --show-toplevel # want allow
git rev-parse --git-dir # want allow
git rev-parse --short HEAD # want allow
git rev-list --count HEAD # want allow
git rev-list HEAD -5 # want allow
git describe --tags # want allow
git describe --always # want allow
git shortlog -sn # want allow
git shortlog -sne HEAD # want allow
git cat-file -p HEAD # want allow
git cat-file -t HEAD # want allow
git merge-base main HEAD # want allow
git stash list # want allow
git stash show # want allow
git stash show -p stash@{1} # want allow
git stash show --stat # want allow
# -u is --include-untracked here: the untracked files a stash saved (a .env).
git stash show -p -u # want ask unknown-option
git stash show --only-untracked -p # want ask unknown-option
# Submodules' tracked paths are in their own indexes, which are not read.
git grep --recurse-submodules TODO # want ask unknown-option
git diff --submodule=diff # want ask unknown-option
git reflog -5 # want allow
git worktree list # want allow
git count-objects -v # want allow
git name-rev HEAD # want allow
git for-each-ref refs/heads # want allow
git show-ref # want allow
git whatchanged -1 # want allow
git version # want allow
git --version # want allow
git -C src log --oneline # want allow
git -C src/lib status # want allow
git --no-pager log -3 # want allow
git --no-pager diff # want allow
git log --oneline | head -20 # want allow
git diff --stat | tail -1 # want allow
git log --format=%an | sort | uniq -c | sort -rn # want allow
git status --porcelain | wc -l # want allow
git ls-files | grep '\.go$' # want allow
git ls-files | xargs wc -l # want allow
git ls-files '*.go' | xargs grep -n TODO # want allow
# ls-files options that print more than a path (stage, tags, names from
# the top): xargs would hand the program words that are not the listed paths.
git ls-files -s | xargs cat # want ask
git ls-files -t | xargs wc -l # want ask
git ls-files --full-name | xargs wc -l # want ask
git ls-files -z | xargs -0 wc -l # want allow
git diff --name-only | xargs grep -n TODO # want allow
git branch -a | grep feat # want allow
git log --oneline -20 | grep -i fix # want allow
git rev-parse HEAD && git status -s # want allow

# Paths git prints from a revision, judged like files: ordinary ones pass.
git show HEAD:src/app.py # want allow
git log -p -- main.go # want allow
git grep -n func -- '*.go' # want allow
git log main -- docs/ # want allow
