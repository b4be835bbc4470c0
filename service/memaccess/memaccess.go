package memaccess

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"unsafe"

	"github.com/orcgo/orcrt/internal/memfault"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/sps"
)

// LLVM 22 bootstrap symbol names (docs/protocol.md §3.2).
const (
	WriteUInt8sName   = "__llvm_orc_bootstrap_mem_write_uint8s_wrapper"
	WriteUInt16sName  = "__llvm_orc_bootstrap_mem_write_uint16s_wrapper"
	WriteUInt32sName  = "__llvm_orc_bootstrap_mem_write_uint32s_wrapper"
	WriteUInt64sName  = "__llvm_orc_bootstrap_mem_write_uint64s_wrapper"
	WritePointersName = "__llvm_orc_bootstrap_mem_write_pointers_wrapper"
	WriteBuffersName  = "__llvm_orc_bootstrap_mem_write_buffers_wrapper"
	ReadUInt8sName    = "__llvm_orc_bootstrap_mem_read_uint8s_wrapper"
	ReadUInt16sName   = "__llvm_orc_bootstrap_mem_read_uint16s_wrapper"
	ReadUInt32sName   = "__llvm_orc_bootstrap_mem_read_uint32s_wrapper"
	ReadUInt64sName   = "__llvm_orc_bootstrap_mem_read_uint64s_wrapper"
	ReadPointersName  = "__llvm_orc_bootstrap_mem_read_pointers_wrapper"
	ReadBuffersName   = "__llvm_orc_bootstrap_mem_read_buffers_wrapper"
	ReadStringsName   = "__llvm_orc_bootstrap_mem_read_strings_wrapper"
)

// Wrappers returns the 13 wrapper functions keyed by bootstrap name.
func Wrappers() map[string]rt.WrapperFunc {
	return map[string]rt.WrapperFunc{
		WriteUInt8sName:   wrap("write_uint8s", writeUInts[uint8]),
		WriteUInt16sName:  wrap("write_uint16s", writeUInts[uint16]),
		WriteUInt32sName:  wrap("write_uint32s", writeUInts[uint32]),
		WriteUInt64sName:  wrap("write_uint64s", writeUInts[uint64]),
		WritePointersName: wrap("write_pointers", writeUInts[uintptr]),
		WriteBuffersName:  wrap("write_buffers", writeBuffers),
		ReadUInt8sName:    wrap("read_uint8s", readUInts[uint8]),
		ReadUInt16sName:   wrap("read_uint16s", readUInts[uint16]),
		ReadUInt32sName:   wrap("read_uint32s", readUInts[uint32]),
		ReadUInt64sName:   wrap("read_uint64s", readUInts[uint64]),
		ReadPointersName:  wrap("read_pointers", readUInts[uintptr]),
		ReadBuffersName:   wrap("read_buffers", readBuffers),
		ReadStringsName:   wrap("read_strings", readStrings),
	}
}

// orcRTNames are orc-rt's names of the same functions
// (MemoryAccessSPSCI.cpp), which LLVM main's controller looks up; only
// read_buffers differs, taking (address, size) pairs (readBuffersSized).
var orcRTNames = map[string]string{
	WriteUInt8sName:   "orc_rt_ci_sps_mem_write_uint8s",
	WriteUInt16sName:  "orc_rt_ci_sps_mem_write_uint16s",
	WriteUInt32sName:  "orc_rt_ci_sps_mem_write_uint32s",
	WriteUInt64sName:  "orc_rt_ci_sps_mem_write_uint64s",
	WritePointersName: "orc_rt_ci_sps_mem_write_pointers",
	WriteBuffersName:  "orc_rt_ci_sps_mem_write_buffers",
	ReadUInt8sName:    "orc_rt_ci_sps_mem_read_uint8s",
	ReadUInt16sName:   "orc_rt_ci_sps_mem_read_uint16s",
	ReadUInt32sName:   "orc_rt_ci_sps_mem_read_uint32s",
	ReadUInt64sName:   "orc_rt_ci_sps_mem_read_uint64s",
	ReadPointersName:  "orc_rt_ci_sps_mem_read_pointers",
	ReadBuffersName:   "orc_rt_ci_sps_mem_read_buffers",
	ReadStringsName:   "orc_rt_ci_sps_mem_read_strings",
}

