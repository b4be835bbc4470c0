package wiretest

import (
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/sps"
)

// Frame builders for scripted streams (fuzz seeds, raw tests). Each
// returns a fresh slice; append them to build a stream.

// Frame returns a well-sized message.
func Frame(op simpleremote.Opcode, seq uint64, tag sps.Addr, payload []byte) []byte {
	return simpleremote.AppendFrame(nil, op, seq, tag, payload)
}

// CallFrame returns CallWrapper(seq, fn, args).
func CallFrame(seq uint64, fn sps.Addr, args []byte) []byte {
	return Frame(simpleremote.OpCallWrapper, seq, fn, args)
}

// ResultFrame returns Result(seq, TagAddr 0, payload).
func ResultFrame(seq uint64, payload []byte) []byte {
	return Frame(simpleremote.OpResult, seq, 0, payload)
}

// HangupFrame returns Hangup with payload (SPSError success is {0}).
func HangupFrame(payload []byte) []byte {
	return Frame(simpleremote.OpHangup, 0, 0, payload)
}

// SetupFrame returns the Setup message for info.
func SetupFrame(info sps.SetupInfo) []byte {
	return Frame(simpleremote.OpSetup, 0, 0, sps.Marshal(sps.SetupInfoCodec, info))
}

// RawHeader returns a header with arbitrary field values (MsgSize need not
// match anything that follows).
func RawHeader(size uint64, op uint64, seq uint64, tag sps.Addr) []byte {
	return simpleremote.AppendHeader(nil, simpleremote.Header{Size: size, Op: simpleremote.Opcode(op), SeqNo: seq, Tag: tag})
}
