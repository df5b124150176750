//go:build !unix

package main

import "errors"

func startDetached(string, []string) error {
	return errors.New("the resident engine needs a unix system")
}
