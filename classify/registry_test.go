package classify

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// allRoles and allEffects are the exported constants: each must have a
// handler, and each handler must be one of them.
var (
	allRoles = []Role{RoleFile, RoleDir, RoleTree, RoleWrite, RoleDelete, RolePattern, RoleScript,
		RoleCommand, RoleText, RoleNumber, RoleAny, RoleName, RoleAssign, RoleSource, RoleURL,
		RoleExec, RoleAwk, RoleSed, RoleJq, RoleGitpath, RoleRefspec, RoleFormat}
	allEffects = []Effect{EffectWrite, EffectExec, EffectFollow, EffectDevice, EffectNetwork,
		EffectRecursive, EffectReadsFile, EffectWritesFile, EffectScript, EffectCommand, EffectPattern,
		EffectCwd, EffectInteract, EffectPrivilege, EffectDestroy, EffectStdin, EffectFilesFrom,
		EffectLists, EffectGitConfig, EffectGitConfigValue, EffectEnvPrint, EffectNoStdin, EffectGitTracked, EffectGitNames,
		EffectForce, EffectPartition}
)

// catalogUses walks a catalog and calls role and effect for every role
// and effect name it uses, with where it is used.
func catalogUses(c *Catalog, role func(where string, r Role), effect func(where string, e Effect)) {
	operands := func(where string, specs []OperandSpec) {
		for _, r := range specs {
			role(where+" operand", r.Role)
			for _, e := range []Effect{r.Effect, r.Else} {
				if e != "" {
					effect(where+" operand "+string(r.Role), e)
				}
			}
		}
	}
	var walk func(where string, p *Program)
	walk = func(where string, p *Program) {
		for _, e := range p.Effects {
			effect(where, e)
		}
		for _, u := range p.Unless {
			effect(where+" unless", u.Effect)
		}
		for _, k := range p.Keywords {
			effect(where+" keyword "+k.Names[0], k.Effect)
		}
		operands(where, p.Operands)
		for _, o := range p.Options {
			ow := where + " " + o.Names[0]
			for _, e := range o.Effects {
				effect(ow, e)
			}
			if o.Else != "" {
				effect(ow+" else", o.Else)
			}
			if o.ValueRole != "" {
				role(ow+" value_role", o.ValueRole)
			}
			operands(ow, o.Operands)
		}
		for _, s := range p.Subcommands {
			walk(where+" "+s.Name, s)
		}
	}
	for _, p := range c.Programs {
		walk(p.Name, p)
	}
}

// TestRoleRegistry checks the registry of operand roles: every role the
// embedded catalog uses has a handler; every handler has a unique name
// that is one of the Role constants and a doc; the flags that go together
// do.
func TestRoleRegistry(t *testing.T) {
	seen := map[Role]bool{}
	docs := map[string]Role{}
	for _, h := range roleRegistry {
		if h.Name == "" || strings.TrimSpace(h.Doc) == "" {
			t.Errorf("role handler %q: empty name or doc", h.Name)
		}
		if seen[h.Name] {
			t.Errorf("role %q registered twice", h.Name)
		}
		seen[h.Name] = true
		if other, ok := docs[h.Doc]; ok {
			t.Errorf("roles %q and %q share the doc %q", other, h.Name, h.Doc)
		}
		docs[h.Doc] = h.Name
		if h.valueRole && h.script == nil {
			t.Errorf("role %q: a value role needs a script check", h.Name)
		}
		if h.script != nil && h.apply == nil {
			t.Errorf("role %q: has a script check that its operands never get", h.Name)
		}
		if h.expands && h.late == nil {
			t.Errorf("role %q: expands, but has no late handler", h.Name)
		}
	}
	var want []Role
	for _, r := range allRoles {
		want = append(want, r)
		if roleOf(r) == nil {
			t.Errorf("the constant %q has no handler", r)
		}
	}
	var got []Role
	for _, h := range roleRegistry {
		got = append(got, h.Name)
	}
	if diff := cmp.Diff(want, got, cmpopts.SortSlices(func(a, b Role) bool { return a < b })); diff != "" {
		t.Errorf("registered roles (-constants +registry):\n%s", diff)
	}
	// The catalog check agrees with the handlers on which roles run what
	// they hold and which may be an option value's role.
	for _, h := range roleRegistry {
		p := &Program{Name: "foo", Operands: []OperandSpec{{Role: h.Name, Carries: CarriesNone}},
			Options: []*OptSpec{{Names: []string{"-e"}, Value: "required", ValueRole: h.Name}}}
		err := (&Catalog{Programs: []*Program{p}}).Validate()
		if accepted := err == nil || !strings.Contains(err.Error(), "value_role"); accepted != h.valueRole {
			t.Errorf("role %q: Validate accepts it as a value role: %t, handler says %t (%v)", h.Name, accepted, h.valueRole, err)
		}
		if p.cmdRole != h.runs {
			t.Errorf("role %q: the catalog takes it for a command role: %t, handler says %t", h.Name, p.cmdRole, h.runs)
		}
	}
	used := map[Role]bool{}
	catalogUses(DefaultCatalog(), func(where string, r Role) {
		used[r] = true
		if roleOf(r) == nil {
			t.Errorf("%s: role %q has no handler", where, r)
		}
	}, func(string, Effect) {})
	if len(used) < 10 {
		t.Errorf("the walk found only %d roles in the catalog", len(used))
	}
}