// legacyWrites are the access functions of dialects without MemReads.
var legacyWrites = map[string]bool{
	WriteUInt8sName: true, WriteUInt16sName: true, WriteUInt32sName: true,
	WriteUInt64sName: true, WriteBuffersName: true,
}

// Install registers the wrappers of the Session's dialect on s (all 13
// for LLVM 22, the five writes before it) and publishes them in syms.
func Install(s *rt.Session, syms *rt.SymbolTable) error {
	ws := Wrappers()
	list := make([]rt.Symbol, 0, len(ws))
	for name, fn := range ws {
		if !s.Dialect().MemReads && !legacyWrites[name] {
			continue
		}
		var a sps.Addr
		if name == WriteBuffersName {
			a = s.RegisterDirectWriter(fn, writeBuffersDirect)
		} else {
			a = s.RegisterWrapper(fn, rt.BorrowArgs)
		}
		list = append(list, rt.Symbol{Name: name, Addr: a})
		if s.Dialect().OrcRTNames {
			if name == ReadBuffersName {
				a = s.RegisterWrapper(wrap("read_buffers", readBuffersSized), rt.BorrowArgs)
			}
			list = append(list, rt.Symbol{Name: orcRTNames[name], Addr: a})
		}
	}
	if err := syms.AddUnique(list...); err != nil {
		return fmt.Errorf("memaccess: install: %w", err)
	}
	return nil
}

// result is what an access function returns: payload bytes or an
// out-of-band message.
type result struct {
	b       []byte
	oob     string
	badArgs bool // the dialect's argument-decoding error
}

func badArgs(err error) result {
	_ = err // the reason is not part of the wire result
	return result{badArgs: true}
}

// wrap adapts an access function: faults become out-of-band errors.
func wrap(name string, f func(args []byte) result) rt.WrapperFunc {
	return func(s *rt.Session, args []byte, ret rt.ReturnFunc) {
		r := guarded(name, f, args)
		switch {
		case r.badArgs:
			ret(rt.OutOfBandResult(s.Dialect().DeserializeArgs))
		case r.oob != "":
			ret(rt.OutOfBandResult(r.oob))
		default:
			ret(rt.ResultBytes(r.b))
		}
	}
}

func guarded(name string, f func([]byte) result, args []byte) (r result) {
	if at, faulted := memfault.Run(func() { r = f(args) }); faulted {
		return result{oob: faultAt(name, at)}
	}
	return r
}

// faultAt is the out-of-band message of a fault at addr.
func faultAt(name string, addr uintptr) string {
	if addr < zeroPage {
		return fmt.Sprintf("memaccess: %s: memory fault at an address in the zero page", name)
	}
	return fmt.Sprintf("memaccess: %s: memory fault at address %#x", name, addr)
}

// zeroPage bounds the addresses the Go runtime reports as nil
// dereferences.
const zeroPage = 0x1000

// writeBuffersDirect answers a write_buffers call whose one buffer the
// transport copied itself (rt.Session.RegisterDirectWriter), as
// writeBuffers answers.
func writeBuffersDirect(_ *rt.Session, fault *rt.WriteFault, ret rt.ReturnFunc) {
	if fault != nil {
		ret(rt.OutOfBandResult(faultAt("write_buffers", uintptr(fault.Addr))))
		return
	}
	ret(rt.ResultBytes(nil))
}

type uintN interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

