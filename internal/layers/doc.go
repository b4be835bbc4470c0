// Package layers holds the module's layering rule and its check: each
// top-level folder is a layer, and a package (its tests included) imports
// only packages of its own layer or of a lower one. Inside a folder with
// inner ranks ([InnerRank]) the same rule orders its packages, and a
// package listed in [Allowed] imports only the module's packages its list
// names (jit: executor's port, never rt beneath it). The test runs in
// `go test ./...`, so an import that runs back up fails CI.
package layers
