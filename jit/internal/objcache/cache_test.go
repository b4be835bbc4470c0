package objcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// testKey and testObject give the i'th test entry: deterministic, so that
// other processes agree on them, and each object distinct.
func testKey(i int) Key { return NewKey([]byte("test object"), []byte(strconv.Itoa(i))) }

func testObject(i int) []byte {
	n := 100 + i*613%3000
	b := make([]byte, 0, n+sha256.Size)
	block := sha256.Sum256([]byte(strconv.Itoa(i)))
	for len(b) < n {
		b = append(b, block[:]...)
		block = sha256.Sum256(block[:])
	}
	return b[:n]
}

func entrySize(obj []byte) int64 { return int64(headerSize + len(obj)) }

// entriesTotal returns the bytes of the entry files under dir.
func entriesTotal(t *testing.T, dir string) int64 {
	t.Helper()
	var total int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isHex(d.Name(), 64) {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		total += info.Size()
		return nil
	})
	require.NoError(t, err)
	return total
}

func exists(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Lstat(path)
	if err != nil {
		require.ErrorIs(t, err, fs.ErrNotExist)
	}
	return err == nil
}

// putMayFail is true where replacing or removing an open file fails, so
// that concurrent Puts may return errors.
var putMayFail = runtime.GOOS == "windows"

func TestRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "cache")
	c, err := Open(dir, 0)
	require.NoError(t, err)
	require.Equal(t, dir, c.Dir())
	if runtime.GOOS != "windows" {
		info, err := os.Stat(dir)
		require.NoError(t, err)
		require.Equal(t, fs.FileMode(0o700), info.Mode().Perm())
	}

	obj := testObject(1)
	require.NoError(t, c.Put(testKey(1), obj))
	require.NoError(t, c.Put(testKey(2), nil))

	got, ok := c.Get(testKey(1))
	require.True(t, ok)
	require.Equal(t, obj, got)
	got[0]++ // the caller owns it: the next Get is unaffected
	got, ok = c.Get(testKey(1))
	require.True(t, ok)
	require.Equal(t, obj, got)

	got, ok = c.Get(testKey(2))
	require.True(t, ok)
	require.Empty(t, got)

	got, ok = c.Get(testKey(3))
	require.False(t, ok)
	require.Nil(t, got)

	require.Equal(t, Stats{Hits: 3, Misses: 1}, c.Stats())
	require.Equal(t, entrySize(obj)+entrySize(nil), entriesTotal(t, dir))

	// Another Cache on the directory, as another process, finds them.
	c2, err := Open(dir, 0)
	require.NoError(t, err)
	got, ok = c2.Get(testKey(1))
	require.True(t, ok)
	require.Equal(t, obj, got)
}

func TestNewKey(t *testing.T) {
	k := NewKey([]byte("ab"), []byte("c"))
	require.Equal(t, k, NewKey([]byte("ab"), []byte("c")))
	require.NotEqual(t, k, NewKey([]byte("a"), []byte("bc")))
	require.NotEqual(t, k, NewKey([]byte("abc")))
	require.NotEqual(t, NewKey([]byte("a")), NewKey([]byte("a"), nil))
	require.NotEqual(t, NewKey(), NewKey(nil))
	require.Equal(t, NewKey(nil), NewKey([]byte{}))

	s := k.String()
	require.Len(t, s, 64)
	require.Equal(t, hex.EncodeToString(k[:]), s)
	require.True(t, isHex(s, 64))
}

func TestDefaultDir(t *testing.T) {
	base, err := os.UserCacheDir()
	if err != nil {
		_, err := DefaultDir()
		require.ErrorContains(t, err, "objcache: ")
		return
	}
	dir, err := DefaultDir()
	require.NoError(t, err)
	require.Equal(t, filepath.Join(base, "orcrt", "jit"), dir)
}

func TestOpenError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	_, err := Open(filepath.Join(file, "cache"), 0)
	require.ErrorContains(t, err, "objcache: ")
	var pathErr *fs.PathError
	require.ErrorAs(t, err, &pathErr)
}

