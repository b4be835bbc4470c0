package rt

import (
	"errors"
	"fmt"
	"log"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/rt/keepalive"
	"github.com/orcgo/orcrt/sps"
)

// State is a Session lifecycle state. States only move forward:
// Start -> Attached -> Detached -> Shutdown (Attached may be skipped).
type State uint8

// Lifecycle states, in order.
const (
	stateNone State = iota // "no transition in progress" (target only)
	StateStart
	StateAttached
	StateDetached
	StateShutdown
)

func (st State) String() string {
	switch st {
	case stateNone:
		return "None"
	case StateStart:
		return "Start"
	case StateAttached:
		return "Attached"
	case StateDetached:
		return "Detached"
	case StateShutdown:
		return "Shutdown"
	}
	return fmt.Sprintf("State(%d)", uint8(st))
}

// ErrorReporter receives errors the Session cannot return to anyone: an
// abnormal disconnect with no OnDisconnect handler, errors reported by
// services and ControllerAccess implementations, panicking codecs. It may
// be called concurrently from several goroutines.
type ErrorReporter func(s *Session, err error)

// LogErrors is an ErrorReporter that logs through the standard log
// package, tagged with the Session's address (upstream's
// Session::logErrors). It is the default when NewSession gets nil.
func LogErrors(s *Session, err error) {
	log.Printf("rt: session %p: %v", s, err)
}

// Service is anything whose lifetime the Session manages (memory map,
// dylib manager, ...). Both hooks are asynchronous: the Session calls the
// next service's hook only when the previous one calls done, which may
// happen later and on another goroutine; done must be called exactly once.
//
//   - OnDetach is called exactly once, always before OnShutdown — also when
//     no controller was ever attached. shutdownRequested reports whether
//     shutdown had been requested when detach began. JIT'd code may still
//     call into the service while and after OnDetach runs.
//   - OnShutdown is called once every keepalive token has been released,
//     so no Session-managed code is running.
//
// Hooks run in reverse registration order.
type Service interface {
	OnDetach(done func(), shutdownRequested bool)
	OnShutdown(done func())
}

// Session is the root object of the executor runtime. It owns its
// Services, at most one ControllerAccess, a keepalive group that gates
// shutdown, the wrapper-function and instance tables, and it routes work
// to a Dispatcher. A process may hold several Sessions.
//
// All methods are safe for concurrent use and may be called re-entrantly
// from the Session's callbacks (a request made during a transition only
// raises the target state). The package documentation gives the
// lifecycle.
type Session struct {
	info     ProcessInfo
	dispatch Dispatcher
	report   ErrorReporter
	dialect  *dialect.Dialect
	ka       *keepalive.Group
	done     chan struct{} // closed when shutdown has completed

	mu           sync.Mutex
	cur, target  State
	services     []Service // [0] is the notification service
	att          *attachment
	onDisconnect func(error)
	detachCbs    []func() // addOnDetach callbacks, run LIFO
	shutdownCbs  []func() // addOnShutdown callbacks, run LIFO

	// attached is the CA as seen by callController / sendWrapperResult:
	// set when Attach begins, cleared by the disconnect notification.
	attached atomic.Pointer[attachment]

	funcs     sync.Map // sps.Addr -> *wrapperEntry
	instances sync.Map // sps.Addr -> *instanceEntry
	unknown   atomic.Pointer[unknownEntry]
	selfAddr  sps.Addr
}

type attachment struct {
	ca ControllerAccess
	h  *SessionHandle
}

// NewSession returns a Session in the Start state. d runs the Session's
// tasks and must outlive it; report receives errors (nil means
// [LogErrors]).
func NewSession(info ProcessInfo, d Dispatcher, report ErrorReporter) *Session {
	if d == nil {
		panic("rt: NewSession with a nil Dispatcher")
	}
	if report == nil {
		report = LogErrors
	}
	s := &Session{
		info:     info,
		dispatch: d,
		report:   report,
		ka:       keepalive.New(),
		done:     make(chan struct{}),
		cur:      StateStart,
		dialect:  dialect.Latest,
	}
	s.services = []Service{notificationService{s}}
	s.selfAddr = s.RegisterInstance(s)
	return s
}

// Dialect returns the LLVM dialect the Session speaks ([dialect.Latest]
// unless [Session.SetDialect] chose another).
func (s *Session) Dialect() *dialect.Dialect { return s.dialect }

