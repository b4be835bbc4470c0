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
	fn WrapperFunc
}

type instanceEntry struct {
	obj any
}

func addrOf[T any](p *T) sps.Addr { return sps.Addr(uintptr(unsafe.Pointer(p))) }

// RegisterWrapper makes fn callable by the controller and returns its
// unique, non-zero executor address (publish it with a SymbolTable). Each
// call registers a new entry, even for the same fn. Safe for concurrent
// use, also while calls are in flight.
func (s *Session) RegisterWrapper(fn WrapperFunc) sps.Addr {
	if fn == nil {
		panic("rt: RegisterWrapper with a nil function")
	}
	e := &wrapperEntry{fn: fn}
	a := addrOf(e)
	s.funcs.Store(a, e)
	return a
}

// LookupWrapper returns the wrapper function registered at addr.
func (s *Session) LookupWrapper(addr sps.Addr) (WrapperFunc, bool) {
	if v, ok := s.funcs.Load(addr); ok {
		return v.(*wrapperEntry).fn, true
	}
	return nil, false
}

// SetUnknownTargetHandler installs h for controller calls to addresses
// with no registered wrapper function (nil restores the default).
func (s *Session) SetUnknownTargetHandler(h UnknownTargetFunc) {
	if h == nil {
		s.unknown.Store(nil)
		return
	}
	s.unknown.Store(&h)
}

// unknownTarget returns the handler for unregistered call targets.
func (s *Session) unknownTarget() UnknownTargetFunc {
	if p := s.unknown.Load(); p != nil {
		return *p
	}
	return defaultUnknownTarget
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
