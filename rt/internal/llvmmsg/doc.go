// Package llvmmsg holds LLVM 22's own wrapper-function messages for
// orcrt's executor services, so their out-of-band errors read exactly as
// the stock executor's. They matter when a wrapper is run as an
// allocation action: the action runner forwards the callee's out-of-band
// message verbatim as the initialize error the controller sees (on the
// LLVM 22 wire a direct call's out-of-band error is an empty Result, so
// its text is not visible there). Safe for concurrent use.
package llvmmsg