// SetDialect chooses the LLVM dialect. Call it before the Session
// serves any call; it is not safe to call concurrently with one.
func (s *Session) SetDialect(d *dialect.Dialect) {
	if d == nil {
		panic("rt: SetDialect(nil)")
	}
	s.dialect = d
}

// ProcessInfo returns the executor process description.
func (s *Session) ProcessInfo() ProcessInfo { return s.info }

// Dispatcher returns the Session's dispatcher.
func (s *Session) Dispatcher() Dispatcher { return s.dispatch }

// State returns the current lifecycle state.
func (s *Session) State() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

// ReportError passes err to the Session's error reporter (nil is
// ignored). Safe for concurrent use.
func (s *Session) ReportError(err error) {
	if err != nil {
		s.report(s, err)
	}
}

// Reporter returns ReportError as a func value (upstream's
// ReportErrorsViaSession).
func (s *Session) Reporter() func(error) { return s.ReportError }

// ---- services ----

// AddService adds svc. Before detach it is simply appended. If the
// Session is already detached, svc.OnDetach runs at once (on the calling
// goroutine), and if it is already shut down, svc.OnShutdown runs at once
// too; the service is appended either way so the Session keeps it
// reachable. The done callbacks of these late hooks are no-ops.
func (s *Session) AddService(svc Service) {
	s.mu.Lock()
	if s.cur < StateDetached {
		s.services = append(s.services, svc)
		s.mu.Unlock()
		return
	}
	shutdownRequested := s.target == StateShutdown || s.cur == StateShutdown
	s.mu.Unlock()
	svc.OnDetach(func() {}, shutdownRequested)
	s.mu.Lock()
	s.services = append(s.services, svc)
	late := s.cur == StateShutdown
	s.mu.Unlock()
	if late {
		svc.OnShutdown(func() {})
	}
}

// CreateService calls create and adds the service it returns, or returns
// its error without adding anything (upstream's tryCreateService).
func CreateService[T Service](s *Session, create func(*Session) (T, error)) (T, error) {
	svc, err := create(s)
	if err != nil {
		var zero T
		return zero, err
	}
	s.AddService(svc)
	return svc, nil
}

// AddOnDetach registers f to run after every service's OnDetach, in LIFO
// order with the other detach callbacks. If the Session is already
// detached, f runs at once on the calling goroutine.
func (s *Session) AddOnDetach(f func()) { s.addCallback(&s.detachCbs, StateDetached, f) }

// AddOnShutdown registers f to run after every service's OnShutdown, in
// LIFO order with the other shutdown callbacks. If the Session is already
// shut down, f runs at once on the calling goroutine.
func (s *Session) AddOnShutdown(f func()) { s.addCallback(&s.shutdownCbs, StateShutdown, f) }

