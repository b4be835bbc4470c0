// Package crashers provides native code that crashes in the ways JIT'd
// code can, for the tests of native/fatalsig and native/faultreport. Only
// tests import it.
package crashers