// TestEffectRegistry checks the registry of effects as TestRoleRegistry
// checks the roles', and that every category an effect adds is known.
func TestEffectRegistry(t *testing.T) {
	seen := map[Effect]bool{}
	docs := map[string]Effect{}
	for _, h := range effectRegistry {
		if h.Name == "" || strings.TrimSpace(h.Doc) == "" {
			t.Errorf("effect handler %q: empty name or doc", h.Name)
		}
		if seen[h.Name] {
			t.Errorf("effect %q registered twice", h.Name)
		}
		seen[h.Name] = true
		if other, ok := docs[h.Doc]; ok {
			t.Errorf("effects %q and %q share the doc %q", other, h.Name, h.Doc)
		}
		docs[h.Doc] = h.Name
		if h.category != "" && !knownCategories[h.category] {
			t.Errorf("effect %q adds the unknown category %q", h.Name, h.category)
		}
		if h.silent && h.code == "" {
			t.Errorf("effect %q: silent, with no code to be silent about", h.Name)
		}
	}
	var want []Effect
	for _, e := range allEffects {
		want = append(want, e)
	}
	var got []Effect
	for _, h := range effectRegistry {
		got = append(got, h.Name)
	}
	if diff := cmp.Diff(want, got, cmpopts.SortSlices(func(a, b Effect) bool { return a < b })); diff != "" {
		t.Errorf("registered effects (-constants +registry):\n%s", diff)
	}
	used := map[Effect]bool{}
	catalogUses(DefaultCatalog(), func(string, Role) {}, func(where string, e Effect) {
		used[e] = true
		if effectHandlers[e] == nil {
			t.Errorf("%s: effect %q has no handler", where, e)
		}
	})
	if len(used) < 15 {
		t.Errorf("the walk found only %d effects in the catalog", len(used))
	}
}

// TestRegistryValidate checks that Validate rejects a role or an effect
// that has no handler, naming it and where it is.
func TestRegistryValidate(t *testing.T) {
	tests := []struct {
		name string
		prog *Program
		want string
	}{
		{"operand role", &Program{Name: "foo", Operands: []OperandSpec{{Role: "bogus"}}}, `foo: unknown operand role "bogus"`},
		{"option operand role", &Program{Name: "foo", Options: []*OptSpec{{Names: []string{"-x"}, Operands: []OperandSpec{{Role: "nope"}}}}}, `foo -x: unknown operand role "nope"`},
		{"value role", &Program{Name: "foo", Options: []*OptSpec{{Names: []string{"-e"}, Value: "required", ValueRole: RoleJq}}}, `foo: option -e: unknown value_role "jq"`},
		{"operand effect", &Program{Name: "foo", Operands: []OperandSpec{{Role: RoleFile, Effect: "melt", Doc: "x"}}}, `foo: operand file: unknown effect "melt"`},
		{"program effect", &Program{Name: "foo", Effects: []Effect{"explode"}}, `foo: unknown effect "explode"`},
		{"subcommand role", &Program{Name: "foo", Subcommands: []*Program{{Name: "bar", Operands: []OperandSpec{{Role: "file!"}}}}}, `foo bar: unknown operand role "file!"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := (&Catalog{Programs: []*Program{tc.prog}}).Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate() = %v, want an error with %q", err, tc.want)
			}
		})
	}
	ok := &Catalog{Programs: []*Program{{Name: "foo", Operands: []OperandSpec{{Role: RoleFile, Repeat: true}}}}}
	if err := ok.Validate(); err != nil {
		t.Errorf("a catalog with known roles: %v", err)
	}
}

// TestRoleBase checks the "!" a role takes when its operand fails its
// match.
func TestRoleBase(t *testing.T) {
	for _, tc := range []struct {
		in   Role
		want Role
		bang bool
	}{{"file", RoleFile, false}, {"file!", RoleFile, true}, {"", "", false}, {"!", "", true}} {
		got, bang := tc.in.Base()
		if got != tc.want || bang != tc.bang {
			t.Errorf("Role(%q).Base() = %q, %t; want %q, %t", tc.in, got, bang, tc.want, tc.bang)
		}
	}
}
