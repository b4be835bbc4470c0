package sps

import "encoding/binary"

// Addr is an executor address (SPSExecutorAddr): 8 bytes on the wire.
type Addr uint64

// The Append functions append one SPS value to b, like append; they never
// fail and allocate only when b lacks capacity (see the Size helpers).

// AppendBool appends an SPS bool (0 or 1).
func AppendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// AppendU8 appends a uint8 (also SPS char and int8 via conversion).
func AppendU8(b []byte, v uint8) []byte { return append(b, v) }

// AppendU16 appends a little-endian uint16.
func AppendU16(b []byte, v uint16) []byte { return binary.LittleEndian.AppendUint16(b, v) }

// AppendU32 appends a little-endian uint32.
func AppendU32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }

// AppendU64 appends a little-endian uint64.
func AppendU64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

// AppendI8 appends an int8.
func AppendI8(b []byte, v int8) []byte { return append(b, uint8(v)) }

// AppendI16 appends a little-endian int16.
func AppendI16(b []byte, v int16) []byte { return AppendU16(b, uint16(v)) }

// AppendI32 appends a little-endian int32.
func AppendI32(b []byte, v int32) []byte { return AppendU32(b, uint32(v)) }

// AppendI64 appends a little-endian int64.
func AppendI64(b []byte, v int64) []byte { return AppendU64(b, uint64(v)) }

// AppendAddr appends an SPSExecutorAddr.
func AppendAddr(b []byte, v Addr) []byte { return AppendU64(b, uint64(v)) }

// AppendCount appends a sequence length.
func AppendCount(b []byte, n int) []byte { return AppendU64(b, uint64(n)) }

// AppendBytes appends an SPSSequence<char>: the u64 length, then the bytes.
func AppendBytes(b []byte, v []byte) []byte {
	b = AppendU64(b, uint64(len(v)))
	return append(b, v...)
}

// AppendString appends an SPSString (no NUL terminator).
func AppendString(b []byte, s string) []byte {
	b = AppendU64(b, uint64(len(s)))
	return append(b, s...)
}

// SizeBytes is the encoded size of an SPSSequence<char> of n bytes.
func SizeBytes(n int) int { return 8 + n }

// SizeString is the encoded size of an SPSString holding s.
func SizeString(s string) int { return 8 + len(s) }
