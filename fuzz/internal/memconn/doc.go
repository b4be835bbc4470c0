// Package memconn is the in-memory connection the wire fuzz targets
// (fuzz/wirefuzz, fuzz/executorfuzz) feed a Session through: the first
// input byte picks a [Mode] (read chunk size, whether the stream ends in
// EOF or silence, whether to detach locally at once, whether calls run
// concurrently), [Conn] serves the rest in chunks and collects what the
// executor writes, and [CheckOutput] verifies what an executor wrote as
// any controller relies on it.
//
// A Conn is safe for one reader and any number of writers and closers at
// once. [Conn.Output] returns a copy owned by the caller.
package memconn