func TestPutTooLarge(t *testing.T) {
	dir := t.TempDir()
	c, err := Open(dir, 1000)
	require.NoError(t, err)
	err = c.Put(testKey(1), make([]byte, 1000-headerSize+1))
	require.ErrorContains(t, err, "objcache: ")
	require.ErrorContains(t, err, "exceeds")
	require.NoError(t, c.Put(testKey(2), make([]byte, 1000-headerSize)))
	_, ok := c.Get(testKey(1))
	require.False(t, ok)
	_, ok = c.Get(testKey(2))
	require.True(t, ok)
}

func truncateTo(n int) func(t *testing.T, path string) {
	return func(t *testing.T, path string) { require.NoError(t, os.Truncate(path, int64(n))) }
}

func flipBit(offset int) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		if offset < 0 {
			offset += len(data)
		}
		data[offset] ^= 0x10
		require.NoError(t, os.WriteFile(path, data, 0o600))
	}
}

// TestCorruptEntry damages an entry in each way a crash, a disk or a
// person could, and checks that Get detects it (for the expected reason),
// misses, removes the file, counts it, and that the key works again.
func TestCorruptEntry(t *testing.T) {
	k, obj := testKey(7), testObject(7)
	size := headerSize + len(obj)
	tests := []struct {
		name   string
		damage func(t *testing.T, path string)
		reason string // in readEntry's error
	}{
		{"empty", truncateTo(0), "shorter than a header"},
		{"truncated in magic", truncateTo(5), "shorter than a header"},
		{"truncated in sum", truncateTo(headerSize - 1), "shorter than a header"},
		{"header only", truncateTo(headerSize), "header says"},
		{"truncated in object", truncateTo(headerSize + len(obj)/2), "header says"},
		{"last byte missing", truncateTo(size - 1), "header says"},
		{"byte appended", func(t *testing.T, path string) {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			require.NoError(t, err)
			_, err = f.Write([]byte{0})
			require.NoError(t, err)
			require.NoError(t, f.Close())
		}, "header says"},
		{"bit flipped in magic", flipBit(3), "bad magic"},
		{"bit flipped in version", flipBit(offVersion), "format version"},
		{"bit flipped in key", flipBit(offKey + 9), "another key"},
		{"bit flipped in length", flipBit(offLength), "header says"},
		{"length's top bit flipped", flipBit(offLength + 7), "header says"},
		{"bit flipped in sum", flipBit(offSum + 3), "checksum"},
		{"bit flipped in object's first byte", flipBit(headerSize), "checksum"},
		{"bit flipped in object's last byte", flipBit(-1), "checksum"},
		{"huge length", func(t *testing.T, path string) {
			// A hostile length must be refused before anything is allocated.
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			copy(data[offLength:], []byte{0, 0, 0, 0, 0, 0, 0, 0x40})
			require.NoError(t, os.WriteFile(path, data, 0o600))
		}, "header says"},
		{"another key's entry", func(t *testing.T, path string) {
			dir := filepath.Dir(filepath.Dir(path))
			c, err := Open(dir, 0)
			require.NoError(t, err)
			other := NewKey([]byte("other"))
			require.NoError(t, c.Put(other, obj)) // the same object: only the key differs
			require.NoError(t, os.Rename(c.path(other), path))
		}, "another key"},
		{"another object, same length", func(t *testing.T, path string) {
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			copy(data[headerSize:], testObject(8))
			require.NoError(t, os.WriteFile(path, data, 0o600))
		}, "checksum"},
		{"directory in its place", func(t *testing.T, path string) {
			require.NoError(t, os.Remove(path))
			require.NoError(t, os.Mkdir(path, 0o700))
		}, "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Open(t.TempDir(), 0)
			require.NoError(t, err)
			require.NoError(t, c.Put(k, obj))
			path := c.path(k)
			tt.damage(t, path)

			f, err := os.Open(path)
			require.NoError(t, err)
			info, err := f.Stat()
			require.NoError(t, err)
			_, err = readEntry(f, info, k)
			require.NoError(t, f.Close())
			require.ErrorContains(t, err, tt.reason)
			require.ErrorContains(t, err, "objcache: ")

			got, ok := c.Get(k)
			require.False(t, ok)
			require.Nil(t, got)
			require.False(t, exists(t, path), "the damaged entry is still there")
			require.Equal(t, Stats{Misses: 1, Corrupt: 1}, c.Stats())

			require.NoError(t, c.Put(k, obj))
			got, ok = c.Get(k)
			require.True(t, ok)
			require.Equal(t, obj, got)
			require.Equal(t, Stats{Hits: 1, Misses: 1, Corrupt: 1}, c.Stats())
		})
	}
}