// le decodes a little-endian T from b (len(b) >= sizeof(T)).
func le[T uintN](b []byte) T {
	switch unsafe.Sizeof(T(0)) {
	case 1:
		return T(b[0])
	case 2:
		return T(binary.LittleEndian.Uint16(b))
	case 4:
		return T(binary.LittleEndian.Uint32(b))
	default:
		return T(binary.LittleEndian.Uint64(b))
	}
}

func appendLE[T uintN](b []byte, v T) []byte {
	switch unsafe.Sizeof(T(0)) {
	case 1:
		return append(b, uint8(v))
	case 2:
		return binary.LittleEndian.AppendUint16(b, uint16(v))
	case 4:
		return binary.LittleEndian.AppendUint32(b, uint32(v))
	default:
		return binary.LittleEndian.AppendUint64(b, uint64(v))
	}
}

// writeUInts: void(SPSSequence<SPSTuple<SPSExecutorAddr, T>>).
func writeUInts[T uintN](args []byte) result {
	w := int(unsafe.Sizeof(T(0)))
	d := sps.NewDecoder(args)
	n := d.Count(8+w, "write elements")
	if d.Failed() {
		return badArgs(d.Err())
	}
	// Count guarantees n*(8+w) bytes follow.
	b := d.Rest()[: n*(8+w) : n*(8+w)]
	for len(b) > 0 {
		a := uintptr(binary.LittleEndian.Uint64(b))
		*(*T)(memfault.Ptr(a)) = le[T](b[8:])
		b = b[8+w:]
	}
	return result{}
}

// readUInts: SPSSequence<T>(SPSSequence<SPSExecutorAddr>).
func readUInts[T uintN](args []byte) result {
	w := int(unsafe.Sizeof(T(0)))
	d := sps.NewDecoder(args)
	n := d.Count(8, "addresses")
	if d.Failed() {
		return badArgs(d.Err())
	}
	in := d.Rest()[: 8*n : 8*n]
	out := make([]byte, 0, 8+n*w) // at most len(args) * w/8 bytes
	out = sps.AppendCount(out, n)
	for len(in) > 0 {
		a := uintptr(binary.LittleEndian.Uint64(in))
		out = appendLE(out, *(*T)(memfault.Ptr(a)))
		in = in[8:]
	}
	return result{b: out}
}

// writeBuffers: void(SPSSequence<SPSTuple<SPSExecutorAddr, SPSSequence<char>>>).
func writeBuffers(args []byte) result {
	d := sps.NewDecoder(args)
	n := d.Count(16, "buffer writes")
	for i := 0; i < n && !d.Failed(); i++ {
		d.Addr()
		d.Bytes()
	}
	if d.Failed() {
		return badArgs(d.Err())
	}
	d = sps.NewDecoder(args)
	n = d.Count(16, "buffer writes")
	for range n {
		a := uintptr(d.Addr())
		data := d.Bytes()
		if len(data) > 0 {
			copy(unsafe.Slice((*byte)(memfault.Ptr(a)), len(data)), data)
		}
	}
	return result{}
}

// readChunk bounds how much of a buffer is copied per step, so the result
// grows only as memory is actually read.
const readChunk = 1 << 20

// readBuffers: SPSSequence<SPSSequence<uint8_t>>(SPSSequence<SPSExecutorAddrRange>).
func readBuffers(args []byte) result { return readRanges(args, false) }

// readBuffersSized is orc-rt's read_buffers:
// SPSSequence<SPSSequence<char>>(SPSSequence<SPSTuple<SPSExecutorAddr, uint64_t>>).
func readBuffersSized(args []byte) result { return readRanges(args, true) }

