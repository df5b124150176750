//go:build !linux

package hook

import "net"

// checkPeer relies on the socket directory's mode where the system has no
// portable peer-credential call.
func checkPeer(net.Conn) error { return nil }
