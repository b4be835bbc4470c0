package keepalive_test

import (
	"fmt"

	"github.com/orcgo/orcrt/rt/keepalive"
)

// Example guards work with tokens: once the group is closed no new token
// is granted, and the completion callback runs when the last one is
// released.
func Example() {
	g := keepalive.New()
	g.AddOnComplete(func() { fmt.Println("last token released") })

	tok, ok := g.Acquire()
	fmt.Println("acquired:", ok)

	g.Close()
	_, ok = g.Acquire()
	fmt.Println("acquired after Close:", ok)

	tok.Release()
	// Output:
	// acquired: true
	// acquired after Close: false
	// last token released
}
