package classify

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// cwds lists every segment as name@cwd ("?" when unknown).
func cwds(r *Report) string {
	var parts []string
	for _, s := range r.Segments {
		c := "?"
		if s.Cwd.Known {
			c = s.Cwd.Path
		}
		parts = append(parts, s.Name+"@"+c)
	}
	return strings.Join(parts, " ")
}

func TestCwd(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ls", "ls@."},
		{"cd a; ls", "cd@. ls@a"},
		{"cd a && ls", "cd@. ls@a"},
		{"cd /x; cd ..; ls; cd ../y/./z; ls", "cd@. cd@/x ls@/ cd@/ ls@/y/z"},
		{"cd a/b/..; ls", "cd@. ls@a"},
		// a cd in a subshell, pipeline, substitution, nested script or
		// background job does not leak
		{"(cd a && ls) && cat f", "cd@. ls@a cat@."},
		{"cd a | cat; ls", "cd@. cat@. ls@."},
		{"ls | cd a; ls", "ls@. cd@. ls@."},
		{"cd a; (cd b; ls); ls", "cd@. cd@a ls@a/b ls@a"},
		{"cd a; echo $(cd b); ls", "cd@. cd@a echo@a ls@a"},
		{"cd a; bash -c 'cd b; ls'; ls", "cd@. bash@a cd@a ls@a/b ls@a"},
		{"cd a & ls", "cd@. ls@."},
		{"f() { cd a; }; ls", "cd@. ls@."},
		{"f() { cd a; }; f; ls", "cd@. f@. ls@?"},
		{"f() { pwd; }; f; ls", "pwd@. f@. ls@."},
		{"source env.sh; ls", "source@. ls@?"},
		{"eval \"$x\"; ls", "eval@. ls@?"},
		{"(source env.sh); ls", "source@. ls@."},
		// cd -, cd alone, cd ~, $HOME
		{"cd a; cd -; ls", "cd@. cd@a ls@."},
		{"cd a && cd - && ls", "cd@. cd@a ls@."},
		{"cd -; ls", "cd@. ls@?"},
		{"cd; ls", "cd@. ls@~"},
		{"cd ~ && ls", "cd@. ls@~"},
		{"cd ~/x && ls", "cd@. ls@~/x"},
		{"cd ~/x/.. && ls", "cd@. ls@~"},
		{"cd $HOME/x; ls", "cd@. ls@~/x"},
		{`cd "$HOME"; ls`, "cd@. ls@~"},
		{"cd ~bob; ls", "cd@. ls@?"},
		{"cd $d; ls", "cd@. ls@?"},
		{"cd /tmp; cd x; ls", "cd@. cd@/tmp ls@/tmp/x"},
		// && || and if: a cd is assumed to succeed, any other command
		// may fail
		{"x && cd a && b", "x@. cd@. b@a"},
		{"true && cd a && ls", "true@. cd@. ls@a"},
		{"ls && cd a; ls", "ls@. cd@. ls@?"},
		{"cd a || ls; pwd", "cd@. ls@. pwd@a"},
		{"cd a || cd b; ls", "cd@. cd@. ls@a"},
		{"cd a && ls || pwd", "cd@. ls@a pwd@a"},
		{"cd a && cd b || cd c; ls", "cd@. cd@a cd@? ls@a/b"},
		{"false || cd a && ls", "false@. cd@. ls@?"},
		{"! cd a; ls", "cd@. ls@a"},
		{"if true; then cd a; fi; ls", "true@. cd@. ls@?"},
		{"if true; then cd a; else cd a; fi; ls", "true@. cd@. cd@. ls@a"},
		{"if cd a; then ls; else pwd; fi; cat f", "cd@. ls@a pwd@. cat@a"},
		{"if ls; then cd a; elif pwd; then cd b; else cd c; fi; ls", "ls@. cd@. pwd@. cd@. cd@. ls@?"},
		{"case x in a) cd a;; b) cd a;; esac; ls", "cd@. cd@. ls@?"},
		{"for i in 1 2; do cd a; done; ls", "cd@. ls@?"},
		{"for i in 1 2; do ls; done; ls", "ls@. ls@."},
		{"while true; do cd a; done; ls", "true@. cd@. ls@?"},
		{"{ cd a; }; ls", "cd@. ls@a"},
		// pushd and popd
		{"pushd a; ls; popd; ls", "pushd@. ls@a popd@a ls@."},
		{"popd; ls", "popd@. ls@?"},
		// git -C is not a cd
		{"git -C src log; ls", "git@. ls@."},
	} {
		if diff := cmp.Diff(tc.want, cwds(Classify(tc.in))); diff != "" {
			t.Errorf("Classify(%q) cwds (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestCdSteps(t *testing.T) {
	r := Classify("cd a; (cd b); cd; cd -; cd ~/x | cat")
	var got []string
	for _, c := range r.Cd {
		got = append(got, fmt.Sprintf("%s %q %s->%s scoped=%v seg=%d %s", c.Program, c.Target.Value, show(c.From), show(c.To), c.Scoped, c.Segment, c.Span))
	}
	want := []string{
		`cd "a" .->a scoped=false seg=0 0-4`,
		`cd "b" a->a/b scoped=true seg=1 7-11`,
		`cd "" a->~ scoped=false seg=2 14-16`,
		`cd "-" ~->a scoped=false seg=3 18-22`,
		`cd "~/x" a->~/x scoped=true seg=4 24-30`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cd steps (-want +got):\n%s", diff)
	}
	if got := r.Segments[1].Cwd.After; !cmp.Equal(got, []int{0}) {
		t.Errorf("cd b runs after steps %v, want [0]", got)
	}
}

func show(c Cwd) string {
	if !c.Known {
		return "?"
	}
	return c.Path
}

// paths lists path refs as "path kind source @cwd", with " r" when
// recursive and " ~" when home-relative.
func paths(refs []PathRef) string {
	var parts []string
	for _, p := range refs {
		s := fmt.Sprintf("%s %s %s @%s", p.Path, p.Kind, p.Source, show(p.Cwd))
		if p.Dynamic != "" {
			s += " " + p.Dynamic
		}
		for _, flag := range []struct {
			on   bool
			name string
		}{{p.Recursive, "r"}, {p.Home, "~"}, {p.Split, "split"}, {p.OptionLike, "opt"}, {p.Repo, "repo"}, {p.IfExists, "if-exists"}, {p.Tracked, "tracked"}} {
			if flag.on {
				s += " " + flag.name
			}
		}
		if p.PathGlob != "" {
			s += " glob=" + p.PathGlob
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

func TestReads(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"cat f", "f literal operand @."},
		{"cat a b", "a literal operand @.; b literal operand @."},
		{"ls", ". literal implicit @."},
		{"ls -R", ". literal implicit @. r"},
		{"find src -name x", "src literal operand @. r"},
		{"find", ". literal implicit @. r"},
		{"grep -rn x src", "src literal operand @. r"},
		{"grep -rn x", ". literal implicit @. r"},
		{"grep -d recurse x src", "src literal operand @. r"},
		{"grep -d skip x f", "f literal operand @."},
		{"grep x f", "f literal operand @."},
		{"grep -f pats f", "pats literal option @.; f literal operand @."},
		{"grep -e x -- -f", "-f literal operand @."},
		{"cat < in", "in literal redirect @."},
		{"cd a && cat f", "a literal operand @.; f literal operand @a"},
		{"cat ~/f", "~/f literal operand @. ~"},
		{"cat $HOME/f", "~/f literal operand @. ~"},
		{"cat *.go", "*.go glob operand @. opt"},
		{"cat '*'.go", "*.go literal operand @."},
		{`cat "a b"*`, "a b* glob operand @."},
		{"cat $f", "$f dynamic operand @. param opt"},
		{"cat ~bob/f", "~bob/f dynamic operand @. tilde-user"},
		{"git -C src log", "src literal cwd-flag @."},
		{"git -C src status", "src literal cwd-flag @.; . literal implicit @src"},
		{"sha256sum -c SUMS", "SUMS literal operand @.; SUMS dynamic operand @. files-from"},
		// git prints the content of the paths its operands name.
		{"git show HEAD:.env", ".env literal operand @. repo tracked"},
		{"git show HEAD:./x", "./x literal operand @. tracked"},
		{"git show :0:a/b", "a/b literal operand @. repo tracked"},
		{"git show HEAD:", ". literal git-tracked @. repo tracked"},
		{"git grep TOKEN HEAD:", ". literal git-tracked @. repo tracked"},
		{"git show :/fix", ". literal git-tracked @. repo tracked"}, // the newest commit whose message matches: its patch
		{"git cat-file -p v1:k.pem", "k.pem literal operand @. repo tracked"},
		{"git log main", "main literal operand @. if-exists"},
		{"git log -p -- .env", ".env literal operand @. tracked"},
		{"git log -- ':!vendor'", ""},
		{"git log -- ':(glob)*.go'", ":(glob)*.go dynamic operand @. pathspec"},
		{"git log -- ':/src/a.go'", "src/a.go literal operand @. repo"},
		{"git grep -n x -- '*.go'", ". literal operand @. r tracked glob=*.go"},
		{"git blame a.go", "a.go literal operand @. if-exists"},
		// git grep, git log -p, git show and git diff print what the
		// repository tracks: a pathspec narrows it, else all of it.
		{"git grep x", ". literal git-tracked @. repo tracked"},
		{"git grep x -- src", "src literal operand @. tracked"},
		{"git grep x -- ':!.env'", ". literal git-tracked @. repo tracked"}, // an exclusion alone narrows nothing
		{"git log -p", ". literal git-tracked @. repo tracked"},
		{"git log -p main", "main literal operand @. if-exists tracked; . literal git-tracked @. repo tracked"},
		{"git log --stat", ""},
		{"git log -U3 -- docs", "docs literal operand @. tracked"},
		{"git show", ". literal git-tracked @. repo tracked"},
		{"git show HEAD~2 --stat", "HEAD~2 literal operand @. if-exists"},
		{"git diff", ". literal git-tracked @. repo tracked"},
		{"git diff --cached -- a b", "a literal operand @. tracked; b literal operand @. tracked"},
		{"git diff --no-index a b", "a literal operand @. r; b literal operand @. r"},
		{"git stash show -p", ". literal git-tracked @. repo tracked"},
		{"git diff --stat", ""},
		{"git diff --stat -p", ". literal git-tracked @. repo tracked"},
		{"git show -s --format=%H", ""},
		{"git grep -l x", ""},
		{"git grep -c x", ""},
		{"git cat-file -t HEAD", "HEAD literal operand @. if-exists"},
		{"git diff-tree -p HEAD", "HEAD literal operand @. if-exists tracked; . literal git-tracked @. repo tracked"},
		{"git diff-tree --name-only HEAD", "HEAD literal operand @. if-exists"},
		{"git cat-file -p 1a2b3c", "1a2b3c literal operand @. if-exists tracked; . literal git-tracked @. repo tracked"},
		{"git -C sub grep x", "sub literal cwd-flag @.; . literal git-tracked @sub repo tracked"},
		// Printing git config reads the files a credential may sit in.
		{"git config --list", ".git/config literal git-config @. repo; ~/.gitconfig literal git-config @. ~; ~/.config/git/config literal git-config @. ~"},
		{"git remote -v", ".git/config literal git-config @. repo; ~/.gitconfig literal git-config @. ~; ~/.config/git/config literal git-config @. ~"},
		// A key's value may come from a file the config includes
		// (redrepo): the files are judged for such an include only.
		{"git config user.name", ".git/config literal git-config-value @. repo; ~/.gitconfig literal git-config-value @. ~; ~/.config/git/config literal git-config-value @. ~"},
		{"git remote", ""},
		{"cat SUMS | md5sum --check", "SUMS literal operand @.; - dynamic operand @. files-from"},
		{"sha256sum f", "f literal operand @."},
		{"git -C src -C lib status", "src literal cwd-flag @.; lib literal cwd-flag @src; . literal implicit @src/lib"},
		{"git -C src -C /etc status", "src literal cwd-flag @.; /etc literal cwd-flag @src; . literal implicit @/etc"},
		{"ls | xargs cat", ". literal implicit @.;  dynamic xargs-input @. xargs-input"},
		{"find . -exec cat {} \\;", ". literal operand @. r; {} dynamic operand @. find-match"},
		{"bash -c 'cat f'", "f literal operand @."},
		{"cd a; bash -c 'cd b && cat f'", "a literal operand @.; b literal operand @a; f literal operand @a/b"},
		{"sed -n p a b", "a literal operand @.; b literal operand @."},
		{"awk -F: '{print}' /etc/passwd", "/etc/passwd literal operand @."},
		{"diff a b", "a literal operand @. r; b literal operand @. r"},
		{"cat -", ""},
		{"sort -o out in", "in literal operand @."},
		{"cp a b c", "a literal operand @.; b literal operand @."},
		{"python3 x.py", "x.py literal operand @."},
		{"bash x.sh", "x.sh literal operand @."},
		{"wc -l <<< hi", ""},
		// A loop variable read in its loop's body is each of the loop's words.
		{`for f in a b; do cat "$f"; done`, "a literal operand @.; b literal operand @."},
		{`for f in *.py; do wc -l "$f"; done`, "*.py glob operand @. opt"},
		{`for f in *.py; do wc -l ${f}; done`, "*.py glob operand @. split opt"},
		{`for f in ~/x; do cat "$f"; done`, "~/x literal operand @. ~"},
		{`for d in src; do ls "$d"; done`, "src literal operand @."},
		{`cd a && for f in b; do cat "$f"; done`, "a literal operand @.; b literal operand @a"},
		{`bash -c 'for f in a; do cat "$f"; done'`, "a literal operand @."},
		// ... and stays dynamic otherwise.
		{`cat "$f"; for f in a; do :; done`, `"$f" dynamic operand @. param opt`},                           // before the loop
		{`for f in a; do :; done; cat "$f"`, `"$f" dynamic operand @. param opt`},                           // after it
		{`for f in a; do cat "src/$f"; done`, `"src/$f" dynamic operand @. param`},                          // a word around it
		{`for f in a; do bash -c 'cat "$f"'; done`, `"$f" dynamic operand @. param opt`},                    // another shell's $f
		{`for f in a; do f=/etc/shadow; cat "$f"; done`, `"$f" dynamic operand @. param opt`},               // assigned
		{`for f in a; do f=/x true; cat "$f"; done`, `"$f" dynamic operand @. param opt`},                   // assigned for a command
		{`for f in a; do read f; cat "$f"; done`, `"$f" dynamic operand @. param opt`},                      // read sets it
		{`for f in a; do printf -v f x; cat "$f"; done`, `"$f" dynamic operand @. param opt`},               // printf -v sets it
		{`for f in a; do : $((f=1)); cat "$f"; done`, `"$f" dynamic operand @. param opt`},                  // arithmetic may set it
		{`for f in a; do : ${f:=x}; cat "$f"; done`, `"$f" dynamic operand @. param opt`},                   // ${f:=x} sets it
		{`for f in a $(ls); do cat "$f"; done`, `. literal implicit @.; "$f" dynamic operand @. param opt`}, // a dynamic word
		{`for f in a; do :; done; for f in $g; do cat "$f"; done`, `"$f" dynamic operand @. param opt`},     // another loop's dynamic word
		{`for f in "a b"; do cat $f; done`, `$f dynamic operand @. param opt`},                              // split unquoted
		{`for f in 'a*'; do cat $f; done`, `$f dynamic operand @. param opt`},                               // globbed again unquoted
		{`for f in a; do for g in b; do cat "$f$g"; done; done`, `"$f$g" dynamic operand @. param opt`},
		{`IFS=:; for f in a:b; do cat $f; done`, `$f dynamic operand @. param opt`},  // IFS set
		{`for f in -r a; do grep x "$f"; done`, `"$f" dynamic operand @. param opt`}, // an option
		{`for f in -r a; do grep x -- "$f"; done`, "-r literal operand @.; a literal operand @."},
		{"grep x * -- *.md", "* glob operand @. opt; *.md glob operand @."},
		{"grep x src/*", "src/* glob operand @."}, // two variables
	} {
		if diff := cmp.Diff(tc.want, paths(Classify(tc.in).Reads)); diff != "" {
			t.Errorf("Classify(%q) reads (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestWrites(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ls", ""},
		{"ls > f", "f literal redirect @."},
		{"ls >> f 2>&1", "f literal redirect @."},
		{"ls > /dev/null 2>&1", ""},
		{"ls >&f", "f literal redirect @."},
		{"ls &> ~/log", "~/log literal redirect @. ~"},
		{"cat <> f", "f literal redirect @."},
		{"cd a && ls > f", "f literal redirect @a"},
		{"echo x | tee a b", "a literal operand @.; b literal operand @."},
		{"rm -rf build", "build literal operand @."},
		{"cp a b c", "c literal operand @."},
		{"cp -t dir a", "dir literal option @."},
		{"mv a b", "a literal operand @.; b literal operand @."},
		{"mkdir -p x/y", "x/y literal operand @."},
		{"touch $f", "$f dynamic operand @. param"},
		{"sort -o out in", "out literal option @."},
		{"git -C a -C b clean -fd", "b literal cwd-flag @a"},
		{"sort --output=out in", "out literal option @."},
		{"sort -uoout in", "out literal option @."},
		{"dd if=a of=b", "b literal option @."},
		{"uniq in out", "out literal operand @."},
		{"find . -fprint out", "out literal option @."},
		{"git log --output=o", "o literal option @."},
		{"bash -c 'ls > f'", "f literal redirect @."},
		{"(cd a; ls > f); ls > g", "f literal redirect @a; g literal redirect @."},
		{"ls > *.txt", "*.txt glob redirect @."},
	} {
		if diff := cmp.Diff(tc.want, paths(Classify(tc.in).Writes)); diff != "" {
			t.Errorf("Classify(%q) writes (-want +got):\n%s", tc.in, diff)
		}
	}
}

// segs lists segments as "name [sub] <parent [wrappers] flags ro|rw".
func segs(r *Report) string {
	var parts []string
	for _, s := range r.Segments {
		f := []string{s.Name}
		if s.Name == "" {
			f[0] = "<" + s.Program + ">"
		}
		if s.Subcommand != "" {
			f = append(f, "("+s.Subcommand+")")
		}
		if s.Parent >= 0 {
			f = append(f, fmt.Sprintf("<%d", s.Parent))
		}
		if len(s.Wrappers) > 0 {
			f = append(f, "["+strings.Join(s.Wrappers, ",")+"]")
		}
		c := s.Context
		if c.PipelineLen > 1 {
			f = append(f, fmt.Sprintf("pipe%d/%d", c.Pipeline, c.PipelineLen))
		}
		for _, fl := range []struct {
			on   bool
			name string
		}{{c.Substitution, "subst"}, {c.Loop, "loop"}, {c.Background, "bg"}, {c.Negated, "neg"},
			{c.Subshell, "subshell"}, {c.Function, "func"}, {c.Condition, "cond"}, {c.StdinFed, "fed"},
			{s.PathPrefixed, "path"}, {s.DynamicProgram, "dyn"}, {!s.Known, "unknown"}} {
			if fl.on {
				f = append(f, fl.name)
			}
		}
		if c.Depth > 0 {
			f = append(f, fmt.Sprintf("depth%d", c.Depth))
		}
		if s.ReadOnly {
			f = append(f, "ro")
		} else {
			f = append(f, "rw")
		}
		parts = append(parts, strings.Join(f, " "))
	}
	return strings.Join(parts, "; ")
}

func TestSegments(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ls", "ls ro"},
		{"ls | grep x | wc -l", "ls pipe0/3 subshell ro; grep pipe1/3 subshell fed ro; wc pipe2/3 subshell fed ro"},
		{"ls && rm x || pwd; cat f", "ls ro; rm rw; pwd ro; cat ro"},
		{"(ls)", "ls subshell ro"},
		{"{ ls; }", "ls ro"},
		{"echo $(ls)", "ls subst subshell ro; echo ro"},
		{"echo `rm x`", "rm subst subshell rw; echo ro"},
		{"diff <(ls a) >(cat)", "ls subst subshell ro; cat subst subshell fed ro; diff ro"},
		{"if ls; then pwd; else rm x; fi", "ls cond ro; pwd ro; rm rw"},
		{"case x in a) ls;; esac", "ls ro"},
		{"for i in 1 2; do ls; done", "ls loop ro"},
		{"while ls; do pwd; done", "ls loop cond ro; pwd loop ro"},
		{"f() { ls; }", "ls func ro"},
		{"ls &", "ls bg ro"},
		{"! ls", "ls neg ro"},
		{"cat < f", "cat fed ro"},
		{"cat <<< x", "cat fed ro"},
		{"cat <<EOF\nx\nEOF", "cat fed ro"},
		{"bash -c 'ls | rm x'", "bash rw; ls <0 [bash] pipe0/2 subshell depth1 ro; rm <0 [bash] pipe1/2 subshell fed depth1 rw"},
		{"sh -c 'sh -c ls'", "sh ro; sh <0 [sh] subshell depth1 ro; ls <1 [sh,sh] subshell depth2 ro"},
		{"find . -exec rm {} \\;", "find rw; rm <0 [find -exec] rw"},
		{"find . -exec cat {} +", "find ro; cat <0 [find -exec] ro"},
		{"ls | xargs rm", "ls pipe0/2 subshell ro; xargs pipe1/2 subshell fed rw; rm <1 [xargs] pipe1/2 subshell fed rw"},
		{"timeout 5 ls", "timeout ro; ls <0 [timeout] ro"},
		{"timeout 5 rm x", "timeout rw; rm <0 [timeout] rw"},
		{"env X=1 nice ls", "env rw; nice <0 [env] rw; ls <1 [env,nice] ro"},
		{"env LC_ALL=C nice ls", "env ro; nice <0 [env] ro; ls <1 [env,nice] ro"},
		{"command ls", "command ro; ls <0 [command] ro"},
		{"time ls", "ls [time] ro"},
		{"stdbuf -oL ls", "stdbuf ro; ls <0 [stdbuf] ro"},
		{"sudo ls", "sudo rw; ls <0 [sudo] ro"},
		{"nice timeout 5 bash -c 'ls'", "nice ro; timeout <0 [nice] ro; bash <1 [nice,timeout] ro; ls <2 [nice,timeout,bash] subshell depth1 ro"},
		{"./x", "x path unknown rw"},
		{"$x", "<$x> dyn unknown rw"},
		{"git -C a log", "git (log) ro"},
		{"git stash", "git (stash push) rw"},
		{"git stash list", "git (stash list) ro"},
		{"git remote -v", "git (remote) ro"},
	} {
		if diff := cmp.Diff(tc.want, segs(Classify(tc.in))); diff != "" {
			t.Errorf("Classify(%q) segments (-want +got):\n%s", tc.in, diff)
		}
	}
}

// argv lists a segment's args: value, or value{dynamic:pattern}.
func argv(r *Report, i int) string {
	var parts []string
	for _, a := range r.Segments[i].Args {
		s := a.Value
		if a.Dynamic != "" {
			s += "{" + a.Dynamic
			if a.Pattern != "" {
				s += ":" + a.Pattern
			}
			s += "}"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func TestArgs(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"echo a 'b c' \"d\"", "a b c d"},
		{`echo \a "\$x" $'\t'`, "a $x \t"},
		{"echo $x ${y} \"$z\"", "$x{param} ${y}{param} \"$z\"{param}"},
		{"echo *.go 'a'*", `*.go{glob:*.go} 'a'*{glob:a*}`},
		{"echo '*'*", `'*'*{glob:\**}`},
		{"echo ~ ~/x ~bob", "~{tilde:~} ~/x{tilde:~/x} ~bob{tilde-user}"},
		{"echo $HOME/x \"$HOME\" $HOMEx", "$HOME/x{home:~/x} \"$HOME\"{home:~} $HOMEx{param}"},
		{"echo {a,b} {1..3} a{b,c}", "{a,b}{brace} {1..3}{brace} a{b,c}{brace}"},
		{"echo $(ls) `ls` $((1+2))", "$(ls){command-substitution} `ls`{command-substitution} $((1+2)){arithmetic}"},
		{"echo <(ls)", "<(ls){process-substitution}"},
		{"echo x=~/a", "x=~/a{tilde-assign}"},
		{"echo @(a|b)", "@(a|b){glob}"},
	} {
		if diff := cmp.Diff(tc.want, argv(Classify(tc.in), len(Classify(tc.in).Segments)-1)); diff != "" {
			t.Errorf("Classify(%q) args (-want +got):\n%s", tc.in, diff)
		}
	}
}

// opts lists a segment's options as name=value (or name) and its operands
// as value:role.
func opts(s Segment) string {
	var parts []string
	for _, o := range s.Options {
		p := o.Name
		if o.Value != nil {
			p += "=" + o.Value.Value
		}
		if !o.Known {
			p += "?"
		}
		parts = append(parts, p)
	}
	for _, o := range s.Operands {
		parts = append(parts, o.Value+":"+string(o.Role))
	}
	return strings.Join(parts, " ")
}

func TestOptions(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"grep -rn x src", "--recursive --line-number x:pattern src:file"},
		{"grep -A3 -e x f", "--after-context=3 --regexp=x f:file"},
		{"grep -A 3 x", "--after-context=3 x:pattern"},
		{"grep -5 x f", "--context=5 x:pattern f:file"},
		{"grep --regexp=x -- -f", "--regexp=x -f:file"},
		{"grep --colour x f", "--color x:pattern f:file"},
		{"grep --col x f", "--col? x:pattern f:file"},
		{"sort -uoF x", "--unique --output=F x:file"},
		{"sort -uo F x", "--unique --output=F x:file"},
		{"sort --out=F x", "--output=F x:file"},
		{"sort --comp gzip x", "--compress-program=gzip x:file"},
		{"sort -t, -k2 x", "--field-separator=, --key=2 x:file"},
		{"head -n5 f", "--lines=5 f:file"},
		{"head -5 f", "--lines=5 f:file"},
		{"tail +5 f", "--lines f:file"},
		{"tail -n5 -v f", "--lines=5 --verbose f:file"},
		{"ls -la -- -x", "-l --all -x:dir"},
		{"ls --frob", "--frob?"},
		{"cat --number=3 f", "--number=3? f:file"},
		{"find -L . -name x -type f", "-L -name=x -type=f .:tree"},
		{"find . \\( -name a -o -name b \\) -print", "-name=a -o -name=b -print .:tree"},
		{"dd if=a of=b bs=1M", "if=a of=b bs=1M"},
		{"cp a b c", "a:file b:file c:write"},
		{"mv a b", "a:delete b:write"},
		{"uniq a b", "a:file b:write"},
		{"env -i X=1 ls -l", "--ignore-environment X=1:assign"},
		{"timeout -s KILL 5 ls", "--signal=KILL 5:number"},
		{"git -C src --no-pager log -n 3 --oneline", "-C=src --no-pager -n=3 --oneline"},
		{"git branch -D x", "-D x:name"},
		{"sed -n -e p f", "--quiet --expression=p f:file"},
		{"sed -ni p f", "--quiet --in-place p:sed f:write"},
		{"awk -F: '{print}' f", "-F=: {print}:awk f:file"},
		{"printf -- '%s' x", "%s:format x:text"},
	} {
		r := Classify(tc.in)
		if len(r.Segments) == 0 {
			t.Errorf("Classify(%q): no segments: %s", tc.in, verdict(r))
			continue
		}
		if diff := cmp.Diff(tc.want, opts(r.Segments[0])); diff != "" {
			t.Errorf("Classify(%q) options (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestRedirects(t *testing.T) {
	r := Classify("cat < in 2>&1 >/dev/null 3>out >&2 <<< s <<EOF\nx\nEOF")
	var got []string
	for _, rd := range r.Redirects {
		got = append(got, fmt.Sprintf("%s fd=%s %s %s harmless=%v seg=%d %s", rd.Op, rd.Fd, rd.Target.Value, rd.Mode, rd.Harmless, rd.Segment, rd.Span))
	}
	want := []string{
		"< fd= in read harmless=false seg=0 4-8",
		">& fd=2 1 dup harmless=true seg=0 9-13",
		"> fd= /dev/null write harmless=true seg=0 14-24",
		"> fd=3 out write harmless=false seg=0 25-30",
		">& fd= 2 dup harmless=true seg=0 31-34",
		"<<< fd= s herestring harmless=true seg=0 35-40",
		"<< fd= EOF heredoc harmless=true seg=0 41-52",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("redirects (-want +got):\n%s", diff)
	}
	// A redirect on a compound command belongs to no segment.
	r = Classify("{ ls; } > f")
	if n := len(r.Redirects); n != 1 || r.Redirects[0].Segment != -1 {
		t.Errorf("{ ls; } > f: redirects %+v, want one with segment -1", r.Redirects)
	}
}

// customCatalog has one read-only program whose options carry each effect
// without a catalog code, so the walker's default codes show.
const customCatalog = `
programs:
  - name: t
    read_only: true
    options:
      - {names: [--w], effects: [write], doc: writes}
      - {names: [--wf], value: required, effects: [writes-file], doc: writes a file}
      - {names: [--x], effects: [exec], doc: runs code}
      - {names: [--f], effects: [follow], doc: follows}
      - {names: [--d], effects: [device], doc: reads a device}
      - {names: [--n], effects: [network], doc: talks to the network}
      - {names: [--i], effects: [interactive], doc: asks}
      - {names: [--p], effects: [privilege], doc: changes user}
      - {names: [--rm], effects: [destructive], doc: destroys}
      - {names: [--safe]}
    operands: [file...]
  - name: cd
    read_only: true
    categories: [navigate]
    operands: [dir]
`

var customCatalogCases = []struct{ in, code string }{
	{"t --w f", "write-option"},
	{"t --wf=o f", "write-option"},
	{"t --x f", "exec-option"},
	{"t --f f", "follow-option"},
	{"t --d f", "device-read"},
	{"t --n f", "network"},
	{"t --i f", "interactive"},
	{"t --p f", "privilege"},
	{"t --rm f", "destructive"},
	{"t --sa f", "unknown-option"},
	{"t --safe f", ""},
	{"t --safe $1", "dynamic-argument"},
	{"cat f", "unknown-program"},
	// shell builtins the catalog does not know get their own codes
	{"eval ls", "eval"},
	{"exec ls", "exec"},
	{"source x.sh", "source"},
	{". x.sh", "source"},
	{"alias ll=ls", "shell-builtin"},
	{"trap 'rm x' EXIT", "shell-builtin"},
	{"read x", "shell-builtin"},
	{"set -e", "shell-builtin"},
}

func TestCustomCatalog(t *testing.T) {
	cat, err := ParseCatalog([]byte(customCatalog), "custom.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range customCatalogCases {
		r := Classify(tc.in, WithCatalog(cat))
		var codes []string
		for _, f := range r.Findings {
			codes = append(codes, f.Code)
		}
		want := []string(nil)
		if tc.code != "" {
			want = []string{tc.code}
		}
		if diff := cmp.Diff(want, codes); diff != "" {
			t.Errorf("Classify(%q) codes (-want +got):\n%s", tc.in, diff)
		}
		if r.Reversible != (tc.code == "") {
			t.Errorf("Classify(%q).Reversible = %v", tc.in, r.Reversible)
		}
	}
}

// TestCatalogCodes builds a command for every option of the embedded
// catalog that has a finding code, and checks the code is reported: a
// catalog entry cannot name a code the walker never emits.
func TestCatalogCodes(t *testing.T) {
	n := 0
	var walk func(prefix string, p *Program)
	walk = func(prefix string, p *Program) {
		for _, o := range p.Options {
			if o.Code == "" || o.Match != "" {
				continue
			}
			name := o.Names[0]
			cmd := prefix + " " + name
			if prefix == "time" {
				// bash parses a bare time as its keyword
				cmd = "command " + cmd
			}
			if o.Value == "required" {
				cmd += " v"
			}
			if p.Syntax == "long" && hasString(o.Effects, EffectCommand) {
				cmd = prefix + " . " + name + " ls ;"
			}
			if p.Syntax == "keyvalue" {
				cmd = prefix + " " + name + "=v"
			}
			cmd += " f"
			n++
			found := false
			for _, f := range Classify(cmd).Findings {
				found = found || f.Code == o.Code
			}
			if !found {
				t.Errorf("Classify(%q) does not report %s for %s", cmd, o.Code, name)
			}
		}
		for _, s := range p.Subcommands {
			walk(prefix+" "+s.Name, s)
		}
	}
	for _, p := range DefaultCatalog().Programs {
		walk(p.Name, p)
	}
	if n < 20 {
		t.Errorf("only %d coded options in the catalog", n)
	}
}

var limitCases = []struct {
	in     string
	limits func(*Limits)
	code   string
}{
	{"ls; ls; ls", func(l *Limits) { l.MaxSegments = 2 }, "limit-segments"},
	{"bash -c 'bash -c ls'", func(l *Limits) { l.MaxNested = 1 }, "limit-nested"},
	{"( ( ( ls ) ) )", func(l *Limits) { l.MaxDepth = 2 }, "limit-depth"},
	{"$($($(ls)))", func(l *Limits) { l.MaxNesting = 2 }, "limit-nesting"},
	{"ls -la", func(l *Limits) { l.MaxLength = 3 }, "limit-length"},
	{"ls >a >b >c", func(l *Limits) { l.MaxFindings = 2 }, "limit-findings"},
	{"ls a b c", func(l *Limits) { l.MaxWords = 3 }, "limit-words"},
	{"cat <a <b <c", func(l *Limits) { l.MaxRedirects = 2 }, "limit-redirects"},
}

// TestWithLimitsZero checks that zero fields keep their defaults.
func TestWithLimitsZero(t *testing.T) {
	if got := verdict(Classify("ls a b c", WithLimits(Limits{MaxLength: 100}))); got != "reversible" {
		t.Errorf("ls a b c with only MaxLength set: %s", got)
	}
	if got := verdict(Classify("ls a b c", WithLimits(Limits{MaxLength: 3}))); got != "not reversible: limit-length 0-8" {
		t.Errorf("ls a b c with MaxLength 3: %s", got)
	}
}

// TestLimits checks that every analysis cap fails closed with a finding
// that names it.
func TestLimits(t *testing.T) {
	for _, tc := range limitCases {
		l := DefaultLimits
		tc.limits(&l)
		r := Classify(tc.in, WithLimits(l))
		found := false
		for _, f := range r.Findings {
			found = found || f.Code == tc.code
		}
		if !found || r.Reversible {
			t.Errorf("Classify(%q) with a low limit: %s, want %s and not reversible", tc.in, verdict(r), tc.code)
		}
		if r := Classify(tc.in); tc.code != "limit-findings" && strings.Contains(verdict(r), "limit-") {
			t.Errorf("Classify(%q) with default limits: %s", tc.in, verdict(r))
		}
	}
}
