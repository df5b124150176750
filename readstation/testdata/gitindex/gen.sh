#!/usr/bin/env bash
# Regenerates the git index fixtures (git 2.39): each repository tracks
# README.md, src/main.go, src/config/.env and docs/guide.md.
set -euo pipefail
out=$(cd "$(dirname "$0")" && pwd)
g() { git -c user.email=t@example.com -c user.name=t "$@"; }
mk() {
  d=$(mktemp -d); cd "$d"; g init -q "$@" .
  mkdir -p src/config docs
  echo r > README.md; echo m > src/main.go; echo T=1 > src/config/.env; echo g > docs/guide.md
  g add README.md src docs; g commit -qm init
}
mk; cp .git/index "$out/v2.index"
mk; echo n > new.txt; g add -N new.txt; g update-index --index-version 3; cp .git/index "$out/v3.index"
mk; g update-index --index-version 4; cp .git/index "$out/v4.index"
mk --object-format=sha256; cp .git/index "$out/sha256.index"
mk; g update-index --split-index; cp .git/index "$out/split.index"
mk; g sparse-checkout set --cone --sparse-index src >/dev/null 2>&1; cp .git/index "$out/sparse.index"
