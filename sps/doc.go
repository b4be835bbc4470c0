// Package sps implements Simple Packed Serialization, the wire format of
// LLVM's ORC JIT, byte for byte as LLVM 22 writes and reads it
// (docs/protocol.md §2). llvm22.go declares every wrapper signature LLVM
// 22 uses; testdata/llvmgolden proves the encodings against LLVM 22's own
// C++ serializers in both directions.
//
// API layers:
//
//   - [Decoder] and the Append functions read and write single SPS values;
//     hot paths use them directly.
//   - [Codec] values describe one Go type as one SPS type and compose
//     ([Seq], [Optional], [ExpectedOf], [Tuple2], [MapOf], ...); the ORC
//     types have predefined codecs.
//   - [Func0] .. [Func3] bundle codecs into wrapper-function signatures.
//
// # Concurrency
//
// Codecs and signatures are stateless values, safe for concurrent use. A
// Decoder holds a position and a sticky error: give each goroutine its
// own. Append functions only touch the slice they are given.
//
// # Ownership and aliasing
//
// [Decoder.Bytes], [BytesView] and the byte fields of decoded ORC types
// ([WrapperCall].Args, [SegFinalizeRequest].Content, [BufferWrite].Data,
// [LookupElement].Name) are views into the input, valid as long as the
// input is alive and unmodified: a caller that reuses its input buffer
// must first copy what it keeps. Views have their capacity clamped.
// [Decoder.String], [Decoder.BytesCopy], [String], [BytesCopy] and
// [SetupInfoCodec] copy; decoded errors ([RemoteError]) own their message.
//
// Encoders allocate only when the caller's slice lacks capacity; every
// codec has an exact Size. Decoding scalars, views, [FinalizeRequest.Decode],
// [DecodeInts] and [DecodeSeq] into reused slices does not allocate.
//
// # Hostile input
//
// Decoding never panics. Every sequence count is checked against the
// remaining bytes before anything is sized from it ([Decoder.Count]), so
// an allocation is at most a small multiple of the input. Errors are
// *[DecodeError] values with the offset. Map and Setup decoders reject
// duplicate keys; trailing bytes are ignored, as LLVM does. A decode and
// re-encode reproduces the input except that a non-zero bool byte becomes
// 1 and an SPSRemoteAllocGroup keeps only its four defined bits.
package sps
