//go:build linux && cgo

package perfjit

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/orcgo/orcrt/native/jitsyms"
	"github.com/orcgo/orcrt/service/memaccess"
	"github.com/orcgo/orcrt/sps"
)

// perf's jitdump format (tools/perf/Documentation/jitdump-specification.txt
// in Linux): a 40-byte header, then records of a 16-byte header (type,
// total size, timestamp) and a body.
const (
	jitdumpMagic   = 0x4A695444 // "JiTD"
	jitdumpVersion = 1
	headerSize     = 40
	recHeaderSize  = 16

	recCodeLoad  = 0
	recDebugInfo = 2
	recClose     = 3
	recUnwinding = 4

	// maxCodeSize bounds one function's code: a record's size is 32 bits.
	maxCodeSize = math.MaxUint32 - 4096
)

// writer is an open jitdump file and perf map.
type writer struct {
	path    string
	f       *os.File
	marker  []byte   // the file's first page, mapped executable for perf
	perfMap *os.File // nil if /tmp/perf-PID.map could not be opened
	pid     uint32
	buf     []byte
}

// elfMachine is the header's e_machine of this architecture.
func elfMachine() uint32 {
	switch runtime.GOARCH {
	case "amd64":
		return 62 // EM_X86_64
	case "arm64":
		return 183 // EM_AARCH64
	}
	return 0
}

// timestamp is CLOCK_MONOTONIC, the clock `perf record -k 1` uses.
func timestamp() uint64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return uint64(ts.Nano())
}

func create() (*writer, error) {
	base := os.Getenv("JITDUMPDIR")
	if base == "" {
		base = os.Getenv("HOME")
	}
	if base == "" {
		return nil, errors.New("perfjit: neither JITDUMPDIR nor HOME is set: nowhere to write the jitdump file")
	}
	dir := filepath.Join(base, ".debug", "jit")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("perfjit: %w", err)
	}
	dir, err := os.MkdirTemp(dir, "llvm-IR-jit-"+time.Now().Format("20060102")+"-")
	if err != nil {
		return nil, fmt.Errorf("perfjit: %w", err)
	}
	w := &writer{pid: uint32(os.Getpid())}
	w.path = filepath.Join(dir, fmt.Sprintf("jit-%d.dump", w.pid))
	if w.f, err = os.OpenFile(w.path, os.O_CREATE|os.O_TRUNC|os.O_RDWR, 0o644); err != nil {
		return nil, fmt.Errorf("perfjit: %w", err)
	}
	h := make([]byte, headerSize)
	binary.LittleEndian.PutUint32(h[0:], jitdumpMagic)
	binary.LittleEndian.PutUint32(h[4:], jitdumpVersion)
	binary.LittleEndian.PutUint32(h[8:], headerSize)
	binary.LittleEndian.PutUint32(h[12:], elfMachine())
	binary.LittleEndian.PutUint32(h[20:], w.pid)
	binary.LittleEndian.PutUint64(h[24:], timestamp())
	if _, err := w.f.Write(h); err != nil {
		w.f.Close()
		return nil, fmt.Errorf("perfjit: %w", err)
	}
	// perf records executable mappings only; this one tells perf inject
	// where the jitdump file is. Read and execute, never write.
	if w.marker, err = unix.Mmap(int(w.f.Fd()), 0, os.Getpagesize(), unix.PROT_READ|unix.PROT_EXEC, unix.MAP_PRIVATE); err != nil {
		w.f.Close()
		return nil, fmt.Errorf("perfjit: mapping %s for perf: %w", w.path, err)
	}
	// Best effort: perf's symbol map is a convenience beside the jitdump.
	w.perfMap, _ = os.OpenFile(fmt.Sprintf("/tmp/perf-%d.map", w.pid), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	return w, nil
}

// mem views size bytes of executor memory at addr, after probing that
// they can be read.
func mem(what string, addr, size uint64) ([]byte, error) {
	b, err := memaccess.View(uintptr(addr), size)
	if err != nil {
		return nil, fmt.Errorf("perfjit: %s at %#x (%d bytes): %w", what, addr, size, err)
	}
	return b, nil
}

// record starts a record in w.buf.
func (w *writer) record(id uint32) {
	w.buf = binary.LittleEndian.AppendUint32(w.buf[:0], id)
	w.buf = binary.LittleEndian.AppendUint32(w.buf, 0) // total size, set by put
	w.buf = binary.LittleEndian.AppendUint64(w.buf, timestamp())
}

// put writes w.buf and tail as one record.
func (w *writer) put(tail ...[]byte) error {
	n := uint64(len(w.buf))
	for _, t := range tail {
		n += uint64(len(t))
	}
	if n > math.MaxUint32 {
		return fmt.Errorf("perfjit: a record of %d bytes does not fit jitdump's 32-bit size", n)
	}
	binary.LittleEndian.PutUint32(w.buf[4:], uint32(n))
	if _, err := w.f.Write(w.buf); err != nil {
		return fmt.Errorf("perfjit: %w", err)
	}
	for _, t := range tail {
		if _, err := w.f.Write(t); err != nil {
			return fmt.Errorf("perfjit: %w", err)
		}
	}
	return nil
}

