package simpleremote

import (
	"encoding/binary"
	"fmt"

	"github.com/orcgo/orcrt/sps"
)

// HeaderSize is the size of the message header: four little-endian u64
// fields {MsgSize, OpCode, SeqNo, TagAddr}.
const HeaderSize = 32

// DefaultMaxMessageSize is the default bound on MsgSize, header included.
const DefaultMaxMessageSize = 1 << 30

// Opcode is the message kind. It is 64 bits on the wire although LLVM's
// enum is uint8_t.
type Opcode uint64

// The four LLVM 22 opcodes (docs/protocol.md §1.3).
const (
	OpSetup       Opcode = 0 // executor -> controller, exactly once, first
	OpHangup      Opcode = 1 // either side; payload SPSError, not decoded by 22
	OpResult      Opcode = 2 // answer to a CallWrapper, SeqNo echoed, TagAddr 0
	OpCallWrapper Opcode = 3 // call of the function or handler named by TagAddr

	lastOpcode = OpCallWrapper
)

// String returns the opcode's name, or "Opcode(N)" for an invalid one.
func (op Opcode) String() string {
	switch op {
	case OpSetup:
		return "Setup"
	case OpHangup:
		return "Hangup"
	case OpResult:
		return "Result"
	case OpCallWrapper:
		return "CallWrapper"
	}
	return fmt.Sprintf("Opcode(%d)", uint64(op))
}

// Valid reports whether op is one of the four defined opcodes.
func (op Opcode) Valid() bool { return op <= lastOpcode }

// Header is a decoded message header. Size is MsgSize, the total message
// size including the 32 header bytes.
type Header struct {
	Size  uint64
	Op    Opcode
	SeqNo uint64
	Tag   sps.Addr
}

// PayloadLen returns Size-HeaderSize, or 0 if Size is too small.
func (h Header) PayloadLen() uint64 {
	if h.Size < HeaderSize {
		return 0
	}
	return h.Size - HeaderSize
}

func (h Header) String() string {
	return fmt.Sprintf("%v seq=%d tag=%#x size=%d", h.Op, h.SeqNo, uint64(h.Tag), h.Size)
}

// ParseHeader decodes the first HeaderSize bytes of b; it panics if b is
// shorter (callers check).
func ParseHeader(b []byte) Header {
	_ = b[HeaderSize-1]
	return Header{
		Size:  binary.LittleEndian.Uint64(b[0:]),
		Op:    Opcode(binary.LittleEndian.Uint64(b[8:])),
		SeqNo: binary.LittleEndian.Uint64(b[16:]),
		Tag:   sps.Addr(binary.LittleEndian.Uint64(b[24:])),
	}
}

// PutHeader encodes h into the first HeaderSize bytes of b.
func PutHeader(b []byte, h Header) {
	_ = b[HeaderSize-1]
	binary.LittleEndian.PutUint64(b[0:], h.Size)
	binary.LittleEndian.PutUint64(b[8:], uint64(h.Op))
	binary.LittleEndian.PutUint64(b[16:], h.SeqNo)
	binary.LittleEndian.PutUint64(b[24:], uint64(h.Tag))
}

// AppendHeader appends the encoding of h.
func AppendHeader(b []byte, h Header) []byte {
	b = binary.LittleEndian.AppendUint64(b, h.Size)
	b = binary.LittleEndian.AppendUint64(b, uint64(h.Op))
	b = binary.LittleEndian.AppendUint64(b, h.SeqNo)
	return binary.LittleEndian.AppendUint64(b, uint64(h.Tag))
}

// AppendFrame appends a whole, well-formed message: a header whose Size
// is HeaderSize+len(payload), then payload.
func AppendFrame(b []byte, op Opcode, seq uint64, tag sps.Addr, payload []byte) []byte {
	b = AppendHeader(b, Header{Size: HeaderSize + uint64(len(payload)), Op: op, SeqNo: seq, Tag: tag})
	return append(b, payload...)
}
