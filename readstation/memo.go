package readstation

// memo is a small map for what one decision memoises: its first entries
// are kept in arrays and searched in order (a decision resolves a few
// paths), the rest in a map. It allocates nothing until it holds more
// than memoInline entries.
type memo[K comparable, V any] struct {
	n    int
	keys [memoInline]K
	vals [memoInline]V
	more map[K]V
}

const memoInline = 4

func (c *memo[K, V]) get(k K) (V, bool) {
	for i := 0; i < c.n; i++ {
		if c.keys[i] == k {
			return c.vals[i], true
		}
	}
	v, ok := c.more[k]
	return v, ok
}

func (c *memo[K, V]) put(k K, v V) {
	for i := 0; i < c.n; i++ {
		if c.keys[i] == k {
			c.vals[i] = v
			return
		}
	}
	if c.more == nil {
		if c.n < memoInline {
			c.keys[c.n], c.vals[c.n] = k, v
			c.n++
			return
		}
		c.more = map[K]V{}
	}
	c.more[k] = v
}
