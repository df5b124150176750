package rego

import (
	"container/list"
	"sync"

	"github.com/shellgate/shellgate/policy"
)

// memo is a bounded LRU of decisions by canonical input (memoKey). It is
// sound because policies cannot use non-deterministic builtins.
type memo struct {
	mu  sync.Mutex
	max int
	ll  *list.List
	m   map[memoKey]*list.Element
	// hits counts the decisions answered from the memo.
	hits int
}

type memoEntry struct {
	key memoKey
	d   policy.Decision
}

func newMemo(n int) *memo {
	if n <= 0 {
		return nil
	}
	return &memo{max: n, ll: list.New(), m: map[memoKey]*list.Element{}}
}

func (m *memo) get(k memoKey) (policy.Decision, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.m[k]
	if !ok {
		return policy.Decision{}, false
	}
	m.ll.MoveToFront(el)
	m.hits++
	return clone(el.Value.(*memoEntry).d), true
}

func (m *memo) put(k memoKey, d policy.Decision) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.m[k]; ok {
		m.ll.MoveToFront(el)
		return
	}
	m.m[k] = m.ll.PushFront(&memoEntry{key: k, d: clone(d)})
	for m.ll.Len() > m.max {
		el := m.ll.Back()
		m.ll.Remove(el)
		delete(m.m, el.Value.(*memoEntry).key)
	}
}

// clone copies a decision so that callers cannot change a memoized one.
func clone(d policy.Decision) policy.Decision {
	if d.Reasons != nil {
		d.Reasons = append([]policy.Reason{}, d.Reasons...)
	}
	for i := range d.Reasons {
		if sp := d.Reasons[i].Span; sp != nil {
			c := *sp
			d.Reasons[i].Span = &c
		}
	}
	if d.Run != nil {
		r := *d.Run
		d.Run = &r
	}
	if d.SuggestedGrants != nil {
		d.SuggestedGrants = append([]policy.Grant{}, d.SuggestedGrants...)
		for i := range d.SuggestedGrants {
			if sp := d.SuggestedGrants[i].Span; sp != nil {
				c := *sp
				d.SuggestedGrants[i].Span = &c
			}
		}
	}
	if d.NoGrants != nil {
		d.NoGrants = append([]policy.NoGrant{}, d.NoGrants...)
		for i := range d.NoGrants {
			if sp := d.NoGrants[i].Span; sp != nil {
				c := *sp
				d.NoGrants[i].Span = &c
			}
		}
	}
	return d
}
