package objcache

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMaxBytes bounds the entries of a cache opened with maxBytes <= 0.
const DefaultMaxBytes = 256 << 20

// The entry file format: a header, then the object.
//
//	magic    "orcrt-objcache"
//	version  1 byte
//	key      32 bytes, the Key the file must be named after
//	length   uint64, little-endian: the object's length
//	sum      SHA-256 of the header up to here, then of the object
const (
	magic         = "orcrt-objcache"
	formatVersion = 1

	offVersion = len(magic)
	offKey     = offVersion + 1
	offLength  = offKey + len(Key{})
	offSum     = offLength + 8
	headerSize = offSum + sha256.Size
)

const (
	// tempPrefix starts the names of files being written; no entry name
	// (64 hex digits) starts with it, so Get never opens one.
	tempPrefix = ".tmp-"
	// staleTempAge is how old a temporary file must be before eviction
	// removes it: a Put writes its file in far less, so an older one was
	// left by a writer that died.
	staleTempAge = 10 * time.Minute
	// touchInterval is how stale a hit's modification time may get before
	// Get refreshes it: LRU order needs no finer grain than this, and most
	// hits then cost no write to the file system.
	touchInterval = time.Minute
)

// Key identifies an entry: a SHA-256 over every input that affects the
// object (the source, its language, flags, target, compiler version, ...).
type Key [32]byte

// NewKey hashes parts into a Key, each prefixed by its length so that
// ("ab", "c") and ("a", "bc") give different keys.
func NewKey(parts ...[]byte) Key {
	h := sha256.New()
	var n [8]byte
	for _, p := range parts {
		binary.LittleEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write(p)
	}
	var k Key
	h.Sum(k[:0])
	return k
}

// String returns k in lower-case hex, the name of its entry's file.
func (k Key) String() string { return hex.EncodeToString(k[:]) }

// Stats counts what one Cache has done since Open (not what other
// processes sharing its directory did).
type Stats struct {
	Hits       int64 // Gets that returned an object
	Misses     int64 // Gets that did not, Corrupt ones included
	Corrupt    int64 // damaged entries that Get found and removed
	Evictions  int64 // entries removed to keep the cache within its bound
	StaleTemps int64 // temporary files of dead writers removed
}

// Cache is a directory of entries, at most maxBytes of them (in file
// sizes). Its methods are safe for concurrent use, also by other processes
// opening the same directory.
type Cache struct {
	dir      string
	maxBytes int64

	// approxBytes estimates the bytes in entries: the last scan's total
	// plus what this process's Puts added since. It spares Put a scan of
	// the directory until the estimate exceeds maxBytes; other processes'
	// Puts and overwritten entries make it inexact, and the scan corrects
	// it.
	approxBytes atomic.Int64
	trimMu      sync.Mutex // one scan and eviction at a time in this process

	hits, misses, corrupt, evictions, staleTemps atomic.Int64
	scans                                        atomic.Int64 // directory scans, for tests
}

// Open opens the cache in dir, creating the directory (mode 0o700) if
// needed, and bounds its entries to maxBytes (<= 0: DefaultMaxBytes). It
// scans dir to learn its size, evicting entries if it holds more.
func Open(dir string, maxBytes int64) (*Cache, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("objcache: %w", err)
	}
	c := &Cache{dir: dir, maxBytes: maxBytes}
	c.trimMu.Lock()
	defer c.trimMu.Unlock()
	if err := c.trimLocked(); err != nil {
		return nil, err
	}
	return c, nil
}

// DefaultDir returns the cache directory of package jit: "orcrt/jit" in
// the user's cache directory ([os.UserCacheDir]).
func DefaultDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("objcache: %w", err)
	}
	return filepath.Join(base, "orcrt", "jit"), nil
}

// Dir returns the cache's directory.
func (c *Cache) Dir() string { return c.dir }

// Stats returns the counters of c.
func (c *Cache) Stats() Stats {
	return Stats{
		Hits:       c.hits.Load(),
		Misses:     c.misses.Load(),
		Corrupt:    c.corrupt.Load(),
		Evictions:  c.evictions.Load(),
		StaleTemps: c.staleTemps.Load(),
	}
}

// path returns where the entry for k lives: fanned out into 256
// subdirectories by its first two hex digits, to keep directories short.
func (c *Cache) path(k Key) string {
	name := k.String()
	return filepath.Join(c.dir, name[:2], name)
}

