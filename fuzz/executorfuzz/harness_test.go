//go:build cgo && linux

package executorfuzz

import (
	"encoding/binary"
	"maps"
	"slices"

	"github.com/orcgo/orcrt/alloc"
	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/service/ehframe"
	"github.com/orcgo/orcrt/service/entry"
	"github.com/orcgo/orcrt/service/memaccess"
	"github.com/orcgo/orcrt/sps"
)

// excluded are the bootstrap functions on the trusted side of the
// boundary (see the package documentation): fuzzed only with confined
// arguments (FuzzConfinedWrappers), never named by a placeholder.
var excluded = map[string]bool{
	memaccess.WriteUInt8sName:   true,
	memaccess.WriteUInt16sName:  true,
	memaccess.WriteUInt32sName:  true,
	memaccess.WriteUInt64sName:  true,
	memaccess.WritePointersName: true,
	memaccess.WriteBuffersName:  true,
	memaccess.ReadBuffersName:   true,
	memaccess.ReadStringsName:   true,
	entry.RunAsMainName:         true,
	entry.RunAsVoidFunctionName: true,
	entry.RunAsIntFunctionName:  true,
	ehframe.RegisterActionName:  true,
	// LLVM 14-19's EH-frame registration: libgcc's, like 22's action.
	"__llvm_orc_bootstrap_register_ehframe_section_wrapper": true,
	"llvm_orc_registerEHFrameSectionWrapper":                true,
	"__llvm_orc_SimpleRemoteEPC_dispatch_fn":                false, // a C function: calls with the wrapper ABI get "not available"
	// A C function of the host API, int orcrt_export(const char *, void *),
	// not a wrapper: called as one it reads a string at the argument bytes
	// and its int comes back as a result's size (a fuzzed input made the
	// executor allocate one and run out of memory).
	executor.ExportSymbol: true,
	// orc-rt's read_buffers, LLVM main's: (address, size) pairs.
	"orc_rt_ci_sps_mem_read_buffers": true,
}

// Placeholder encoding: 0xFA110C0D in the high 32 bits, then kind (8
// bits) and index (24 bits).
const (
	phMagic     = 0xFA110C0D
	kindSymbol  = 0
	kindReserve = 1
	kindSeen    = 2
	kindHandle  = 3
	kindShared  = 4
)

func placeholder(kind, idx uint32) uint64 {
	return phMagic<<32 | uint64(kind)<<24 | uint64(idx&0xffffff)
}

func phSym(i int) uint64          { return placeholder(kindSymbol, uint32(i)) }
func phRes(k, off int) uint64     { return placeholder(kindReserve, uint32(k)<<16|uint32(off)) }
func phSeen(k, off int) uint64    { return placeholder(kindSeen, uint32(k)<<16|uint32(off)) }
func phHandle(k int) uint64       { return placeholder(kindHandle, uint32(k)) }
func phShared(k, off int) uint64  { return placeholder(kindShared, uint32(k)<<16|uint32(off)) }
func addrPh(v uint64) sps.Addr    { return sps.Addr(v) }
func le64(v uint64) []byte        { return binary.LittleEndian.AppendUint64(nil, v) }
func cat(bs ...[]byte) []byte     { return slices.Concat(bs...) }
func isPlaceholder(v uint64) bool { return v>>32 == phMagic }
func phKind(v uint64) (uint32, int, int) {
	idx := uint32(v) & 0xffffff
	return uint32(v>>24) & 0xff, int(idx >> 16), int(idx & 0xffff)
}

// world is what placeholders resolve against.
type world struct {
	names    []string            // fuzzed bootstrap names, sorted
	addr     map[string]sps.Addr // all bootstrap symbols
	byAddr   map[sps.Addr]string
	reserved []sps.Addr // kindReserve bases
	seen     []sps.Addr // kindSeen addresses (FuzzWrappers)
	handles  []sps.Addr // kindHandle dylib handles (FuzzWrappers): the process, libm
	shared   []sps.Addr // kindShared bases: shared-memory reservations (FuzzWrappers)
}

func newWorld(ex *executor.Executor) *world {
	w := &world{addr: map[string]sps.Addr{}, byAddr: map[sps.Addr]string{}}
	// The bootstrap symbols, and the functions older dialects' controllers
	// find by a process lookup.
	all := maps.Collect(ex.Symbols().All())
	maps.Copy(all, ex.DylibManager().ProcessSymbols())
	for name, a := range all {
		w.addr[name] = a
		w.byAddr[a] = name
		if !excluded[name] {
			w.names = append(w.names, name)
		}
	}
	slices.Sort(w.names)
	return w
}

// sym returns the placeholder index of a fuzzed bootstrap name.
func (w *world) sym(name string) int {
	i, ok := slices.BinarySearch(w.names, name)
	if !ok {
		panic("executorfuzz: not a fuzzed bootstrap name: " + name)
	}
	return i
}

