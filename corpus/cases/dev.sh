# Everyday development: building, testing, installing, editing files and
# committing. None of it is proven read-only (a test suite runs arbitrary
# code, a build writes files), so default mode asks a person and a readonly
# verifier is refused.
#modes: default readonly

# Building and testing.
go build ./... # want ask
go test ./... # want ask
go test -run TestMain -v . # want ask
go test -race -count=1 ./... # want ask
go vet ./... # want ask
go run . # want ask
go run main.go # want ask
go generate ./... # want ask
go install ./cmd/demo # want ask
go mod tidy # want ask
go mod download # want ask
go get example.com/lib@v1.2.3 # want ask
go fmt ./... # want ask
gofmt -w main.go # want ask
go clean -cache # want ask
make # want ask
make test # want ask
make build # want ask
make -j4 all # want ask
make lint # want ask
make clean # want ask
cmake -B build # want ask
cmake --build build # want ask
ninja -C build # want ask
cargo build # want ask
cargo test # want ask
cargo run -- --help # want ask
cargo fmt # want ask
cargo clippy # want ask
npm test # want ask
npm run build # want ask
npm run lint # want ask
npm start # want ask
npm ci # want ask
npx jest # want ask
npx tsc --noEmit # want ask
npx eslint src # want ask
yarn test # want ask
yarn build # want ask
pnpm test # want ask
node src/util.js # want ask
node -e 'console.log(1)' # want ask
deno run src/index.ts # want ask
bun test # want ask
tsc -p . # want ask
jest --watch # want ask
pytest # want ask
pytest -x test/ # want ask
python -m pytest -q # want ask
python3 -m unittest discover # want ask
python src/app.py # want ask
python3 setup.py build # want ask
python -c 'print(1)' # want ask
python3 -m venv .venv # want ask
tox # want ask
mvn test # want ask
mvn package # want ask
gradle build # want ask
./gradlew test # want ask
dotnet test # want ask
ruby -e 'puts 1' # want ask
bundle exec rspec # want ask
rake test # want ask
php artisan test # want ask
mix test # want ask
swift build # want ask
zig build # want ask
./scripts/build.sh # want ask
sh scripts/build.sh # want ask
bash scripts/deploy.sh # want ask
./main # want ask
./build/demo --version # want ask
source .venv/bin/activate # want ask
. ./scripts/build.sh # want ask

# Installing packages.
npm install # want ask
npm install lodash # want ask
npm i -D typescript # want ask
npm install -g yarn # want ask
yarn add react # want ask
pnpm add zod # want ask
pip install requests # want ask
pip install -r requirements.txt # want ask
pip3 install --user black # want ask
python -m pip install -e . # want ask
pipx install ruff # want ask
uv pip install flask # want ask
poetry install # want ask
cargo add serde # want ask
cargo install ripgrep # want ask
gem install rails # want ask
brew install jq # want ask
apt-get install -y jq # want ask
apt install ripgrep # want ask
conda install numpy # want ask

# Formatters and linters that rewrite files.
prettier --write src # want ask
eslint --fix src # want ask
black . # want ask
ruff check --fix . # want ask
isort src # want ask
rustfmt src/main.rs # want ask
clang-format -i src/main.c # want ask
golangci-lint run --fix # want ask

# Editing files in the workspace.
touch new.txt # want ask
mkdir -p build/out # want ask
mkdir tmp # want ask
cp main.go main.go.bak # want ask
cp -r src src.bak # want ask
mv notes.txt notes.md # want ask
mv src/app.py src/main.py # want ask
rm notes.txt # want ask
rm -f build/demo # want ask
rm -rf build # want ask
rm -r src/lib # want ask
rmdir build # want ask
ln -s README.md link.md # want ask
chmod +x scripts/build.sh # want ask
chmod 644 main.go # want ask
echo hello > hello.txt # want ask redirect-write
echo more >> notes.txt # want ask redirect-write
printf 'x\n' > build/out.txt # want ask redirect-write
cat README.md > copy.md # want ask redirect-write
sort notes.txt > sorted.txt # want ask redirect-write
go test ./... > test.log 2>&1 # want ask
patch -p1 < fix.patch # want ask
truncate -s 0 logs/app.log # want ask
unzip data.zip # want ask
tar -xzf data/archive.tar.gz # want ask
tar -czf backup.tgz src # want ask
gzip logs/app.log # want ask
vim main.go # want ask
vi README.md # want ask
nano notes.txt # want ask
emacs -nw main.go # want ask
code . # want ask

# Changing the repository.
git add . # want ask
git add -A # want ask
git add main.go # want ask
git commit -m 'fix parser' # want ask
git commit --amend --no-edit # want ask
git commit -am wip # want ask
git checkout -b feature # want ask
git checkout main # want ask
git checkout -- main.go # want ask
git switch -c topic # want ask
git restore main.go # want ask
git restore --staged main.go # want ask
git stash # want ask
git stash pop # want ask
git stash drop # want ask
git merge feature # want ask
git rebase main # want ask
git rebase -i HEAD~3 # want ask
git cherry-pick abc123 # want ask
git revert HEAD # want ask
git reset HEAD~1 # want ask
git reset --soft HEAD~1 # want ask
git reset --hard HEAD # want ask
git clean -fd # want ask
git tag v1.0.0 # want ask
git tag -d v0.1.0 # want ask
git branch feature # want ask
git branch -d feature # want ask
git branch -D feature # want ask
git branch -m old new # want ask
git init # want ask
git mv main.go app.go # want ask
git rm notes.txt # want ask
git apply fix.patch # want ask
git am 0001.patch # want ask
git config user.name demo # want ask
git config --global core.editor vim # want ask
git gc # want ask
git update-index --assume-unchanged main.go # want ask
git notes add -m note # want ask
git submodule update --init # want ask
git bisect start # want ask

# Containers and services.
docker build -t demo . # want ask
docker run --rm demo # want ask
docker compose up -d # want ask
docker exec -it web sh # want ask
kubectl apply -f k8s.yaml # want ask
kubectl get pods # want ask
terraform plan # want ask
terraform apply # want ask
systemctl restart nginx # want ask
service nginx reload # want ask
kill 1234 # want ask
pkill -f server # want ask
crontab -l # want ask
# remote reads ask unless the config's remote_reads lists the program
gh pr list --author @me # want ask
gh api repos/cli/cli # want ask
kubectl describe pod web # want ask
aws ec2 describe-instances # want ask remote-read
az vm list # want ask remote-read
gh --version # want allow
