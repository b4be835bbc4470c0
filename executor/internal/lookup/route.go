//go:build cgo

package lookup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/orcgo/orcrt/call"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/keepalive"
	"github.com/orcgo/orcrt/service/entry"
	"github.com/orcgo/orcrt/sps"
)

// Looking JIT'd symbols up through the controller.
//
// Where the controller runs LLVM's ORC runtime in the executor
// (llvm-jitlink -orc-runtime), the runtime looks symbols up by asking the
// controller: a jit-dispatch call whose tag is the address of a one-byte
// global of the runtime's JIT'd data, with the arguments (the JITDylib's
// header address, the symbol's name) and the result Expected<ExecutorAddr>.
// The executor knows neither that tag nor the header's address by name;
// it learns both from the one lookup the runtime is seen to make for a
// known name: the controller starts the JIT'd program with a call of a
// JIT'd wrapper whose arguments are (JITDylib name, entry point name,
// argv), and while that call runs, the runtime asks for the entry point by
// name and gets its address. Captured from llvm-jitlink 22 (and 16, 19):
//
//	recv CallWrapper tag=<JIT'd wrapper> ("main", "main", [])
//	send CallWrapper tag=T (H, "main")   // jit-dispatch from the runtime
//	recv Result 01 <address of main>     // Expected<ExecutorAddr>, success
//
// Once such a call has been seen, and checked (the result is the address
// of executable code in JIT'd memory, T and H lie in JIT'd memory: the
// memory manager's regions or the shared-memory mapper's reservations), a
// Lookup may send (H, name) with tag T itself, looking name up in the
// JITDylib whose program the controller started. Nothing is guessed: until
// then Lookup relies on orcrt_export alone, and its error says why the
// controller could not be asked. clang-repl 22 opens its JITDylib through
// the runtime (a JIT'd wrapper (name, mode) returning the handle) but
// never has the runtime look a symbol up, so there the route is never
// learnt.

// lookupRoute is what a Finder has learnt about asking its controller
// for a JIT'd symbol's address.
type lookupRoute struct {
	watching atomic.Bool // not yet identified: calls' shapes are looked at

	mu     sync.Mutex
	runs   []*runCall // run-program-shaped JIT'd wrapper calls in flight
	tag    sps.Addr   // the runtime's symbol-lookup tag; 0 until identified
	handle sps.Addr   // the header of JITDylib jd
	jd     string
	tagPin *keepalive.Group // pin of the JIT'd memory holding the tag (nil: shared memory)
	ready  chan struct{}    // closed once identified
	why    string           // why the route is not identified yet
}

// runCall is one run-program-shaped JIT'd wrapper call in flight.
type runCall struct{ jd, entry string }

func (r *lookupRoute) init(learn bool) {
	if !learn {
		r.why = "the executor does not learn the route (executor.Options.LearnLookupRoute is off)"
		return // ready stays nil: never
	}
	r.ready = make(chan struct{})
	r.watching.Store(true)
}

// CallJITWrapper is the Session's unknown-target handler:
// entry.CallJITWrapper, looking at calls of the shapes the route is
// learnt from while it is not identified.
func (f *Finder) CallJITWrapper(s *rt.Session, target sps.Addr, args []byte, ret rt.ReturnFunc) {
	r := &f.route
	if !r.watching.Load() {
		entry.CallJITWrapper(s, target, args, ret)
		return
	}
	if jd, ep, ok := runProgramArgs(args); ok {
		c := &runCall{jd: string(jd), entry: string(ep)}
		r.mu.Lock()
		r.runs = append(r.runs, c)
		r.mu.Unlock()
		defer func() {
			r.mu.Lock()
			for i, x := range r.runs {
				if x == c {
					r.runs = append(r.runs[:i], r.runs[i+1:]...)
					break
				}
			}
			r.mu.Unlock()
		}()
	} else if name, ok := dlopenArgs(args); ok {
		name := string(name)
		entry.CallJITWrapper(s, target, args, func(res rt.WrapperResult) {
			r.sawOpen(name, res)
			ret(res)
		})
		return
	}
	entry.CallJITWrapper(s, target, args, ret)
}

