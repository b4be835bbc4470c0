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

// wrapperEntry and instanceEntry are the Go objects whose addresses become
// executor addresses. The Session's tables keep them reachable, and the
// Go heap never moves objects, so an address stays unique for the
// Session's lifetime and can never coincide with memory the process maps
// for JIT'd code. Neither type is zero-sized, so every entry has its own
// address.
type wrapperEntry struct {
	fn     WrapperFunc
	borrow bool // registered with BorrowArgs
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
	// BorrowArgs registers a function that borrows its argument buffer
	// instead of owning it: it promises that once it has both returned
	// and called ret, neither it nor anything it started reads or keeps
	// args, or any view into it (decoded sps.BytesView values, strings
	// built with unsafe, sub-slices handed to other goroutines), and
	// that the result it passes to ret does not alias args. In exchange
	// a ControllerAccess that supports it may recycle the buffer for a
	// later call (see [SessionHandle.HandleWrapperCallReleasing]). It is
	// for hot wrappers that decode, act and forget — memory writes,
	// allocation requests, native calls — and must not be used for one
	// that stores its arguments or passes them to code that might.
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
// unique, non-zero executor address (publish it with a SymbolTable). Each
// call registers a new entry, even for the same fn. By default fn owns
// the argument buffers it is given; with [BorrowArgs] it only borrows
// them. Safe for concurrent use, also while calls are in flight.
func (s *Session) RegisterWrapper(fn WrapperFunc, opts ...WrapperOption) sps.Addr {
	if fn == nil {
		panic("rt: RegisterWrapper with a nil function")
	}
	e := &wrapperEntry{fn: fn, borrow: borrows(opts)}
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

// WrapperBorrowsArgs reports whether the wrapper function registered at
// addr was registered with [BorrowArgs] (false if none is registered
// there). Code that calls registered wrappers itself with views into a
// buffer it will reuse (an allocation-action runner, say) passes an
// owning wrapper a copy.
func (s *Session) WrapperBorrowsArgs(addr sps.Addr) bool {
	e := s.lookupWrapper(addr)
	return e != nil && e.borrow
}

func (s *Session) lookupWrapper(addr sps.Addr) *wrapperEntry {
	if v, ok := s.funcs.Load(addr); ok {
		return v.(*wrapperEntry)
	}
	return nil
}

// SetUnknownTargetHandler installs h for controller calls to addresses
// with no registered wrapper function (nil restores the default, which
// borrows its arguments). opts are as for RegisterWrapper: with
// [BorrowArgs], h only borrows the argument buffers.
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

// RegisterInstance registers obj (typically a service) and returns its
// unique, non-zero executor address. Method-style handlers
// ([HandleMethod1] and friends) take such an address as their first SPS
// argument and receive obj; the address is looked up in the table, never
// cast to a pointer. Registering the same object twice yields two
// addresses.
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

// InstanceAddr returns the Session's own instance address (the value of
// the orc_rt_Session_Instance bootstrap symbol); Instance(InstanceAddr())
// is s.
func (s *Session) InstanceAddr() sps.Addr { return s.selfAddr }

// InstanceAt returns the instance registered at addr as a T, or an error
// if nothing is registered there or it is not a T.
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
