// Package trust is the user's record of the project files they trust:
// shellgate's trust store, modelled on direnv's "direnv allow". A
// configuration, policy directory or Rego module that shellgate finds in a
// project (rather than one the user named) may only tighten the gate until
// the user trusts that exact content; the store pins each trusted file or
// directory by its absolute path and the SHA-256 of its content, so that
// any change (an edit, a new file in a policy directory, a re-pointed
// symlink) makes it untrusted again.
//
// The store is one JSON file in the user's state directory (Path), written
// atomically with user-only permissions. A store that is corrupt, writable
// by others or owned by another user is refused by Load with an error, and
// its callers then trust nothing.
//
// The package uses the standard library only, so that any part of shellgate
// (the thin hook client included) may import it without linking OPA.
package trust
