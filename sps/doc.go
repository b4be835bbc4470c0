// Package sps implements Simple Packed Serialization, the wire format of
// LLVM's ORC JIT, byte for byte as LLVM 22 writes and reads it.
//
// SPS is positional: there are no tags, no padding and no alignment.
// Integers are little-endian, bool is one byte, a sequence is a u64 count
// followed by its elements, a tuple is its elements concatenated, SPSError
// leads with a has-error byte and SPSExpected with a has-value byte
// (opposite polarities). protocol.md §2 lists every encoding; llvm22.go
// declares every wrapper signature LLVM 22 uses. The testdata/llvmgolden
// program proves the encodings against LLVM 22's own C++ serializers in
// both directions.
//
// # API layers
//
//   - [Decoder] and the Append functions read and write single SPS values;
//     they are what hot paths use directly.
//   - [Codec] values describe one Go type as one SPS type and compose
//     ([Seq], [Optional], [ExpectedOf], [Tuple2], [MapOf], ...). The ORC
//     types (types.go) have predefined codecs (orc.go).
//   - [Func0] .. [Func3] bundle codecs into wrapper-function signatures.
//
// # Concurrency
//
// Codecs and signatures are stateless values, safe for concurrent use. A
// Decoder holds a position and a sticky error and is not safe for
// concurrent use; give each goroutine its own (they are cheap values).
// Append functions only touch the slice they are given.
//
// # Ownership and aliasing
//
// Decoding never copies byte payloads unless asked to: [Decoder.Bytes],
// [BytesView], and the byte fields of decoded ORC types ([WrapperCall].Args,
// [SegFinalizeRequest].Content, [BufferWrite].Data, [LookupElement].Name)
// are views that alias the input. They stay valid exactly as long as the
// input slice is alive and unmodified: a caller that reuses or returns the
// input buffer (for example to a read pool) must first copy what it keeps.
// Views have their capacity clamped, so appending to one never writes into
// the input. [Decoder.String], [Decoder.BytesCopy], [String], [BytesCopy]
// and [SetupInfoCodec] copy. Decoded errors ([RemoteError]) own their
// message.
//
// # Allocation
//
// Encoders append to the caller's slice and allocate only when it lacks
// capacity; every codec has an exact Size (FinalizeRequest.Size,
// SizeString, ...), so a message can be encoded with one allocation, or none
// into a reused buffer. Decoders of scalars, views, [FinalizeRequest.Decode],
// [DecodeInts] and [DecodeSeq] into reused slices do not allocate;
// [Unmarshal] and FuncN.DecodeArgs draw their Decoder from a pool. Codecs
// that produce Go slices, maps or strings allocate them.
//
// # Hostile input
//
// Decoding never panics. Every sequence count is checked against the bytes
// that remain before anything is sized from it ([Decoder.Count]): each
// element needs at least its minimum encoded size, and at least one byte
// even for element types whose encoding can be empty, so a count can never
// exceed the input length and an allocation is at most a small multiple of
// it. Errors are *[DecodeError] values carrying the offset and what was
// being decoded. Map and Setup decoders reject duplicate keys, as LLVM's
// do. Trailing bytes after a decoded value or argument list are ignored, as
// LLVM ignores them.
//
// Because every count is bounded by the remaining input, decoding time is
// linear in the input for every LLVM 22 message. The one exception is
// generic: a sequence of sequences of zero-size elements (Seq(Seq(Empty)))
// can make each of up to n/8 inner counts repeat up to n empty elements;
// no LLVM 22 message has such a type.
//
// Where LLVM's decoder canonicalizes, this package does the same, so a
// decode/encode round trip reproduces the input except for: a bool byte
// other than 0 decodes as true and re-encodes as 1; an SPSRemoteAllocGroup
// keeps only its four defined bits.
package sps
