package alloc

import (
	"fmt"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/sps"
)

// The wrapper functions of LLVM 22's SimpleExecutorMemoryManager
// (signatures in sps/llvm22.go: MemoryManagerReserve, ...Initialize,
// ...Deinitialize, ...Release). They are method-style: the first argument
// is the instance address, resolved through the Session's instance table,
// never cast to a pointer. Undecodable arguments give the out-of-band error
// the dialect's DeserializeArgs (an empty Result payload on the LLVM 22 wire); an
// unknown instance gives a clean error inside the SPSExpected / SPSError
// result, which the controller prints. Trailing argument bytes are ignored.

func lookupInstance[T any](s *rt.Session, addr sps.Addr, what string) (T, error) {
	v, err := rt.InstanceAt[T](s, addr)
	if err != nil {
		return v, fmt.Errorf("alloc: %s: %w", what, err)
	}
	return v, nil
}

// decodeInstance decodes the instance address and the 8-byte argument
// after it (a size or an address) and looks the instance up; !ok means
// they did not decode and ret was given the deserialization error.
func decodeInstance[T any](s *rt.Session, d *sps.Decoder, ret rt.ReturnFunc, what string) (m T, arg uint64, err error, ok bool) {
	inst, arg := d.Addr(), d.U64()
	if d.Failed() {
		ret(rt.OutOfBandResult(s.Dialect().DeserializeArgs))
		return m, 0, nil, false
	}
	m, err = lookupInstance[T](s, inst, what)
	return m, arg, err, true
}

// expectedAddr encodes SPSExpected<SPSExecutorAddr>.
func expectedAddr(a sps.Addr, err error) rt.WrapperResult {
	if err != nil {
		msg := err.Error()
		return rt.ResultBytes(sps.AppendString(append(make([]byte, 0, 9+len(msg)), 0), msg))
	}
	return rt.ResultBytes(sps.AppendAddr(append(make([]byte, 0, 9), 1), a))
}

// spsError encodes SPSError.
func spsError(err error) rt.WrapperResult {
	if err == nil {
		return rt.ResultBytes([]byte{0})
	}
	msg := err.Error()
	return rt.ResultBytes(sps.AppendString(append(make([]byte, 0, 9+len(msg)), 1), msg))
}

// publish adds the bootstrap symbols of svc (its instance registered at
// inst) to syms all-or-nothing and svc to s as a Service; on a conflict
// the instance is unregistered.
func publish(s *rt.Session, syms *rt.SymbolTable, svc rt.Service, inst sps.Addr, what string, symbols ...rt.Symbol) error {
	if err := syms.AddUnique(symbols...); err != nil {
		s.UnregisterInstance(inst)
		return fmt.Errorf("alloc: registering the %s: %w", what, err)
	}
	s.AddService(svc)
	return nil
}

const mmName = "SimpleExecutorMemoryManager"

func reserveWrapper(s *rt.Session, args []byte, ret rt.ReturnFunc) {
	reserveCall[*MemoryManager](s, args, ret, mmName)
}

func initializeWrapper(s *rt.Session, args []byte, ret rt.ReturnFunc) {
	key, err, badArgs := initialize(s, args)
	if badArgs {
		ret(rt.OutOfBandResult(s.Dialect().DeserializeArgs))
		return
	}
	ret(expectedAddr(key, err))
}

// finalizeWrapper is LLVM 14-19's finalize: initialize without the key.
func finalizeWrapper(s *rt.Session, args []byte, ret rt.ReturnFunc) {
	_, err, badArgs := initialize(s, args)
	if badArgs {
		ret(rt.OutOfBandResult(s.Dialect().DeserializeArgs))
		return
	}
	ret(spsError(err))
}

// initialize decodes (Instance, FinalizeRequest) and initializes.
func initialize(s *rt.Session, args []byte) (key sps.Addr, err error, badArgs bool) {
	d := sps.NewDecoder(args)
	inst := d.Addr()
	if d.Failed() {
		return 0, nil, true
	}
	m, err := lookupInstance[*MemoryManager](s, inst, mmName)
	if err != nil {
		// Decode the rest anyway: undecodable arguments are reported as
		// such whatever the instance.
		var fr sps.FinalizeRequest
		if fr.Decode(&d); d.Failed() {
			return 0, nil, true
		}
		return 0, err, false
	}
	sc := m.scratch.get()
	defer m.scratch.put(sc)
	sc.fr.Decode(&d)
	defer clearRequest(&sc.fr)
	if d.Failed() {
		return 0, nil, true
	}
	if len(sc.fr.Segments) == 0 && len(sc.fr.Actions) == 0 && s.Dialect().Memory == dialect.MemoryFinalize {
		return 0, nil, false // finalize accepts the empty request that initialize refuses
	}
	key, err = m.initializeWith(&sc.fr, sc)
	return key, err, false
}

// clearRequest drops the views into a call's argument buffer so that a
// pooled request does not keep it alive.
func clearRequest(fr *sps.FinalizeRequest) {
	clear(fr.Segments)
	clear(fr.Actions)
	fr.Segments, fr.Actions = fr.Segments[:0], fr.Actions[:0]
}

