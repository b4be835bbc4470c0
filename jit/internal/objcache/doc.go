// Package objcache keeps compiled object files on disk, keyed by a hash of
// every input that went into compiling them, so that a compile done once
// need not be done again.
//
// Each entry is one file holding a header (the key, the length and a
// SHA-256 of header and object) and the object. A file that is truncated,
// altered or stored under the wrong name fails the check, is deleted and
// counts as a miss: [Cache.Get] never returns bytes that [Cache.Put] did
// not store under that key. The cache is bounded in size; the entries
// least recently used (by file modification time) are evicted first.
//
// # Concurrency and ownership
//
// A [Cache] is safe for concurrent use, and several processes may share
// one directory: Put writes a temporary file and renames it into place, so
// a reader finds a whole entry or none, and eviction by one process costs
// another at most a miss. On Windows, where an open file cannot be
// replaced or removed, such a race may also fail a Put or leave a file for
// the next eviction.
//
// Get returns a new slice the caller owns; Put only reads obj during the
// call.
package objcache