// Get returns the object stored under k, or ok == false. An entry that
// fails its checks (truncated, altered, another key's) is removed and
// reported as a miss, as is any error: a broken cache only costs a compile.
// A hit marks the entry recently used.
func (c *Cache) Get(k Key) (obj []byte, ok bool) {
	path := c.path(k)
	f, err := os.Open(path)
	if err != nil {
		c.misses.Add(1) // usually not there; unreadable is no different
		return nil, false
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		c.misses.Add(1)
		return nil, false
	}
	obj, err = readEntry(f, info, k)
	f.Close() // before removing or touching it, which Windows refuses on an open file
	if err != nil {
		c.misses.Add(1)
		c.corrupt.Add(1)
		removeIfSame(path, info)
		return nil, false
	}
	c.hits.Add(1)
	if now := time.Now(); now.Sub(info.ModTime()) > touchInterval {
		// A failed touch only makes the entry look older than it is.
		_ = os.Chtimes(path, now, now)
	}
	return obj, true
}

// readEntry reads the entry for k from r, a file described by info, and
// checks it. It allocates the object's buffer only once the header's
// length agrees with the file's size, so a damaged or hostile length
// cannot make it allocate more than the file holds.
func readEntry(r io.Reader, info fs.FileInfo, k Key) ([]byte, error) {
	if !info.Mode().IsRegular() {
		return nil, errors.New("objcache: entry is not a regular file")
	}
	payload := info.Size() - int64(headerSize)
	if payload < 0 {
		return nil, fmt.Errorf("objcache: entry of %d bytes is shorter than a header", info.Size())
	}
	var h [headerSize]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, fmt.Errorf("objcache: reading entry header: %w", err)
	}
	if string(h[:offVersion]) != magic {
		return nil, errors.New("objcache: entry has a bad magic")
	}
	if h[offVersion] != formatVersion {
		return nil, fmt.Errorf("objcache: entry has format version %d, want %d", h[offVersion], formatVersion)
	}
	if Key(h[offKey:offLength]) != k {
		return nil, errors.New("objcache: entry holds another key")
	}
	n := binary.LittleEndian.Uint64(h[offLength:offSum])
	if n != uint64(payload) {
		return nil, fmt.Errorf("objcache: entry header says %d bytes, the file holds %d", n, payload)
	}
	obj := make([]byte, n)
	if _, err := io.ReadFull(r, obj); err != nil {
		return nil, fmt.Errorf("objcache: reading entry: %w", err)
	}
	if entrySum(h[:offSum], obj) != [sha256.Size]byte(h[offSum:]) {
		return nil, errors.New("objcache: entry checksum mismatch")
	}
	return obj, nil
}

// encodeHeader returns the header of the entry storing obj under k.
func encodeHeader(k Key, obj []byte) [headerSize]byte {
	var h [headerSize]byte
	copy(h[:], magic)
	h[offVersion] = formatVersion
	copy(h[offKey:], k[:])
	binary.LittleEndian.PutUint64(h[offLength:], uint64(len(obj)))
	sum := entrySum(h[:offSum], obj)
	copy(h[offSum:], sum[:])
	return h
}

// entrySum covers the header as well as the object so that a damaged
// length or key cannot pass with an intact object.
func entrySum(headerFields, obj []byte) [sha256.Size]byte {
	s := sha256.New()
	s.Write(headerFields)
	s.Write(obj)
	var sum [sha256.Size]byte
	s.Sum(sum[:0])
	return sum
}

// removeIfSame removes the damaged entry at path, unless a writer has
// renamed a new entry over it since it was opened.
func removeIfSame(path string, damaged fs.FileInfo) {
	if cur, err := os.Lstat(path); err == nil && os.SameFile(cur, damaged) {
		_ = os.Remove(path) // if it fails, the next Get tries again
	}
}

// Put stores obj under k, replacing any entry there, then evicts the
// entries least recently used while the cache holds more than its bound.
// An eviction error is returned after obj was stored.
func (c *Cache) Put(k Key, obj []byte) error {
	size := int64(headerSize) + int64(len(obj))
	if size > c.maxBytes {
		return fmt.Errorf("objcache: an entry of %d bytes exceeds the cache's bound of %d", size, c.maxBytes)
	}
	path := c.path(k)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("objcache: %w", err)
	}
	if err := writeEntry(path, k, obj); err != nil {
		return err
	}
	if c.approxBytes.Add(size) > c.maxBytes {
		return c.trimIfOver()
	}
	return nil
}

