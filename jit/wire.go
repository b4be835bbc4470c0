//go:build linux && cgo

package jit

import "github.com/orcgo/orcrt/sps"

// The request table (tagAdd..., tagNames, readySymbol,
// controllerProtocol, kindObject, kindIR, the *Sig signatures) is
// generated from requests.txt, as is the controller's.
//go:generate go run ./internal/genrequests

// The executor publishes the requests' names (executor.Options.
// ControllerCalls), each at an address of its own that the controller
// only maps to its handler; controller.tags calls them.

// initializeResult is what a deferred call answers.
var initializeResult = sps.ExpectedOf(sps.AddrCodec)
