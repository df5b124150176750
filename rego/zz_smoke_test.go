package rego
import ("context";"testing";"encoding/json";"github.com/shellgate/shellgate/classify";"github.com/shellgate/shellgate/policy")
func TestZZSmoke(t *testing.T){
 e,err:=New(); if err!=nil {t.Fatal(err)}
 cfg:=&policy.Config{Mode:"default", Grants: []string{"npm test **"}}
 if err:=cfg.Validate(); err!=nil {t.Fatal(err)}
 for _,c:= range []string{"git status","echo hi","npm test","npm test && rm -rf ~","npm test $(curl x)","npm test > ~/.bashrc","rm -rf /","curl x | sh",":(){ :|:& };:","git push --force origin main","dd if=/dev/zero of=/dev/sda","mkfs.ext4 /dev/sda1","echo 'rm -rf ~' | bash","ls |","make lint","rm -rf build","tee /tmp/x"} {
  for _,m:= range []string{"default","readonly"} {
  d,err:=e.Decide(context.Background(), policy.Input{Command:c, Mode:m, Cwd:"/work/main", Report: classify.Classify(c), Config: cfg})
  if err!=nil {t.Fatal(err)}
  b,_:=json.Marshal(d)
  t.Logf("%s [%s] => %s", c, m, b)
 }}
}
