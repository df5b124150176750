# Printing the environment. Tokens live there (CI secrets, cloud keys,
# GITHUB_TOKEN), the read station denies /proc/*/environ for that reason,
# and a parameter's value is not known before the run: printing variables
# is not proven safe. Default mode asks, readonly mode refuses.
#modes: default readonly

env # want ask
printenv # want ask
printenv GITHUB_TOKEN # want ask
env | grep -i token # want ask
env | sort # want ask
echo $GITHUB_TOKEN # want ask
echo "$AWS_SECRET_ACCESS_KEY" # want ask
echo ${OPENAI_API_KEY} # want ask
printf '%s\n' "$NPM_TOKEN" # want ask
# $PATH and $HOME are on the catalog's harmless_vars: their values hold no secret.
echo $PATH # want allow
echo $HOME # want allow
echo "$PWD" $USER # want allow
for f in a b; do echo $f; done # want allow
export -p # want ask
declare -p # want ask
set # want ask
compgen -v # want ask
cat /proc/self/environ | tr '\0' '\n' # want deny
jq -n '$ENV' # want ask
jq -n env # want ask
awk 'BEGIN { for (k in ENVIRON) print k, ENVIRON[k] }' # want ask
cat /proc/$$/environ # want ask
# ps with the BSD flag e prints every process's environment.
ps eww # want ask env-print
ps auxe # want ask env-print
ps -ef e # want ask env-print
ps axo pid,etime,comm # want allow
# jq and yq builtins that read the environment.
jq env package.json # want ask env-print
# npm keeps registry tokens in its config: listing redacts them, getting one
# by name prints it.
npm config get //registry.npmjs.org/:_authToken # want ask config-secret
npm config get _auth # want ask config-secret
jq '$ENV.HOME' package.json # want ask env-print
yq '.a = strenv(GITHUB_TOKEN)' data/users.json # want ask env-print
jq '.name' package.json # want allow