// sawOpen notes a dlopen-shaped JIT'd wrapper call's result, for the
// error of a Lookup that could not ask the controller.
func (r *lookupRoute) sawOpen(name string, res rt.WrapperResult) {
	b := res.Bytes()
	if len(b) != 8 || res.IsOutOfBandError() {
		return
	}
	h := sps.NewDecoder(b)
	handle := h.U64()
	if handle == 0 {
		return
	}
	r.mu.Lock()
	if r.tag == 0 {
		r.why = fmt.Sprintf("the controller opened JITDylib %q through the ORC runtime (handle %#x), but the runtime has not looked a symbol up through the controller (clang-repl's never does), so the lookup's tag is unknown", name, handle)
	}
	r.mu.Unlock()
}

// ObserveDispatch is the jit-dispatch Observer: a call of the shape
// (address, name) made while a run-program call for that name as entry
// point is in flight may be the runtime's symbol lookup; its result
// decides.
func (f *Finder) ObserveDispatch(tag sps.Addr, args []byte) func(rt.WrapperResult) {
	r := &f.route
	if !r.watching.Load() {
		return nil
	}
	h, name, ok := lookupArgs(args)
	if !ok {
		return nil
	}
	var run *runCall
	r.mu.Lock()
	for _, c := range r.runs {
		if c.entry == string(name) {
			run = c
			break
		}
	}
	r.mu.Unlock()
	if run == nil {
		return nil
	}
	return func(res rt.WrapperResult) { f.identify(tag, h, run, res) }
}

// identify checks a candidate lookup and, if every check holds, makes the
// route available.
func (f *Finder) identify(tag, h sps.Addr, run *runCall, res rt.WrapperResult) {
	r := &f.route
	why := func() string {
		if msg, oob := res.OutOfBandError(); oob {
			return fmt.Sprintf("its result was the out-of-band error %q", msg)
		}
		addr, msg, err := decodeExpectedAddr(res.Bytes())
		switch {
		case err != nil:
			return err.Error()
		case msg != "":
			return fmt.Sprintf("the controller answered the error %q", msg)
		}
		if _, err := f.fn(uintptr(addr)); err != nil {
			return fmt.Sprintf("its result %#x is not callable: %v", addr, err)
		}
		if _, ok := f.inJITMemory(addr); !ok {
			return fmt.Sprintf("its result %#x is not in JIT'd memory", addr)
		}
		if _, ok := f.inJITMemory(h); !ok {
			return fmt.Sprintf("the JITDylib handle %#x is not in JIT'd memory", h)
		}
		pin, ok := f.inJITMemory(tag)
		if !ok {
			return "the tag is not in JIT'd memory"
		}
		r.mu.Lock()
		if r.tag == 0 {
			r.tag, r.handle, r.jd, r.tagPin = tag, h, run.jd, pin
			r.watching.Store(false)
			close(r.ready)
		}
		r.mu.Unlock()
		return ""
	}()
	if why == "" {
		f.env.Log.Debug("controller symbol lookup identified", "tag", uint64(tag), "jitdylib", run.jd, "handle", uint64(h))
		return
	}
	why = fmt.Sprintf("the ORC runtime looked %q up in JITDylib %q through tag %#x, but %s", run.entry, run.jd, tag, why)
	f.env.Log.Debug("controller symbol lookup not identified", "why", why)
	r.mu.Lock()
	if r.tag == 0 {
		r.why = why
	}
	r.mu.Unlock()
}

// inJITMemory reports whether a lies in initialized JIT'd memory of the
// memory manager (with the pin of its region) or in a live reservation of
// the shared-memory mapper (pin nil: llvm-jitlink -use-memmgr=shared).
func (f *Finder) inJITMemory(a sps.Addr) (*keepalive.Group, bool) {
	if pin, err := f.env.Pin(a); err == nil {
		return pin, true
	}
	return nil, f.env.Shared(a)
}

