package codemap

// SetMinRefreshInterval sets the minimum time between two rebuilds caused
// by misses and returns the previous value, for the tests.
var SetMinRefreshInterval = setMinRefreshInterval