// TestTemporaryFiles leaves a half-written temporary file, as a writer
// that died would: Get never reads it, and once it is stale a scan (at
// Open, or when a Put exceeds the bound) removes it, but not a fresh one,
// which may be a write in progress.
func TestTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	k, obj := testKey(3), testObject(3)
	c, err := Open(dir, 0)
	require.NoError(t, err)

	// A whole entry for k, then its first half as a temporary file.
	require.NoError(t, c.Put(k, obj))
	path := c.path(k)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.Remove(path))
	stale := filepath.Join(filepath.Dir(path), tempPrefix+"1234")
	fresh := filepath.Join(filepath.Dir(path), tempPrefix+"5678")
	require.NoError(t, os.WriteFile(stale, data[:len(data)/2], 0o600))
	require.NoError(t, os.WriteFile(fresh, data[:len(data)/2], 0o600))
	old := time.Now().Add(-2 * staleTempAge)
	require.NoError(t, os.Chtimes(stale, old, old))

	_, ok := c.Get(k)
	require.False(t, ok)
	require.Equal(t, Stats{Misses: 1}, c.Stats())
	require.True(t, exists(t, stale))

	c, err = Open(dir, 0)
	require.NoError(t, err)
	require.False(t, exists(t, stale), "a stale temporary file survived Open")
	require.True(t, exists(t, fresh), "Open removed a write in progress")
	require.Equal(t, Stats{StaleTemps: 1}, c.Stats())

	require.NoError(t, c.Put(k, obj))
	got, ok := c.Get(k)
	require.True(t, ok)
	require.Equal(t, obj, got)

	// Eviction, too, removes stale temporary files.
	require.NoError(t, os.Remove(fresh))
	c, err = Open(dir, 4*entrySize(obj))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(stale, data[:10], 0o600))
	require.NoError(t, os.Chtimes(stale, old, old))
	for i := 0; exists(t, stale); i++ {
		require.Less(t, i, 10, "no Put scanned the directory")
		require.NoError(t, c.Put(testKey(100+i), obj))
	}
	require.Equal(t, int64(1), c.Stats().StaleTemps)
	require.Positive(t, c.Stats().Evictions)
}

// TestEvictLRU fills a cache bounded to about four entries and checks
// that the least recently used go first, a Get counting as a use.
func TestEvictLRU(t *testing.T) {
	dir := t.TempDir()
	obj := make([]byte, 1000)
	size := entrySize(obj)
	maxBytes := 4*size + size/2 // evicting down to 90% keeps 4 entries
	c, err := Open(dir, maxBytes)
	require.NoError(t, err)

	key := func(name string) Key { return NewKey([]byte(name)) }
	for _, name := range []string{"a", "b", "c", "d"} {
		require.NoError(t, c.Put(key(name), obj))
	}
	require.Equal(t, int64(1), c.scans.Load(), "a Put within the bound scanned the directory")

	// File times are coarse on some file systems: set them apart.
	now := time.Now()
	for i, name := range []string{"a", "b", "c", "d"} {
		at := now.Add(time.Duration(i-4) * time.Hour)
		require.NoError(t, os.Chtimes(c.path(key(name)), at, at))
	}
	_, ok := c.Get(key("a")) // now the most recently used
	require.True(t, ok)

	present := func() (names string) {
		for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
			if exists(t, c.path(key(name))) {
				names += name
			}
		}
		return names
	}
	require.NoError(t, c.Put(key("e"), obj))
	require.Equal(t, "acde", present())
	require.LessOrEqual(t, entriesTotal(t, dir), maxBytes)
	require.NoError(t, c.Put(key("f"), obj))
	require.Equal(t, "adef", present())
	require.LessOrEqual(t, entriesTotal(t, dir), maxBytes)
	require.Equal(t, int64(2), c.Stats().Evictions)
	_, ok = c.Get(key("b"))
	require.False(t, ok)
}