// routeState returns the route if it is available, or the channel closed
// when it becomes so and the reason it is not.
func (r *lookupRoute) routeState() (tag, h sps.Addr, pin *keepalive.Group, ready <-chan struct{}, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tag == 0 {
		why = r.why
		if why == "" {
			why = "the ORC runtime has not looked a symbol up through the controller in this session (the controller loads no ORC runtime, or has not started a program through it yet: llvm-jitlink -orc-runtime does when main starts, clang-repl never does)"
		}
		return 0, 0, nil, r.ready, why
	}
	return r.tag, r.handle, r.tagPin, nil, ""
}

// ctrlAnswer is the controller's answer for names[i].
type ctrlAnswer struct {
	i   int
	f   call.Func
	err error
}

// askController asks the controller for name's address in the route's
// JITDylib; the answer goes to out, which must have room for it. The
// call holds a keepalive token of the Session until the answer arrives
// (or the connection's end fails it), so that it never outlives the
// Session; nothing waits for it but out.
func (f *Finder) askController(i int, name string, tag, h sps.Addr, pin *keepalive.Group, out chan<- ctrlAnswer) {
	if pin != nil && pin.Closing() || pin == nil && !f.env.Shared(tag) {
		out <- ctrlAnswer{i: i, err: fmt.Errorf("%w: the ORC runtime's memory holding the lookup's tag has been released", ErrNoRoute)}
		return
	}
	tok, err := f.env.Session.AcquireKeepalive()
	if err != nil {
		out <- ctrlAnswer{i: i, err: call.ErrShutDown}
		return
	}
	args := sps.AppendString(sps.AppendAddr(make([]byte, 0, 16+len(name)), h), name)
	f.env.Session.CallController(tag, args, func(res rt.WrapperResult) {
		a := ctrlAnswer{i: i}
		if msg, oob := res.OutOfBandError(); oob {
			a.err = fmt.Errorf("the controller's call failed: %s", msg)
		} else if addr, msg, err := decodeExpectedAddr(res.Bytes()); err != nil {
			a.err = err
		} else if msg != "" {
			a.err = fmt.Errorf("the controller answered: %s", msg)
		} else if a.f, err = f.fn(uintptr(addr)); err != nil {
			a.err = fmt.Errorf("the controller answered %#x: %w", addr, err)
		}
		tok.Release()
		out <- a
	})
}

// lookupError is the error of a LookupAll that ctx ended: for each name
// not found, what the controller route said.
func lookupError(names []string, found []bool, asked bool, why string, answers []error, cause error) error {
	var ctrl string
	var errs []error
	if !asked {
		if why == "" {
			why = "its route became available only as the lookup ended"
		}
		ctrl = "the controller could not be asked: " + why
		errs = append(errs, ErrNoRoute)
	} else {
		for i, n := range names {
			if found[i] || answers[i] == nil {
				continue
			}
			if ctrl != "" {
				ctrl += "; "
			}
			ctrl += fmt.Sprintf("%q: %v", n, answers[i])
			if errors.Is(answers[i], ErrNoRoute) && len(errs) == 0 {
				errs = append(errs, ErrNoRoute)
			}
		}
		if ctrl == "" {
			ctrl = "the controller has not answered"
		}
	}
	errs = append(errs, cause)
	return &lookupErr{msg: fmt.Sprintf("executor: lookup of %s: not exported with %s; %s: %v", notFound(names, found), ExportSymbol, ctrl, cause), errs: errs}
}

// lookupErr is a Lookup error wrapping its cause and, when the controller
// could not be asked, ErrNoRoute.
type lookupErr struct {
	msg  string
	errs []error
}

func (e *lookupErr) Error() string   { return e.msg }
func (e *lookupErr) Unwrap() []error { return e.errs }