// resolve maps a placeholder to an address; ok is false for values that
// are not placeholders or name nothing.
func (w *world) resolve(v uint64) (sps.Addr, bool) {
	if !isPlaceholder(v) {
		return 0, false
	}
	kind, k, off := phKind(v)
	switch kind {
	case kindSymbol:
		if len(w.names) == 0 {
			return 0, false
		}
		return w.addr[w.names[(k<<16|off)%len(w.names)]], true
	case kindReserve:
		if len(w.reserved) == 0 {
			return 0, false
		}
		return w.reserved[k%len(w.reserved)] + sps.Addr(off), true
	case kindSeen:
		if len(w.seen) == 0 {
			return 0, false
		}
		return w.seen[k%len(w.seen)] + sps.Addr(off), true
	case kindHandle:
		if len(w.handles) == 0 {
			return 0, false
		}
		return w.handles[(k<<16|off)%len(w.handles)], true
	case kindShared:
		if len(w.shared) == 0 {
			return 0, false
		}
		return w.shared[k%len(w.shared)] + sps.Addr(off), true
	}
	return 0, false
}

// substitute replaces every placeholder in b (any offset, in place on a
// copy) by the address it names.
func (w *world) substitute(b []byte) []byte {
	out := b
	copied := false
	for i := 0; i+8 <= len(out); {
		if binary.LittleEndian.Uint32(out[i+4:]) != phMagic {
			i++
			continue
		}
		a, ok := w.resolve(binary.LittleEndian.Uint64(out[i:]))
		if !ok {
			i++
			continue
		}
		if !copied {
			out, copied = slices.Clone(out), true
		}
		binary.LittleEndian.PutUint64(out[i:], uint64(a))
		i += 8
	}
	return out
}

// codeAddr sanitizes an address the executor will call natively (a
// CallWrapper target, an action's function): a placeholder for a fuzzed
// bootstrap function, or a value below 0x10000 (never mapped), passes;
// anything else is moved to a non-canonical address, so a random number
// can never name real code, while still exercising the code guard.
func (w *world) codeAddr(v uint64) sps.Addr {
	if isPlaceholder(v) {
		if kind, _, _ := phKind(v); kind == kindSymbol {
			a, _ := w.resolve(v)
			return a
		}
	}
	if v < 0x10000 {
		return sps.Addr(v)
	}
	if _, ok := w.byAddr[sps.Addr(v)]; ok && !excluded[w.byAddr[sps.Addr(v)]] {
		return sps.Addr(v) // a fuzzed bootstrap function's real address
	}
	return sps.Addr(v | 1<<63)
}

// sanitizeActions rewrites the function addresses of allocation actions
// with codeAddr (placeholders in arguments are substituted first).
func (w *world) sanitizeActions(pairs []sps.ActionPair) {
	for i := range pairs {
		for _, c := range []*sps.WrapperCall{&pairs[i].Finalize, &pairs[i].Dealloc} {
			if c.Fn != 0 {
				c.Fn = w.codeAddr(uint64(c.Fn))
			}
			c.Args = w.substitute(c.Args)
		}
	}
}

// sanitizeArgs prepares the argument bytes of a call to the bootstrap
// function name: placeholders substituted; for the two initialize
// wrappers, action addresses sanitized (requests that do not decode are
// passed on as they are: the wrapper refuses them the same way).
func (w *world) sanitizeArgs(name string, args []byte) []byte {
	switch name {
	case alloc.MemoryManagerInitializeName, alloc.MemoryManagerFinalizeName: // same arguments
		d := sps.NewDecoder(args)
		inst := d.Addr()
		var fr sps.FinalizeRequest
		fr.Decode(&d)
		if d.Failed() {
			return w.substitute(args)
		}
		w.sanitizeActions(fr.Actions)
		for i := range fr.Segments {
			fr.Segments[i].Addr = w.dataAddr(fr.Segments[i].Addr)
		}
		return sps.MemoryManagerInitialize.AppendArgs(nil, w.dataAddr(inst), fr)
	case alloc.SharedMapperInitializeName:
		inst, resv, fr, err := sps.SharedMemoryInitialize.DecodeArgs(args)
		if err != nil {
			return w.substitute(args)
		}
		w.sanitizeActions(fr.Actions)
		for i := range fr.Segments {
			fr.Segments[i].Addr = w.dataAddr(fr.Segments[i].Addr)
		}
		return sps.SharedMemoryInitialize.AppendArgs(nil, w.dataAddr(inst), w.dataAddr(resv), fr)
	}
	return w.substitute(args)
}

// dataAddr resolves a placeholder in a decoded address field.
func (w *world) dataAddr(a sps.Addr) sps.Addr {
	if r, ok := w.resolve(uint64(a)); ok {
		return r
	}
	return a
}