// TestEvictBounded puts entries of assorted sizes into a small cache: the
// entries never exceed the bound, and the one just put stays.
func TestEvictBounded(t *testing.T) {
	dir := t.TempDir()
	const maxBytes = 20 << 10
	c, err := Open(dir, maxBytes)
	require.NoError(t, err)
	for i := range 200 {
		require.NoError(t, c.Put(testKey(i), testObject(i)))
		require.LessOrEqual(t, entriesTotal(t, dir), int64(maxBytes))
		got, ok := c.Get(testKey(i))
		require.True(t, ok)
		require.Equal(t, testObject(i), got)
	}
	require.Positive(t, c.Stats().Evictions)
	require.Less(t, c.scans.Load(), int64(200))

	// Reopened with a smaller bound, the cache shrinks at once.
	c, err = Open(dir, maxBytes/4)
	require.NoError(t, err)
	require.LessOrEqual(t, entriesTotal(t, dir), int64(maxBytes/4))
	require.Positive(t, c.Stats().Evictions)
}

// TestConcurrentGoroutines has goroutines Put and Get one set of keys
// through two Caches on one directory, small enough that eviction runs all
// the time; run it with -race.
func TestConcurrentGoroutines(t *testing.T) {
	dir := t.TempDir()
	caches := make([]*Cache, 2)
	for i := range caches {
		var err error
		caches[i], err = Open(dir, 24<<10)
		require.NoError(t, err)
	}
	const goroutines, ops, keys = 8, 300, 40
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			c := caches[g%len(caches)]
			for op := range ops {
				i := (g*7 + op*13) % keys
				if op%3 == 0 {
					if err := c.Put(testKey(i), testObject(i)); err != nil && !putMayFail {
						t.Errorf("Put %d: %v", i, err)
					}
					continue
				}
				if got, ok := c.Get(testKey(i)); ok && !bytes.Equal(got, testObject(i)) {
					t.Errorf("Get %d returned other bytes", i)
				}
			}
		})
	}
	wg.Wait()
	var total Stats
	for _, c := range caches {
		s := c.Stats()
		total.Hits += s.Hits
		total.Misses += s.Misses
		total.Corrupt += s.Corrupt
		total.Evictions += s.Evictions
	}
	require.Equal(t, int64(goroutines*ops*2/3), total.Hits+total.Misses)
	require.Positive(t, total.Hits)
	require.Positive(t, total.Evictions)
	if !putMayFail {
		require.Zero(t, total.Corrupt)
	}
	checkAll(t, dir, keys)
}

// checkAll opens the cache in dir and checks that each of the first n
// test keys either misses or returns exactly its object.
func checkAll(t *testing.T, dir string, n int) {
	t.Helper()
	c, err := Open(dir, 0)
	require.NoError(t, err)
	for i := range n {
		if got, ok := c.Get(testKey(i)); ok {
			require.Equal(t, testObject(i), got, "key %d", i)
		}
	}
	require.Zero(t, c.Stats().Corrupt)
}

// FuzzGet puts arbitrary bytes where an entry belongs: Get either misses
// and removes the file, or returns the object of an exactly valid entry.
func FuzzGet(f *testing.F) {
	k, obj := testKey(1), testObject(1)[:200]
	h := encodeHeader(k, obj)
	valid := append(h[:], obj...)
	f.Add(valid)
	f.Add([]byte{})
	f.Add(valid[:headerSize])
	f.Add(valid[:len(valid)-1])
	flipped := bytes.Clone(valid)
	flipped[offLength+7] ^= 1
	f.Add(flipped)
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Open(t.TempDir(), 0)
		require.NoError(t, err)
		path := c.path(k)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
		require.NoError(t, os.WriteFile(path, data, 0o600))
		got, ok := c.Get(k)
		if !ok {
			require.False(t, exists(t, path))
			require.Equal(t, int64(1), c.Stats().Corrupt)
			return
		}
		h := encodeHeader(k, got)
		require.Equal(t, data, append(h[:], got...))
	})
}

func TestIsHex(t *testing.T) {
	require.True(t, isHex("0a", 2))
	require.False(t, isHex("0A", 2))
	require.False(t, isHex("0g", 2))
	require.False(t, isHex("0a", 3))
	require.False(t, isHex(strings.Repeat("a", 63)+".", 64))
}
