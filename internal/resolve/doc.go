// Package resolve resolves host names with libc's getaddrinfo, through
// cgo, as the stock executor does: [TCP] gives the addresses of a TCP
// host and port. rt/simpleremote uses it so as not to link package net's
// resolver. It builds on Linux with cgo only.
package resolve