func appendCString(b []byte, s string) []byte { return append(append(b, s...), 0) }

// batch writes b's records in LLVM's order: debug info, unwinding
// information, code loads (perf inject pairs a code load with the debug
// and unwinding records before it). Every memory range is probed before
// anything is written.
func (w *writer) batch(b *sps.PerfRecordBatch) error {
	codes := make([][]byte, len(b.CodeLoads))
	for i, c := range b.CodeLoads {
		if c.CodeSize > maxCodeSize {
			return fmt.Errorf("perfjit: code of %q: %d bytes, more than a jitdump record holds", c.Name, c.CodeSize)
		}
		var err error
		if codes[i], err = mem("code of "+c.Name, c.CodeAddr, c.CodeSize); err != nil {
			return err
		}
	}
	u := b.Unwinding
	var hdr, ehFrame []byte
	if u.Prefix.TotalSize != 0 {
		if u.EHFrameHdrSize > u.UnwindDataSize || u.UnwindDataSize > maxCodeSize {
			return fmt.Errorf("perfjit: unwinding record: .eh_frame_hdr of %d bytes in %d bytes of unwind data", u.EHFrameHdrSize, u.UnwindDataSize)
		}
		hdr = u.EHFrameHdr
		if len(hdr) == 0 {
			var err error
			if hdr, err = mem(".eh_frame_hdr", u.EHFrameHdrAddr, u.EHFrameHdrSize); err != nil {
				return err
			}
		} else if uint64(len(hdr)) != u.EHFrameHdrSize {
			return fmt.Errorf("perfjit: unwinding record: .eh_frame_hdr of %d bytes, %d stated", len(hdr), u.EHFrameHdrSize)
		}
		var err error
		if ehFrame, err = mem(".eh_frame", u.EHFrameAddr, u.UnwindDataSize-u.EHFrameHdrSize); err != nil {
			return err
		}
	}

	for _, di := range b.DebugInfos {
		w.record(recDebugInfo)
		w.buf = binary.LittleEndian.AppendUint64(w.buf, di.CodeAddr)
		w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(len(di.Entries)))
		for _, e := range di.Entries {
			w.buf = binary.LittleEndian.AppendUint64(w.buf, e.Addr)
			w.buf = binary.LittleEndian.AppendUint32(w.buf, e.Line)
			w.buf = binary.LittleEndian.AppendUint32(w.buf, e.Discrim)
			w.buf = appendCString(w.buf, e.Name)
		}
		if err := w.put(); err != nil {
			return err
		}
	}
	if u.Prefix.TotalSize != 0 {
		w.record(recUnwinding)
		w.buf = binary.LittleEndian.AppendUint64(w.buf, u.UnwindDataSize)
		w.buf = binary.LittleEndian.AppendUint64(w.buf, u.EHFrameHdrSize)
		w.buf = binary.LittleEndian.AppendUint64(w.buf, u.MappedSize)
		if err := w.put(hdr, ehFrame); err != nil {
			return err
		}
	}
	tid := uint32(unix.Gettid())
	for i, c := range b.CodeLoads {
		w.record(recCodeLoad)
		// The executor's own process and thread: the controller's
		// values name the controller.
		w.buf = binary.LittleEndian.AppendUint32(w.buf, w.pid)
		w.buf = binary.LittleEndian.AppendUint32(w.buf, tid)
		w.buf = binary.LittleEndian.AppendUint64(w.buf, c.VMA)
		w.buf = binary.LittleEndian.AppendUint64(w.buf, c.CodeAddr)
		w.buf = binary.LittleEndian.AppendUint64(w.buf, c.CodeSize)
		w.buf = binary.LittleEndian.AppendUint64(w.buf, c.CodeIndex)
		w.buf = appendCString(w.buf, c.Name)
		if err := w.put(codes[i]); err != nil {
			return err
		}
		if w.perfMap != nil {
			_, _ = fmt.Fprintf(w.perfMap, "%x %x %s\n", c.CodeAddr, c.CodeSize, c.Name)
		}
	}
	named := make([]jitsyms.Sym, len(b.CodeLoads))
	for i, c := range b.CodeLoads {
		named[i] = jitsyms.Sym{Start: c.CodeAddr, End: c.CodeAddr + c.CodeSize, Name: c.Name}
	}
	jitsyms.AddAll(named)
	return nil
}

// close writes the close record and releases the file.
func (w *writer) close() error {
	w.record(recClose)
	err := w.put()
	if w.marker != nil {
		_ = unix.Munmap(w.marker)
	}
	if cerr := w.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("perfjit: %w", cerr)
	}
	if w.perfMap != nil {
		_ = w.perfMap.Close()
	}
	return err
}
