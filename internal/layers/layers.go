package layers

// Rank gives each top-level folder its layer, bottom (0) to top. Folders
// of equal rank are one layer. README.md draws the same table.
var Rank = map[string]int{
	"internal": 0, // system calls and test plumbing
	"sps":      1, // the SPS codec
	"arch":     1, // page size, instruction-cache maintenance
	"slab":     2, // executable memory
	"rt":       3, // Session, keepalive, native calls, wire protocol, dialects
	"service":  4, // bootstrap services other than memory
	"alloc":    5, // memory manager, allocation actions, shared memory
	"executor": 6, // the composition root Go hosts use
	"cmd":      7,
	"examples": 7,
	"fuzz":     7,
	"bench":    7,
}
