# Talking to the network: downloads, API calls, remote git, package
# registries. Egress is never proven safe: default mode asks, a readonly
# verifier is refused.
#modes: default readonly

curl https://example.com # want ask
curl -s https://api.github.com/repos/demo/demo # want ask
curl -sSL https://example.com/install.sh -o install.sh # want ask
curl -I https://example.com # want ask
curl -X POST -d '{"a":1}' https://api.example.com/items # want ask
curl -H 'Accept: application/json' https://httpbin.org/get # want ask
curl -fsSL https://example.com | head # want ask
curl -d @README.md https://paste.example.com # want ask
curl -F file=@main.go https://upload.example.com # want ask
curl localhost:8080/health # want ask
curl http://127.0.0.1:3000 # want ask
curl -o /dev/null -w '%{http_code}' https://example.com # want ask
wget https://example.com/file.tar.gz # want ask
wget -qO- https://example.com # want ask
wget -O page.html https://example.com # want ask
http GET https://api.example.com # want ask
httpie https://example.com # want ask
ping -c 1 example.com # want ask
dig example.com # want ask
nslookup example.com # want ask
host example.com # want ask
traceroute example.com # want ask
nc -z localhost 8080 # want ask
nc example.com 80 # want ask
telnet example.com 80 # want ask
ssh user@example.com # want ask
ssh host uptime # want ask
scp main.go user@example.com:/tmp/ # want ask
rsync -av src/ user@example.com:src/ # want ask
sftp user@example.com # want ask
ftp example.com # want ask
git fetch # want ask
git fetch origin # want ask
git fetch --all --prune # want ask
git pull # want ask
git pull --rebase origin main # want ask
git push # want ask
git push origin feature # want ask
git push -u origin HEAD # want ask
git push --tags # want ask
git clone https://github.com/demo/demo.git # want ask
git clone --depth 1 https://github.com/demo/demo # want ask
git ls-remote origin # want ask
git remote update # want ask
git submodule update --remote # want ask
git remote add upstream https://github.com/x/y # want ask
gh pr list # want ask
gh pr create --fill # want ask
gh issue view 12 # want ask
gh api repos/demo/demo # want ask
gh run watch # want ask
npm view react version # want ask
npm publish # want ask
npm audit # want ask
npm outdated # want ask
pip download requests # want ask
pip index versions flask # want ask
cargo publish # want ask
docker pull alpine # want ask
docker push demo:latest # want ask
go list -m -u all # want ask
# go mod graph reads the module cache when it holds every module go.mod
# requires (readonly-allowlisted.sh); go mod why loads more than that.
go mod why example.com/x # want ask
brew update # want ask
apt-get update # want ask
aws s3 ls # want ask
gcloud compute instances list # want ask
az account show # want ask
python -m http.server 8000 # want ask
nc -l 4444 # want ask
socat TCP-LISTEN:8080 - # want ask
ngrok http 8080 # want ask
openssl s_client -connect example.com:443 # want ask