// writeEntry writes the entry to a temporary file beside path and renames
// it to path, so that readers, in this process or another, see the whole
// entry or none, and concurrent writers of one key leave one whole entry.
func writeEntry(path string, k Key, obj []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), tempPrefix+"*")
	if err != nil {
		return fmt.Errorf("objcache: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	h := encodeHeader(k, obj)
	if _, err := f.Write(h[:]); err != nil {
		return fmt.Errorf("objcache: %w", err)
	}
	if _, err := f.Write(obj); err != nil {
		return fmt.Errorf("objcache: %w", err)
	}
	// No f.Sync: the rename alone makes the entry appear whole to every
	// reader while the system runs. After a power loss the renamed file
	// may be empty or garbage, which Get's checks turn into a miss; a
	// cache needs no durability, and a sync would cost every Put a disk
	// flush.
	if err := f.Close(); err != nil {
		return fmt.Errorf("objcache: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("objcache: %w", err)
	}
	return nil
}

// trimIfOver scans and evicts if the estimate still exceeds the bound once
// it holds trimMu: Puts that waited for another goroutine's eviction find
// the work done.
func (c *Cache) trimIfOver() error {
	c.trimMu.Lock()
	defer c.trimMu.Unlock()
	if c.approxBytes.Load() <= c.maxBytes {
		return nil
	}
	return c.trimLocked()
}

// trimLocked scans the directory, removing stale temporary files, and if
// the entries exceed maxBytes evicts the least recently used down to 90%
// of it, so that the next Puts need no scan. Files another process removes
// meanwhile are skipped; the first other error is returned after
// evicting what could be.
func (c *Cache) trimLocked() error {
	shards, err := os.ReadDir(c.dir)
	if err != nil {
		return fmt.Errorf("objcache: %w", err) // approxBytes stays, so a later Put tries again
	}
	entries, total, err := c.scan(shards)
	if total > c.maxBytes {
		slices.SortFunc(entries, func(a, b entryFile) int {
			return cmp.Or(a.modTime.Compare(b.modTime), strings.Compare(a.path, b.path))
		})
		lowWater := c.maxBytes - c.maxBytes/10
		for _, e := range entries {
			if total <= lowWater {
				break
			}
			rmErr := os.Remove(e.path)
			if rmErr == nil {
				c.evictions.Add(1)
			}
			if rmErr == nil || errors.Is(rmErr, fs.ErrNotExist) {
				total -= e.size
			}
		}
	}
	c.approxBytes.Store(total)
	return err
}

// entryFile is an entry found by scan.
type entryFile struct {
	path    string
	size    int64
	modTime time.Time
}

// scan lists the entries in shards, the cache directory's contents, and
// their total size, and removes temporary files older than staleTempAge.
// Files it does not know, by name, it leaves alone.
func (c *Cache) scan(shards []fs.DirEntry) (entries []entryFile, total int64, err error) {
	c.scans.Add(1)
	staleBefore := time.Now().Add(-staleTempAge)
	for _, shard := range shards {
		if !shard.IsDir() || !isHex(shard.Name(), 2) {
			continue
		}
		shardDir := filepath.Join(c.dir, shard.Name())
		files, readErr := os.ReadDir(shardDir)
		if readErr != nil {
			if err == nil {
				err = fmt.Errorf("objcache: %w", readErr)
			}
			continue
		}
		for _, f := range files {
			name := f.Name()
			isEntry := isHex(name, 2*len(Key{})) && name[:2] == shard.Name()
			isTemp := strings.HasPrefix(name, tempPrefix)
			if !isEntry && !isTemp {
				continue
			}
			info, infoErr := f.Info()
			if infoErr != nil {
				continue // removed since ReadDir, by another process
			}
			path := filepath.Join(shardDir, name)
			switch {
			case isTemp:
				if info.ModTime().Before(staleBefore) && os.Remove(path) == nil {
					c.staleTemps.Add(1)
				}
			case info.Mode().IsRegular():
				entries = append(entries, entryFile{path, info.Size(), info.ModTime()})
				total += info.Size()
			}
		}
	}
	return entries, total, err
}

// isHex reports whether s is n lower-case hex digits, as Key.String writes.
func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := range len(s) {
		if !('0' <= s[i] && s[i] <= '9' || 'a' <= s[i] && s[i] <= 'f') {
			return false
		}
	}
	return true
}
