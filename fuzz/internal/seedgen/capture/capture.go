package capture

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/sps"
)

// File name suffixes of the two directions.
const (
	C2ESuffix = ".c2e"
	E2CSuffix = ".e2c"
)

// LLVM's names of the bootstrap functions the sessions use (their
// addresses come from Setup or from a lookup in the process).
const (
	Reserve           = "__llvm_orc_SimpleExecutorMemoryManager_reserve_wrapper"
	Initialize        = "__llvm_orc_SimpleExecutorMemoryManager_initialize_wrapper"
	Finalize          = "__llvm_orc_SimpleExecutorMemoryManager_finalize_wrapper"
	Deinitialize      = "__llvm_orc_SimpleExecutorMemoryManager_deinitialize_wrapper"
	Release           = "__llvm_orc_SimpleExecutorMemoryManager_release_wrapper"
	Deallocate        = "__llvm_orc_SimpleExecutorMemoryManager_deallocate_wrapper"
	Open              = "__llvm_orc_SimpleExecutorDylibManager_open_wrapper"
	Lookup            = "__llvm_orc_SimpleExecutorDylibManager_lookup_wrapper"
	Resolve           = "__llvm_orc_SimpleExecutorDylibManager_resolve_wrapper"
	ShmReserve        = "__llvm_orc_ExecutorSharedMemoryMapperService_Reserve"
	ShmInitialize     = "__llvm_orc_ExecutorSharedMemoryMapperService_Initialize"
	ShmDeinitialize   = "__llvm_orc_ExecutorSharedMemoryMapperService_Deinitialize"
	ShmRelease        = "__llvm_orc_ExecutorSharedMemoryMapperService_Release"
	GDBWrapper        = "llvm_orc_registerJITLoaderGDBWrapper"
	GDBAllocAction    = "llvm_orc_registerJITLoaderGDBAllocAction"
	RegisterEHFrame   = "llvm_orc_registerEHFrameSectionWrapper"
	DeregisterEHFrame = "llvm_orc_deregisterEHFrameSectionWrapper"
)

// Frame is one message.
type Frame struct {
	simpleremote.Header
	Payload []byte
}

// Frames splits a stream into its messages; a torn tail is an error.
func Frames(b []byte) ([]Frame, error) {
	var fs []Frame
	for len(b) > 0 {
		if len(b) < simpleremote.HeaderSize {
			return fs, errors.New("capture: torn header at the end")
		}
		h := simpleremote.ParseHeader(b)
		if h.Size < simpleremote.HeaderSize || h.Size > uint64(len(b)) {
			return fs, fmt.Errorf("capture: bad frame %v", h)
		}
		fs = append(fs, Frame{h, b[simpleremote.HeaderSize:h.Size]})
		b = b[h.Size:]
	}
	return fs, nil
}

// Call is one controller-to-executor CallWrapper and its Result.
type Call struct {
	Frame
	Name   string // the function's bootstrap or looked-up name, "" if unknown
	Result []byte // nil if unanswered
}

// Reservation is memory the executor reserved for the controller.
type Reservation struct {
	Base sps.Addr
	Size uint64
}

// Session is one recorded session.
type Session struct {
	Name     string           // llvmN-PROGRAM
	Release  int              // N
	Dialect  *dialect.Dialect // the dialect release N speaks
	C2E, E2C []byte
	Setup    sps.SetupInfo
	SetupRaw []byte // the Setup payload
	Calls    []Call
	// Names maps the addresses of Setup's bootstrap symbols and of every
	// symbol a lookup found to their names.
	Names        map[sps.Addr]string
	Reservations []Reservation // in the order they were reserved
}

