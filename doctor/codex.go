package doctor

// codexChecks: Codex runs a hook only when the user's Codex config trusts
// that exact hook (and, for a project's hooks file, the project). Until
// shellgate reads that trust (hook.CodexHookTrust), the state is not
// established, and the gate is not taken as active.
func codexChecks(codexHome, hooksFile, install string) []Check {
	return []Check{{Name: "trust", Message: "Codex runs a hook only once you trust it (codex's /hooks); this shellgate cannot read that trust yet",
		Fix: "codex   # then trust the shellgate hook in /hooks"}}
}
