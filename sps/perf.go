package sps

// LLVM's perf support (PerfSharedStructs.h, LLVM 19 and 22): the records
// the controller's PerfSupportPlugin sends to
// llvm_orc_registerJITLoaderPerfImpl, which the executor writes to perf's
// jitdump file (docs/protocol.md §5.8).

// PerfRecordPrefix is a record's type and total jitdump size, as the
// controller computed them.
type PerfRecordPrefix struct {
	ID        uint32 // 0 code load, 2 debug info, 4 unwinding info
	TotalSize uint32
}

// PerfCodeLoad is one JIT'd function: its name and where its code is.
type PerfCodeLoad struct {
	Prefix    PerfRecordPrefix
	Pid, Tid  uint32
	VMA       uint64
	CodeAddr  uint64
	CodeSize  uint64
	CodeIndex uint64
	Name      string
}

// PerfDebugEntry maps a code address to a source line.
type PerfDebugEntry struct {
	Addr    uint64
	Line    uint32
	Discrim uint32
	Name    string // source file
}

// PerfDebugInfo is the line table of the function at CodeAddr.
type PerfDebugInfo struct {
	Prefix   PerfRecordPrefix
	CodeAddr uint64
	Entries  []PerfDebugEntry
}

// PerfUnwinding is the EH frame of a link graph: an .eh_frame_hdr, given
// either as bytes (EHFrameHdr) or at EHFrameHdrAddr, followed in the
// jitdump by UnwindDataSize-EHFrameHdrSize bytes of .eh_frame at
// EHFrameAddr. Valid only when Prefix.TotalSize is not 0.
type PerfUnwinding struct {
	Prefix         PerfRecordPrefix
	UnwindDataSize uint64
	EHFrameHdrSize uint64
	MappedSize     uint64
	EHFrameHdrAddr uint64
	EHFrameHdr     []byte // a view of the input
	EHFrameAddr    uint64
}

// PerfRecordBatch is the argument of llvm_orc_registerJITLoaderPerfImpl:
// SPSTuple<SPSSequence<CodeLoad>, SPSSequence<DebugInfo>, Unwinding>.
type PerfRecordBatch struct {
	CodeLoads  []PerfCodeLoad
	DebugInfos []PerfDebugInfo
	Unwinding  PerfUnwinding
}

// Encoded sizes without their variable parts.
const (
	perfPrefixSize     = 8
	perfCodeLoadMin    = perfPrefixSize + 4 + 4 + 4*8 + 8
	perfDebugEntryMin  = 8 + 4 + 4 + 8
	perfDebugInfoMin   = perfPrefixSize + 8 + 8
	perfUnwindingMin   = perfPrefixSize + 4*8 + 8 + 8
	perfRecordBatchMin = 8 + 8 + perfUnwindingMin
)

func decodePerfPrefix(d *Decoder) PerfRecordPrefix {
	return PerfRecordPrefix{ID: d.U32(), TotalSize: d.U32()}
}

func appendPerfPrefix(b []byte, p PerfRecordPrefix) []byte {
	return AppendU32(AppendU32(b, p.ID), p.TotalSize)
}

// Decode reads a batch; EHFrameHdr aliases the input, names are copies.
func (r *PerfRecordBatch) Decode(d *Decoder) {
	n := d.Count(perfCodeLoadMin, "perf code load record count")
	r.CodeLoads = make([]PerfCodeLoad, 0, n)
	for i := 0; i < n && !d.Failed(); i++ {
		r.CodeLoads = append(r.CodeLoads, PerfCodeLoad{
			Prefix: decodePerfPrefix(d), Pid: d.U32(), Tid: d.U32(), VMA: d.U64(),
			CodeAddr: d.U64(), CodeSize: d.U64(), CodeIndex: d.U64(), Name: d.String(),
		})
	}
	n = d.Count(perfDebugInfoMin, "perf debug info record count")
	r.DebugInfos = make([]PerfDebugInfo, 0, n)
	for i := 0; i < n && !d.Failed(); i++ {
		di := PerfDebugInfo{Prefix: decodePerfPrefix(d), CodeAddr: d.U64()}
		m := d.Count(perfDebugEntryMin, "perf debug entry count")
		di.Entries = make([]PerfDebugEntry, 0, m)
		for j := 0; j < m && !d.Failed(); j++ {
			di.Entries = append(di.Entries, PerfDebugEntry{Addr: d.U64(), Line: d.U32(), Discrim: d.U32(), Name: d.String()})
		}
		r.DebugInfos = append(r.DebugInfos, di)
	}
	r.Unwinding = PerfUnwinding{
		Prefix: decodePerfPrefix(d), UnwindDataSize: d.U64(), EHFrameHdrSize: d.U64(),
		MappedSize: d.U64(), EHFrameHdrAddr: d.U64(), EHFrameHdr: d.Bytes(), EHFrameAddr: d.U64(),
	}
}

