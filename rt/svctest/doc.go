// Package svctest is a test harness for orcrt's executor services: a real
// rt.Session (GoRunner dispatcher) attached to an in-process controller
// (rt.Loopback), so service tests call their wrapper functions by
// bootstrap name with raw SPS argument bytes, exactly as the controller
// would, and see the raw result (bytes, empty, or out-of-band error).
//
// Only tests import it. A Harness is safe for concurrent use; it shuts the
// Session down in t.Cleanup.
package svctest