// addCallback appends f to cbs, run when the session reaches state, or
// runs f now if it already has.
func (s *Session) addCallback(cbs *[]func(), state State, f func()) {
	s.mu.Lock()
	if s.cur < state {
		*cbs = append(*cbs, f)
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	f()
}

// notificationService is services[0]: notified last, it runs the
// AddOnDetach / AddOnShutdown callbacks LIFO.
type notificationService struct{ s *Session }

func (n notificationService) OnDetach(done func(), _ bool) {
	n.s.mu.Lock()
	cbs := n.s.detachCbs
	n.s.detachCbs = nil
	n.s.mu.Unlock()
	runLIFO(cbs)
	done()
}

func (n notificationService) OnShutdown(done func()) {
	n.s.mu.Lock()
	cbs := n.s.shutdownCbs
	n.s.shutdownCbs = nil
	n.s.mu.Unlock()
	runLIFO(cbs)
	done()
}

func runLIFO(cbs []func()) {
	for i := len(cbs) - 1; i >= 0; i-- {
		cbs[i]()
	}
}

// runChain calls hook on svcs from the back, each from the previous one's
// completion, then calls then.
func runChain(svcs []Service, hook func(Service, func()), then func()) {
	var step func(i int)
	step = func(i int) {
		if i < 0 {
			then()
			return
		}
		var called atomic.Bool
		hook(svcs[i], func() {
			if called.Swap(true) {
				panic("rt: service called its lifecycle completion callback twice")
			}
			step(i - 1)
		})
	}
	step(len(svcs) - 1)
}

// ---- lifecycle ----

// SetOnDisconnect installs the handler that learns how the controller
// connection ended: once, before any OnDetach, with nil (orderly or never
// attached), the connect error or the ControllerAccess's error. Without a
// handler non-nil errors go to the error reporter. It must not block; it
// may call Shutdown.
//
// It must be called before Attach (it panics otherwise).
func (s *Session) SetOnDisconnect(f func(err error)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != StateStart || s.target != stateNone {
		panic("rt: SetOnDisconnect called after Attach, Detach or Shutdown")
	}
	s.onDisconnect = f
}

// ErrAttach is returned (wrapped) by Attach when the Session is not in
// the Start state with no transition in progress: a Session attaches at
// most once.
var ErrAttach = errors.New("rt: Attach: session already attached, detached or shutting down")

// Attach connects ca synchronously with bi (nil means
// NewBootstrapInfo(s, nil, nil)). If Connect fails the Session detaches,
// delivering the error as a disconnect would, and returns it too. A
// Detach or Shutdown requested meanwhile disconnects right after.
func (s *Session) Attach(ca ControllerAccess, bi *BootstrapInfo) error {
	if ca == nil {
		return fmt.Errorf("rt: Attach: nil ControllerAccess")
	}
	s.mu.Lock()
	if s.cur != StateStart || s.target != stateNone || s.att != nil {
		st, tg := s.cur, s.target
		s.mu.Unlock()
		return fmt.Errorf("%w (state %v, target %v)", ErrAttach, st, tg)
	}
	a := &attachment{ca: ca, h: &SessionHandle{s: s}}
	s.att = a
	s.attached.Store(a)
	s.target = StateAttached
	s.mu.Unlock()

	if bi == nil {
		bi = NewBootstrapInfo(s, nil, nil)
	}
	err := ca.Connect(a.h, bi)
	if err != nil && a.h.notified.CompareAndSwap(false, true) {
		// The CA did not notify; do it on its behalf.
		s.handleDisconnect(err)
	}

	s.mu.Lock()
	switch {
	case s.cur >= StateDetached:
		s.mu.Unlock()
		return err
	case s.target == StateAttached:
		s.cur, s.target = StateAttached, stateNone
		s.mu.Unlock()
		return nil
	default:
		// Detach or Shutdown was requested during Connect.
		s.cur = StateAttached
		s.mu.Unlock()
		ca.Disconnect()
		return nil
	}
}

// TryAttach calls create (which builds a ControllerAccess, typically
// bound to s) and attaches the result. If create fails its error is
// returned and nothing else happens: the Session stays in Start.
func TryAttach(s *Session, bi *BootstrapInfo, create func(*Session) (ControllerAccess, error)) error {
	ca, err := create(s)
	if err != nil {
		return err
	}
	return s.Attach(ca, bi)
}

// Detach disconnects from the controller (if attached) and detaches every
// service; onDetach (if non-nil) is registered with AddOnDetach first, so
// it runs after all services' OnDetach — at once if the Session is already
// detached. Detach returns without waiting when the ControllerAccess
// disconnects asynchronously, and does nothing more if a transition is
// already in progress.
func (s *Session) Detach(onDetach func()) {
	if onDetach != nil {
		s.AddOnDetach(onDetach)
	}
	s.mu.Lock()
	if s.target != stateNone {
		s.target = max(s.target, StateDetached)
		s.mu.Unlock()
		return
	}
	if s.cur >= StateDetached {
		s.mu.Unlock()
		return
	}
	s.target = StateDetached
	s.advance()
}

// Shutdown detaches (if not yet detached), closes the keepalive group,
// waits — without blocking — for the last token to be released, then
// calls every service's OnShutdown and finally the AddOnShutdown
// callbacks. onShutdown (if non-nil) is registered with AddOnShutdown
// first, so it runs last of all, or at once if the Session is already
// shut down. Shutdown does not block; use Wait or Close to block.
func (s *Session) Shutdown(onShutdown func()) {
	if onShutdown != nil {
		s.AddOnShutdown(onShutdown)
	}
	s.mu.Lock()
	if s.target != stateNone {
		s.target = StateShutdown
		s.mu.Unlock()
		return
	}
	if s.cur == StateShutdown {
		s.mu.Unlock()
		return
	}
	s.target = StateShutdown
	s.advance()
}

// advance starts the transition towards s.target from s.cur. Called with
// s.mu held; it releases it.
func (s *Session) advance() {
	switch s.cur {
	case StateStart:
		s.proceedToDetach(nil, nil)
	case StateAttached:
		ca := s.att.ca
		s.mu.Unlock()
		ca.Disconnect()
	case StateDetached:
		s.mu.Unlock()
		s.waitForKeepalivesThenShutdown()
	default:
		s.mu.Unlock()
	}
}

// Wait blocks until shutdown has completed (every service's OnShutdown
// and every shutdown callback has run). It does not request shutdown.
//
// Do not call Wait (or Close) while holding a keepalive token (in a
// wrapper function, a dispatched continuation, CallWithKeepalive) or from
// a callback the Session is running: either deadlocks, as does a
// Dispatcher that stops running tasks.
func (s *Session) Wait() { <-s.done }

// Done returns a channel closed when shutdown has completed.
func (s *Session) Done() <-chan struct{} { return s.done }

// Close requests shutdown and waits for it to complete: the Go form of
// destroying an upstream Session. See Wait for the deadlock hazard. It is
// safe to call more than once.
func (s *Session) Close() {
	s.Shutdown(nil)
	s.Wait()
}

// handleDisconnect is the CA's NotifyDisconnected.
func (s *Session) handleDisconnect(err error) {
	s.mu.Lock()
	if s.cur > StateAttached {
		s.mu.Unlock()
		panic("rt: BUG: disconnect notified after the session detached")
	}
	s.target = max(s.target, StateDetached)
	a := s.att
	s.att = nil
	s.attached.Store(nil)
	s.proceedToDetach(a, err)
}

// proceedToDetach is the single funnel for every detach path. Called with
// s.mu held; it releases it.
func (s *Session) proceedToDetach(a *attachment, err error) {
	svcs := slices.Clone(s.services)
	shutdownRequested := s.target == StateShutdown
	s.cur = StateDetached
	od := s.onDisconnect
	s.onDisconnect = nil
	s.mu.Unlock()

	if od != nil {
		od(err)
	} else if err != nil {
		s.ReportError(err)
	}
	_ = a // the Session's reference to the CA ends here

	runChain(svcs, func(svc Service, done func()) { svc.OnDetach(done, shutdownRequested) }, s.completeDetach)
}

func (s *Session) completeDetach() {
	s.mu.Lock()
	if s.target == StateDetached {
		s.target = stateNone
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	s.waitForKeepalivesThenShutdown()
}

func (s *Session) waitForKeepalivesThenShutdown() {
	s.ka.AddOnComplete(s.proceedToShutdown)
	s.ka.Close()
}

// proceedToShutdown runs on the goroutine that released the last token
// (or inside Close of the keepalive group).
func (s *Session) proceedToShutdown() {
	s.mu.Lock()
	svcs := slices.Clone(s.services)
	s.cur = StateShutdown
	s.mu.Unlock()
	runChain(svcs, func(svc Service, done func()) { svc.OnShutdown(done) }, s.completeShutdown)
}

func (s *Session) completeShutdown() {
	s.mu.Lock()
	s.target = stateNone
	s.mu.Unlock()
	close(s.done)
}

// ---- keepalive ----

// KeepaliveSource returns a TokenSource for the Session's keepalive group.
// Tokens acquired from it delay shutdown (between detach and OnShutdown)
// until released; acquisition fails once shutdown has closed the group.
func (s *Session) KeepaliveSource() keepalive.TokenSource { return s.ka.Source() }

// AcquireKeepalive takes a keepalive token, or fails with a
// *KeepaliveDeniedError (errors.Is(err, ErrKeepaliveDenied)) once shutdown
// has closed the group. Release the token
// on the same span of execution; holding it indefinitely blocks shutdown.
func (s *Session) AcquireKeepalive() (keepalive.Token, error) {
	tok, ok := s.ka.Acquire()
	if !ok {
		return tok, &KeepaliveDeniedError{}
	}
	return tok, nil
}

// CallWithKeepalive runs fn while holding a keepalive token and reports
// true, or reports false without calling fn if the token is denied
// (shutdown has closed the group). The token covers only fn's synchronous
// execution: for an asynchronous fn, true only means fn was invoked.
func (s *Session) CallWithKeepalive(fn func()) bool {
	tok, ok := s.ka.Acquire()
	if !ok {
		return false
	}
	defer tok.Release()
	fn()
	return true
}

// CallWithKeepalive runs fn while holding one of s's keepalive tokens and
// returns its result and true, or the zero R and false without calling fn
// if the token is denied. See [Session.CallWithKeepalive].
func CallWithKeepalive[R any](s *Session, fn func() R) (R, bool) {
	tok, ok := s.ka.Acquire()
	if !ok {
		var zero R
		return zero, false
	}
	defer tok.Release()
	return fn(), true
}