// Size returns the encoded size of r.
func (r *PerfRecordBatch) Size() int {
	n := 8 + 8 + perfUnwindingMin + len(r.Unwinding.EHFrameHdr)
	for _, c := range r.CodeLoads {
		n += perfCodeLoadMin + len(c.Name)
	}
	for _, di := range r.DebugInfos {
		n += perfDebugInfoMin
		for _, e := range di.Entries {
			n += perfDebugEntryMin + len(e.Name)
		}
	}
	return n
}

// Append appends the encoding of r to b.
func (r *PerfRecordBatch) Append(b []byte) []byte {
	b = AppendCount(b, len(r.CodeLoads))
	for _, c := range r.CodeLoads {
		b = appendPerfPrefix(b, c.Prefix)
		b = AppendU32(AppendU32(b, c.Pid), c.Tid)
		b = AppendU64(AppendU64(AppendU64(AppendU64(b, c.VMA), c.CodeAddr), c.CodeSize), c.CodeIndex)
		b = AppendString(b, c.Name)
	}
	b = AppendCount(b, len(r.DebugInfos))
	for _, di := range r.DebugInfos {
		b = AppendU64(appendPerfPrefix(b, di.Prefix), di.CodeAddr)
		b = AppendCount(b, len(di.Entries))
		for _, e := range di.Entries {
			b = AppendString(AppendU32(AppendU32(AppendU64(b, e.Addr), e.Line), e.Discrim), e.Name)
		}
	}
	u := r.Unwinding
	b = appendPerfPrefix(b, u.Prefix)
	b = AppendU64(AppendU64(AppendU64(AppendU64(b, u.UnwindDataSize), u.EHFrameHdrSize), u.MappedSize), u.EHFrameHdrAddr)
	return AppendU64(AppendBytes(b, u.EHFrameHdr), u.EHFrameAddr)
}

type perfRecordBatchCodec struct{}

func (perfRecordBatchCodec) Size(v PerfRecordBatch) int { return v.Size() }
func (perfRecordBatchCodec) Append(b []byte, v PerfRecordBatch) []byte {
	return v.Append(b)
}
func (perfRecordBatchCodec) Decode(d *Decoder) PerfRecordBatch {
	var v PerfRecordBatch
	v.Decode(d)
	return v
}
func (perfRecordBatchCodec) MinSize() int { return perfRecordBatchMin }

// PerfRecordBatchCodec is SPSPerfJITRecordBatch.
var PerfRecordBatchCodec Codec[PerfRecordBatch] = perfRecordBatchCodec{}

// LLVM 19 and 22's perf support functions, which the controller finds by
// a process lookup (docs/protocol.md §5.8).
var (
	// RegisterPerfStart is llvm_orc_registerJITLoaderPerfStart and
	// RegisterPerfEnd llvm_orc_registerJITLoaderPerfEnd: SPSError().
	RegisterPerfStart = Func0[error]{Ret: ErrorCodec}
	RegisterPerfEnd   = Func0[error]{Ret: ErrorCodec}
	// RegisterPerfImpl is llvm_orc_registerJITLoaderPerfImpl:
	// SPSError(SPSPerfJITRecordBatch).
	RegisterPerfImpl = Func1[PerfRecordBatch, error]{Arg1: PerfRecordBatchCodec, Ret: ErrorCodec}
)
