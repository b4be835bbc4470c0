// Package rtbench measures the rt runtime's call paths end to end: a
// typed SPS wrapper call made by the in-process (loopback) controller,
// through the Session's keepalive, dispatch and function table, and back,
// beside a direct in-process call of the same handler as the reference.
// It has no non-test code.
package rtbench
