package llvmmsg

import "github.com/orcgo/orcrt/rt"

// DeserializeArgs is LLVM 22's out-of-band error for argument bytes that
// do not decode (WrapperFunction::handle).
const DeserializeArgs = "Could not deserialize arguments for wrapper function call"

// Wrap returns w with rt's typed-handler argument error (orc-rt's
// wording, rt.MsgDeserializeArgs) replaced by LLVM 22's.
func Wrap(w rt.WrapperFunc) rt.WrapperFunc {
	return func(s *rt.Session, args []byte, ret rt.ReturnFunc) {
		w(s, args, func(r rt.WrapperResult) {
			if msg, oob := r.OutOfBandError(); oob && msg == rt.MsgDeserializeArgs {
				r = rt.OutOfBandResult(DeserializeArgs)
			}
			ret(r)
		})
	}
}