// readRanges reads the buffers of a sequence of (start, end) pairs, or of
// (start, size) pairs if sized.
func readRanges(args []byte, sized bool) result {
	d := sps.NewDecoder(args)
	n := d.Count(16, "address ranges")
	if d.Failed() {
		return badArgs(d.Err())
	}
	ranges := d.Rest()[: 16*n : 16*n]
	var total uint64
	for i := range n {
		s, e := bufferAt(ranges, i, sized)
		if e < s {
			return result{oob: fmt.Sprintf("memaccess: read_buffers: inverted range [%#x, %#x)", s, e)}
		}
		if total+(e-s) < total || total+(e-s) > math.MaxInt/2 {
			return result{oob: "memaccess: read_buffers: total size overflows"}
		}
		total += e - s
	}
	out := make([]byte, 0, 8+16*n+int(min(total, readChunk)))
	out = sps.AppendCount(out, n)
	for i := range n {
		start, end := bufferAt(ranges, i, sized)
		s, size := uintptr(start), uintptr(end-start)
		out = sps.AppendCount(out, int(size))
		for size > 0 {
			c := min(size, readChunk)
			out = append(out, unsafe.Slice((*byte)(memfault.Ptr(s)), c)...)
			s += c
			size -= c
		}
	}
	return result{b: out}
}

var pageSize = uintptr(os.Getpagesize())

// readStrings: SPSSequence<SPSString>(SPSSequence<SPSExecutorAddr>).
func readStrings(args []byte) result {
	d := sps.NewDecoder(args)
	n := d.Count(8, "addresses")
	if d.Failed() {
		return badArgs(d.Err())
	}
	in := d.Rest()[: 8*n : 8*n]
	out := make([]byte, 0, 8+8*n)
	out = sps.AppendCount(out, n)
	for len(in) > 0 {
		a := uintptr(binary.LittleEndian.Uint64(in))
		in = in[8:]
		lenAt := len(out)
		out = sps.AppendCount(out, 0)
		// Scan page by page: if a page's first byte is readable, so is
		// the rest of the page, so no read goes past the terminator's
		// page.
		for {
			c := pageSize - a%pageSize
			view := unsafe.Slice((*byte)(memfault.Ptr(a)), c)
			if i := bytes.IndexByte(view, 0); i >= 0 {
				out = append(out, view[:i]...)
				break
			}
			out = append(out, view...)
			a += c
		}
		binary.LittleEndian.PutUint64(out[lenAt:], uint64(len(out)-lenAt-8))
	}
	return result{b: out}
}

// Readable reports, as an error naming the first faulting address,
// whether size bytes at addr can be read: it loads one byte of every page
// under SetPanicOnFault. Other services use it before handing a range the
// controller named to a system call or a copy.
func Readable(addr uintptr, size uint64) error {
	if size == 0 {
		return nil
	}
	if addr+uintptr(size)-1 < addr {
		return fmt.Errorf("memaccess: range %#x+%#x wraps around the address space", addr, size)
	}
	page := uintptr(os.Getpagesize())
	last := addr + uintptr(size) - 1
	var sink byte
	at, faulted := memfault.Run(func() {
		for p := addr; ; p = (p | (page - 1)) + 1 {
			sink |= *(*byte)(memfault.Ptr(p))
			if p|(page-1) >= last {
				break
			}
		}
		sink |= *(*byte)(memfault.Ptr(last))
	})
	_ = sink
	if faulted {
		return errors.New(faultAt("read probe", at))
	}
	return nil
}

// View returns size bytes of memory at addr as a slice, after Readable
// found them readable; nil for a size of 0. The slice aliases that memory:
// it is valid while the memory stays mapped.
func View(addr uintptr, size uint64) ([]byte, error) {
	if size == 0 {
		return nil, nil
	}
	if err := Readable(addr, size); err != nil {
		return nil, err
	}
	return unsafe.Slice((*byte)(memfault.Ptr(addr)), size), nil
}

// bufferAt returns the start and end of the i-th pair of ranges: (start,
// end), or (start, size) if sized (a size wrapping around gives an end
// below the start, refused as an inverted range).
func bufferAt(ranges []byte, i int, sized bool) (start, end uint64) {
	start = binary.LittleEndian.Uint64(ranges[16*i:])
	end = binary.LittleEndian.Uint64(ranges[16*i+8:])
	if sized {
		end += start
	}
	return start, end
}
