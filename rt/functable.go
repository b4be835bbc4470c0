package rt

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/orcgo/orcrt/sps"
)

// UnknownTargetFunc handles a controller call whose target address has no
// registered wrapper function. The executor installs one that calls JIT'd
// code at that address natively; the default answers with an out-of-band
// error naming the address.
type UnknownTargetFunc func(s *Session, target sps.Addr, args []byte, ret ReturnFunc)

// wrapperEntry and instanceEntry are the non-zero-sized Go objects whose
// addresses become executor addresses (RATIONALE.md, "rt").
type wrapperEntry struct {
	fn     WrapperFunc
	direct DirectWriteFunc // RegisterDirectWriter's second form, or nil
	borrow bool            // registered with BorrowArgs
}

// unknownEntry is the installed unknown-target handler.
type unknownEntry struct {
	fn     UnknownTargetFunc
	borrow bool
}

// WrapperOption modifies the registration of a wrapper function
// ([Session.RegisterWrapper]) or an unknown-target handler
// ([Session.SetUnknownTargetHandler]).
type WrapperOption uint8

const (
	// BorrowArgs registers a function that only borrows its arguments:
	// once it has returned and called ret, neither it nor anything it
	// started uses args or any view into it, and its result does not
	// alias args. The ControllerAccess may then recycle the buffer
	// ([SessionHandle.HandleWrapperCallReleasing]).
	BorrowArgs WrapperOption = 1 << iota
)

func borrows(opts []WrapperOption) bool {
	var o WrapperOption
	for _, x := range opts {
		o |= x
	}
	return o&BorrowArgs != 0
}

type instanceEntry struct {
	obj any
}

func addrOf[T any](p *T) sps.Addr { return sps.Addr(uintptr(unsafe.Pointer(p))) }

// RegisterWrapper makes fn callable by the controller and returns its
// unique, non-zero executor address; each call registers a new entry.
// With [BorrowArgs] fn only borrows its arguments.
func (s *Session) RegisterWrapper(fn WrapperFunc, opts ...WrapperOption) sps.Addr {
	if fn == nil {
		panic("rt: RegisterWrapper with a nil function")
	}
	e := &wrapperEntry{fn: fn, borrow: borrows(opts)}
	a := addrOf(e)
	s.funcs.Store(a, e)
	return a
}

// DirectWriteFunc answers a call of a function registered with
// [Session.RegisterDirectWriter] whose argument, a single buffer write,
// the ControllerAccess has already copied to its address while reading it
// ([SessionHandle.BeginDirectWrite]). fault is nil when every byte was
// written.
type DirectWriteFunc func(s *Session, fault *WriteFault, ret ReturnFunc)

// WriteFault says where a direct write stopped: the first address it
// could not write (to the page: a copy writes in blocks).
type WriteFault struct{ Addr sps.Addr }

// RegisterDirectWriter is [Session.RegisterWrapper] for a buffer-writing
// function: fn's argument is an SPS sequence of (address, bytes) writes
// and its only effect is copying each to its address, in order, as
// mem_write_buffers. A ControllerAccess may then copy a call's single
// write straight from the connection to its address, sparing the copy
// through an argument buffer, and answer the call with direct instead
// of fn. fn always borrows its arguments.
func (s *Session) RegisterDirectWriter(fn WrapperFunc, direct DirectWriteFunc) sps.Addr {
	if fn == nil || direct == nil {
		panic("rt: RegisterDirectWriter with a nil function")
	}
	e := &wrapperEntry{fn: fn, direct: direct, borrow: true}
	a := addrOf(e)
	s.funcs.Store(a, e)
	return a
}

// LookupWrapper returns the wrapper function registered at addr.
func (s *Session) LookupWrapper(addr sps.Addr) (WrapperFunc, bool) {
	if e := s.lookupWrapper(addr); e != nil {
		return e.fn, true
	}
	return nil, false
}

// WrapperBorrowsArgs reports whether the wrapper at addr was registered
// with [BorrowArgs]; callers reusing their buffers give others a copy.
func (s *Session) WrapperBorrowsArgs(addr sps.Addr) bool {
	e := s.lookupWrapper(addr)
	return e != nil && e.borrow
}

// WrapperAt is LookupWrapper and WrapperBorrowsArgs in one lookup, for
// callers that run the function at once (allocation actions).
func (s *Session) WrapperAt(addr sps.Addr) (fn WrapperFunc, borrowsArgs, ok bool) {
	if e := s.lookupWrapper(addr); e != nil {
		return e.fn, e.borrow, true
	}
	return nil, false, false
}

func (s *Session) lookupWrapper(addr sps.Addr) *wrapperEntry {
	if v, ok := s.funcs.Load(addr); ok {
		return v.(*wrapperEntry)
	}
	return nil
}

// SetUnknownTargetHandler installs h for controller calls to addresses
// with no registered wrapper function (nil restores the default); opts
// are as for RegisterWrapper.
func (s *Session) SetUnknownTargetHandler(h UnknownTargetFunc, opts ...WrapperOption) {
	if h == nil {
		s.unknown.Store(nil)
		return
	}
	s.unknown.Store(&unknownEntry{fn: h, borrow: borrows(opts)})
}

var defaultUnknown = unknownEntry{fn: defaultUnknownTarget, borrow: true}

// unknownTarget returns the handler for unregistered call targets.
func (s *Session) unknownTarget() *unknownEntry {
	if p := s.unknown.Load(); p != nil {
		return p
	}
	return &defaultUnknown
}

func defaultUnknownTarget(_ *Session, target sps.Addr, _ []byte, ret ReturnFunc) {
	ret(OutOfBandResult(fmt.Sprintf("rt: no wrapper function registered at %#x", uint64(target))))
}

// RegisterInstance registers obj and returns its unique, non-zero
// executor address, which method-style handlers ([HandleMethod1], ...)
// take as their first argument and look up, never cast to a pointer.
func (s *Session) RegisterInstance(obj any) sps.Addr {
	e := &instanceEntry{obj: obj}
	a := addrOf(e)
	s.instances.Store(a, e)
	return a
}

// UnregisterInstance removes the instance at addr; later calls naming it
// fail as unknown.
func (s *Session) UnregisterInstance(addr sps.Addr) {
	s.instances.Delete(addr)
}

// Instance returns the object registered at addr.
func (s *Session) Instance(addr sps.Addr) (any, bool) {
	if v, ok := s.instances.Load(addr); ok {
		return v.(*instanceEntry).obj, true
	}
	return nil, false
}

// InstanceAddr returns the Session's own instance address (the
// orc_rt_Session_Instance bootstrap symbol).
func (s *Session) InstanceAddr() sps.Addr { return s.selfAddr }

// InstanceAt returns the instance registered at addr as a T, or an error.
func InstanceAt[T any](s *Session, addr sps.Addr) (T, error) {
	var zero T
	v, ok := s.Instance(addr)
	if !ok {
		return zero, fmt.Errorf("rt: no instance registered at %#x", uint64(addr))
	}
	t, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("rt: instance at %#x is a %T, not a %v", uint64(addr), v, reflect.TypeFor[T]())
	}
	return t, nil
}