// decodeAddrSeq decodes (Addr, Sequence<Addr>) into dst. (By hand:
// the generic bulk decoder would move the Decoder and dst to the heap.)
func decodeAddrSeq(args []byte, dst []sps.Addr) (sps.Addr, []sps.Addr, bool) {
	d := sps.NewDecoder(args)
	inst := d.Addr()
	n := d.Count(8, "address count")
	for i := 0; i < n && !d.Failed(); i++ {
		dst = append(dst, d.Addr())
	}
	return inst, dst, !d.Failed()
}

// instanceAddrs decodes the (instance, Sequence<Addr>) arguments of the
// deinitialize and release wrappers into dst and looks the instance up.
// If !ok, fail is the result to return: the empty (deserialization)
// result or the lookup's error.
func instanceAddrs[T any](s *rt.Session, args []byte, dst []sps.Addr, what string) (m T, addrs []sps.Addr, fail rt.WrapperResult, ok bool) {
	inst, addrs, ok := decodeAddrSeq(args, dst)
	if !ok {
		return m, nil, rt.OutOfBandResult(s.Dialect().DeserializeArgs), false
	}
	m, err := lookupInstance[T](s, inst, what)
	if err != nil {
		return m, nil, spsError(err), false
	}
	return m, addrs, rt.WrapperResult{}, true
}

// addrsCall answers a deinitialize or release call, (instance,
// Sequence<Addr>) -> SPSError, on an instance of T. (A type switch, not a
// method value: the addresses stay on the stack.)
func addrsCall[T *MemoryManager | *SharedMemoryMapper](s *rt.Session, args []byte, ret rt.ReturnFunc, what string, release bool) {
	var buf [16]sps.Addr
	m, addrs, fail, ok := instanceAddrs[T](s, args, buf[:0], what)
	if !ok {
		ret(fail)
		return
	}
	var err error
	switch m := any(m).(type) {
	case *MemoryManager:
		if release {
			err = m.Release(addrs)
		} else {
			err = m.Deinitialize(addrs)
		}
	case *SharedMemoryMapper:
		if release {
			err = m.Release(addrs)
		} else {
			err = m.Deinitialize(addrs)
		}
	}
	ret(spsError(err))
}

// reserveCall answers a reserve call, (instance, size) -> SPSExpected of
// the reservation, on an instance of T: the memory manager's address, or
// the mapper's address and shared-memory object name. (A type switch, as
// in addrsCall.)
func reserveCall[T *MemoryManager | *SharedMemoryMapper](s *rt.Session, args []byte, ret rt.ReturnFunc, what string) {
	d := sps.NewDecoder(args)
	m, size, err, ok := decodeInstance[T](s, &d, ret, what)
	if !ok {
		return
	}
	var addr sps.Addr
	switch m := any(m).(type) {
	case *MemoryManager:
		if err == nil {
			addr, err = m.Reserve(size)
		}
		ret(expectedAddr(addr, err))
	case *SharedMemoryMapper:
		var name string
		if err == nil {
			addr, name, err = m.Reserve(size)
		}
		ret(rt.ResultBytes(sps.Marshal(sps.SharedMemoryReserve.Ret, sps.Expected[sps.Pair[sps.Addr, string]]{
			Value: sps.Pair[sps.Addr, string]{First: addr, Second: name}, Err: err})))
	}
}

func deinitializeWrapper(s *rt.Session, args []byte, ret rt.ReturnFunc) {
	addrsCall[*MemoryManager](s, args, ret, mmName, false)
}

// releaseWrapper is also LLVM 14-19's deallocate: both run the dealloc
// actions of whole reservations and give them back.
func releaseWrapper(s *rt.Session, args []byte, ret rt.ReturnFunc) {
	addrsCall[*MemoryManager](s, args, ret, mmName, true)
}

const shmName = "ExecutorSharedMemoryMapperService"

func shmReserveWrapper(s *rt.Session, args []byte, ret rt.ReturnFunc) {
	reserveCall[*SharedMemoryMapper](s, args, ret, shmName)
}

func shmInitializeWrapper(s *rt.Session, args []byte, ret rt.ReturnFunc) {
	d := sps.NewDecoder(args)
	m, resv, err, ok := decodeInstance[*SharedMemoryMapper](s, &d, ret, shmName)
	if !ok {
		return
	}
	if err != nil {
		var fr sps.SharedFinalizeRequest
		if fr.Decode(&d); d.Failed() {
			ret(rt.OutOfBandResult(s.Dialect().DeserializeArgs))
			return
		}
		ret(expectedAddr(0, err))
		return
	}
	sc := m.scratch.get()
	defer m.scratch.put(sc)
	if sc.fr.Decode(&d); d.Failed() {
		ret(rt.OutOfBandResult(s.Dialect().DeserializeArgs))
		return
	}
	ret(expectedAddr(m.initializeWith(sps.Addr(resv), &sc.fr, sc)))
}

func shmDeinitializeWrapper(s *rt.Session, args []byte, ret rt.ReturnFunc) {
	addrsCall[*SharedMemoryMapper](s, args, ret, shmName, false)
}

func shmReleaseWrapper(s *rt.Session, args []byte, ret rt.ReturnFunc) {
	addrsCall[*SharedMemoryMapper](s, args, ret, shmName, true)
}
