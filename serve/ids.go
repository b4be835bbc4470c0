package serve

import (
	"os/user"
	"strconv"
	"strings"
)

// UserIDs parses a comma-separated list of uids or user names (serve
// -allow-uid) for Config.AllowUIDs.
func UserIDs(list string) ([]int, error) { return parseIDs(list, lookupUser) }

// GroupIDs parses a comma-separated list of gids or group names (serve
// -allow-gid) for Config.AllowGIDs.
func GroupIDs(list string) ([]int, error) { return parseIDs(list, lookupGroup) }

// parseIDs parses a comma-separated list of numeric ids or names (looked
// up with lookup: user or group).
func parseIDs(list string, lookup func(string) (int, error)) ([]int, error) {
	var ids []int
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if n, err := strconv.Atoi(f); err == nil && n >= 0 {
			ids = append(ids, n)
			continue
		}
		n, err := lookup(f)
		if err != nil {
			return nil, err
		}
		ids = append(ids, n)
	}
	return ids, nil
}

func lookupUser(name string) (int, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return -1, err
	}
	return strconv.Atoi(u.Uid)
}

func lookupGroup(name string) (int, error) {
	g, err := user.LookupGroup(name)
	if err != nil {
		return -1, err
	}
	return strconv.Atoi(g.Gid)
}

// ParseSize parses a size for Config.RlimitAS (serve -rlimit-as): "",
// a byte count, or one with a K, M, G or T suffix (powers of 1024).
func ParseSize(s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	mult := uint64(1)
	if i := strings.IndexAny(s, "KkMmGgTt"); i >= 0 && i == len(s)-1 {
		mult = 1 << (10 * (1 + strings.IndexByte("KMGT", strings.ToUpper(s[i:])[0])))
		s = s[:i]
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, err
	}
	return n * mult, nil
}
