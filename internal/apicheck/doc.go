// Package apicheck holds the module's API compatibility check (issue 41),
// as tests that run in `go test ./...`: TestAPI compares the exported API
// of every library package (not internal/, cmd/, examples/, bench/ or
// fuzz/) on linux/amd64 with cgo against the last release's, recorded in
// api/vX.Y.Z.export (golang.org/x/exp/apidiff's module export data) and
// api/vX.Y.Z.txt (the same API as text, deprecated names marked).
//
// Additions, new packages included, pass. An incompatible change (a
// removed or changed exported name, by apidiff's rules) fails unless
// CHANGELOG.md names it in a section of a new minor version, and a
// removed name must have been marked "Deprecated:" in the recorded API
// (itself, its type or its package). A release records its API with
//
//	go test ./internal/apicheck -run '^TestAPI$' -record v0.2.0
//
// (`make api-release VERSION=v0.2.0` also tags it). A human's full
// report: go tool apidiff -m api/v0.1.0.export github.com/orcgo/orcrt
package apicheck