// Load reads every session in dir, sorted by name.
func Load(dir string) ([]*Session, error) {
	ents, err := filepath.Glob(filepath.Join(dir, "llvm*"+C2ESuffix))
	if err != nil {
		return nil, err
	}
	slices.Sort(ents)
	var ss []*Session
	for _, c2ePath := range ents {
		name := strings.TrimSuffix(filepath.Base(c2ePath), C2ESuffix)
		c2e, err := os.ReadFile(c2ePath)
		if err != nil {
			return nil, err
		}
		e2c, err := os.ReadFile(filepath.Join(dir, name+E2CSuffix))
		if err != nil {
			return nil, err
		}
		s, err := Parse(name, c2e, e2c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		ss = append(ss, s)
	}
	return ss, nil
}

// Parse analyses one session.
func Parse(name string, c2e, e2c []byte) (*Session, error) {
	rel, _, _ := strings.Cut(strings.TrimPrefix(name, "llvm"), "-")
	release, err := strconv.Atoi(rel)
	if err != nil {
		return nil, fmt.Errorf("capture: %q does not start with llvmN-", name)
	}
	d, err := dialect.ForRelease(release)
	if err != nil {
		return nil, fmt.Errorf("capture: %s: %w", name, err)
	}
	s := &Session{Name: name, Release: release, Dialect: d, C2E: c2e, E2C: e2c, Names: map[sps.Addr]string{}}
	out, err := Frames(e2c)
	if err != nil {
		return nil, fmt.Errorf("executor stream: %w", err)
	}
	in, err := Frames(c2e)
	if err != nil {
		return nil, fmt.Errorf("controller stream: %w", err)
	}
	if len(out) == 0 || out[0].Op != simpleremote.OpSetup {
		return nil, errors.New("capture: the executor's stream does not start with Setup")
	}
	s.SetupRaw = out[0].Payload
	if s.Setup, err = sps.Unmarshal(d.SetupCodec(), s.SetupRaw); err != nil {
		return nil, fmt.Errorf("capture: Setup: %w", err)
	}
	for _, b := range s.Setup.Symbols {
		s.Names[b.Addr] = b.Name
	}
	results := map[uint64][]byte{}
	for _, f := range out[1:] {
		if f.Op == simpleremote.OpResult {
			if _, dup := results[f.SeqNo]; !dup {
				results[f.SeqNo] = f.Payload
			}
		}
	}
	// Calls in order: a name is known once Setup or an earlier lookup's
	// result gave it (the controller calls only what it has looked up).
	for _, f := range in {
		if f.Op != simpleremote.OpCallWrapper {
			continue
		}
		c := Call{Frame: f, Name: s.Names[f.Tag], Result: results[f.SeqNo]}
		s.Calls = append(s.Calls, c)
		if c.Result != nil {
			s.learn(c)
		}
	}
	return s, nil
}

// learn records what a call's result tells: looked-up names, reserved
// memory.
func (s *Session) learn(c Call) {
	switch c.Name {
	case Reserve:
		_, size, err := sps.MemoryManagerReserve.DecodeArgs(c.Payload)
		r, rerr := sps.MemoryManagerReserve.DecodeResult(c.Result)
		if err == nil && rerr == nil && r.Err == nil {
			s.Reservations = append(s.Reservations, Reservation{r.Value, size})
		}
	case ShmReserve:
		_, size, err := sps.SharedMemoryReserve.DecodeArgs(c.Payload)
		r, rerr := sps.SharedMemoryReserve.DecodeResult(c.Result)
		if err == nil && rerr == nil && r.Err == nil {
			s.Reservations = append(s.Reservations, Reservation{r.Value.First, size})
		}
	case Resolve:
		_, set, err := sps.DylibManagerResolve.DecodeArgs(c.Payload)
		r, rerr := sps.DylibManagerResolve.DecodeResult(c.Result)
		if err == nil && rerr == nil && r.Err == nil && len(r.Value) == len(set) {
			for i, e := range set {
				if r.Value[i].OK && r.Value[i].Value.Addr != 0 {
					s.Names[r.Value[i].Value.Addr] = string(e.Name)
				}
			}
		}
	case Lookup:
		if s.Dialect.Lookup != dialect.LookupAddrs {
			_, _, set, err := sps.DylibManagerLookupDefs.DecodeArgs(c.Payload)
			r, rerr := sps.DylibManagerLookupDefs.DecodeResult(c.Result)
			if err == nil && rerr == nil && r.Err == nil && len(r.Value) == len(set) {
				for i, e := range set {
					if r.Value[i].Addr != 0 {
						s.Names[r.Value[i].Addr] = string(e.Name)
					}
				}
			}
			return
		}
		_, _, set, err := sps.DylibManagerLookupAddrs.DecodeArgs(c.Payload)
		r, rerr := sps.DylibManagerLookupAddrs.DecodeResult(c.Result)
		if err == nil && rerr == nil && r.Err == nil && len(r.Value) == len(set) {
			for i, e := range set {
				if r.Value[i] != 0 {
					s.Names[r.Value[i]] = string(e.Name)
				}
			}
		}
	}
}

// Reservation returns the index of the reservation holding a, if any.
func (s *Session) Reservation(a sps.Addr) (int, bool) {
	for i, r := range s.Reservations {
		if a >= r.Base && uint64(a-r.Base) < max(r.Size, 1) {
			return i, true
		}
	}
	return 0, false
}

// Actions returns the allocation actions of a memory-manager or
// shared-mapper initialize (finalize) call; nil for any other call.
func (c Call) Actions() []sps.ActionPair {
	switch c.Name {
	case Initialize, Finalize:
		_, fr, err := sps.MemoryManagerInitialize.DecodeArgs(c.Payload)
		if err == nil {
			return fr.Actions
		}
	case ShmInitialize:
		_, _, fr, err := sps.SharedMemoryInitialize.DecodeArgs(c.Payload)
		if err == nil {
			return fr.Actions
		}
	}
	return nil
}
