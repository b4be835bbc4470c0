// Package crashers provides native code that crashes in the ways JIT'd
// code can, for fatalsig's tests. Only tests import it.
package crashers