// waitLookup is LookupAll's wait for exports and the controller's answers.
func (f *Finder) waitLookup(ctx context.Context, names []string, out []call.Func, found []bool) error {
	answers := make([]error, len(names))
	asked := false
	var replies chan ctrlAnswer
	for {
		exports.mu.Lock()
		changed := exports.changed
		missing := 0
		for i, name := range names {
			if !found[i] {
				out[i], found[i] = f.newestExport(name)
			}
			if !found[i] {
				missing++
			}
		}
		exports.mu.Unlock()
		if missing == 0 {
			return nil
		}
		if f.sessionGroup().Closing() {
			return fmt.Errorf("executor: lookup of %s: %w", notFound(names, found), call.ErrShutDown)
		}
		tag, h, pin, ready, _ := f.route.routeState()
		if !asked && tag != 0 {
			// Each name once: the controller's answer does not change
			// for a JITDylib whose program is running, and an export
			// may still come.
			asked = true
			replies = make(chan ctrlAnswer, len(names))
			for i, name := range names {
				if !found[i] {
					f.askController(i, name, tag, h, pin, replies)
				}
			}
		}
		select {
		case <-changed:
		case <-ready: // nil once identified
		case a := <-replies:
			if a.err != nil {
				answers[a.i] = a.err
			} else if !found[a.i] {
				out[a.i], found[a.i] = a.f, true
			}
		case <-f.env.Session.Done():
		case <-ctx.Done():
			_, _, _, _, why := f.route.routeState()
			return lookupError(names, found, asked, why, answers, context.Cause(ctx))
		}
	}
}

// runProgramArgs decodes the arguments of the JIT'd wrapper that starts
// a program: exactly (string JITDylib, string entry point, seq<string>
// argv), both names plausible symbol names. It does not allocate.
func runProgramArgs(b []byte) (jd, ep []byte, ok bool) {
	if len(b) < 3*8+2 {
		return nil, nil, false
	}
	d := sps.NewDecoder(b)
	jd, ep = d.Bytes(), d.Bytes()
	n := d.Count(8, "argv")
	for range n {
		d.Bytes()
	}
	if d.Failed() || d.Remaining() != 0 || !symbolName(jd) || !symbolName(ep) {
		return nil, nil, false
	}
	return jd, ep, true
}

// dlopenArgs decodes the arguments of the runtime's JIT'd dlopen wrapper:
// exactly (string name, u32 mode).
func dlopenArgs(b []byte) ([]byte, bool) {
	if len(b) < 8+1+4 {
		return nil, false
	}
	d := sps.NewDecoder(b)
	name := d.Bytes()
	d.U32()
	if d.Failed() || d.Remaining() != 0 || !symbolName(name) {
		return nil, false
	}
	return name, true
}

// lookupArgs decodes a jit-dispatch call of the symbol lookup's shape:
// exactly (non-zero address, string name).
func lookupArgs(b []byte) (sps.Addr, []byte, bool) {
	if len(b) < 8+8+1 {
		return 0, nil, false
	}
	d := sps.NewDecoder(b)
	h := d.Addr()
	name := d.Bytes()
	if d.Failed() || d.Remaining() != 0 || h == 0 || !symbolName(name) {
		return 0, nil, false
	}
	return h, name, true
}

// symbolName: non-empty, at most 64 KiB, no NUL.
func symbolName(b []byte) bool {
	return len(b) > 0 && len(b) <= 64<<10 && bytes.IndexByte(b, 0) < 0
}

// decodeExpectedAddr decodes an SPS Expected<ExecutorAddr>: exactly 01
// and a non-zero address, or 00 and the error's message.
func decodeExpectedAddr(b []byte) (addr sps.Addr, msg string, err error) {
	d := sps.NewDecoder(b)
	switch {
	case len(b) == 9 && b[0] == 1:
		d.U8()
		addr = d.Addr()
		if addr == 0 {
			return 0, "", errors.New("the controller answered address 0")
		}
		return addr, "", nil
	case len(b) >= 9 && b[0] == 0:
		d.U8()
		m := d.Bytes()
		if !d.Failed() && d.Remaining() == 0 {
			if len(m) == 0 {
				m = []byte("(an empty error)")
			}
			return 0, string(m), nil
		}
	}
	const show = 32
	switch {
	case len(b) == 0:
		// What LLVM 22's controller sends for a tag it has no handler for.
		return 0, "", errors.New("the controller's answer is empty (it has no handler for the tag)")
	case len(b) > show:
		return 0, "", fmt.Errorf("the controller's answer %x… (%d bytes) is not an Expected<ExecutorAddr>", b[:show], len(b))
	default:
		return 0, "", fmt.Errorf("the controller's answer %x is not an Expected<ExecutorAddr>", b)
	}
}
