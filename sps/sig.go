package sps

// Wrapper-function signatures: Ret(Arg1, ..., ArgN) declared once as a
// FuncN value and used by both sides of a call. Arguments travel
// concatenated; trailing bytes are ignored. LLVM 22's are in llvm22.go.
// DecodeArgs and DecodeResult use a pooled Decoder; DecodeArgsFrom a
// caller's.

// Func0 is the signature Ret().
type Func0[R any] struct {
	Ret Codec[R]
}

// Func1 is the signature Ret(Arg1).
type Func1[A1, R any] struct {
	Arg1 Codec[A1]
	Ret  Codec[R]
}

// Func2 is the signature Ret(Arg1, Arg2).
type Func2[A1, A2, R any] struct {
	Arg1 Codec[A1]
	Arg2 Codec[A2]
	Ret  Codec[R]
}

// Func3 is the signature Ret(Arg1, Arg2, Arg3).
type Func3[A1, A2, A3, R any] struct {
	Arg1 Codec[A1]
	Arg2 Codec[A2]
	Arg3 Codec[A3]
	Ret  Codec[R]
}

// ArgsSize returns the encoded size of the (empty) argument list.
func (f Func0[R]) ArgsSize() int { return 0 }

// AppendArgs appends the (empty) argument encoding.
func (f Func0[R]) AppendArgs(b []byte) []byte { return b }

// DecodeArgs decodes an (empty) argument buffer; any bytes are trailing
// bytes and ignored, so it never fails.
func (f Func0[R]) DecodeArgs(b []byte) error { return nil }

// ResultSize returns the encoded size of r.
func (f Func0[R]) ResultSize(r R) int { return f.Ret.Size(r) }

// AppendResult appends the encoding of r.
func (f Func0[R]) AppendResult(b []byte, r R) []byte { return f.Ret.Append(b, r) }

// DecodeResult decodes a result buffer.
func (f Func0[R]) DecodeResult(b []byte) (R, error) { return Unmarshal(f.Ret, b) }

// ArgsSize returns the encoded size of the arguments.
func (f Func1[A1, R]) ArgsSize(a1 A1) int { return f.Arg1.Size(a1) }

// AppendArgs appends the argument encoding.
func (f Func1[A1, R]) AppendArgs(b []byte, a1 A1) []byte { return f.Arg1.Append(b, a1) }

// DecodeArgs decodes an argument buffer.
func (f Func1[A1, R]) DecodeArgs(b []byte) (A1, error) {
	d := getDecoder(b)
	a1 := f.DecodeArgsFrom(d)
	err := d.Err()
	putDecoder(d)
	return a1, err
}

// DecodeArgsFrom decodes the arguments from d; check d's error.
func (f Func1[A1, R]) DecodeArgsFrom(d *Decoder) A1 { return f.Arg1.Decode(d) }

// ResultSize returns the encoded size of r.
func (f Func1[A1, R]) ResultSize(r R) int { return f.Ret.Size(r) }

// AppendResult appends the encoding of r.
func (f Func1[A1, R]) AppendResult(b []byte, r R) []byte { return f.Ret.Append(b, r) }

// DecodeResult decodes a result buffer.
func (f Func1[A1, R]) DecodeResult(b []byte) (R, error) { return Unmarshal(f.Ret, b) }

// ArgsSize returns the encoded size of the arguments.
func (f Func2[A1, A2, R]) ArgsSize(a1 A1, a2 A2) int { return f.Arg1.Size(a1) + f.Arg2.Size(a2) }

// AppendArgs appends the argument encoding.
func (f Func2[A1, A2, R]) AppendArgs(b []byte, a1 A1, a2 A2) []byte {
	return f.Arg2.Append(f.Arg1.Append(b, a1), a2)
}

// DecodeArgs decodes an argument buffer.
func (f Func2[A1, A2, R]) DecodeArgs(b []byte) (A1, A2, error) {
	d := getDecoder(b)
	a1, a2 := f.DecodeArgsFrom(d)
	err := d.Err()
	putDecoder(d)
	return a1, a2, err
}

// DecodeArgsFrom decodes the arguments from d; check d's error.
func (f Func2[A1, A2, R]) DecodeArgsFrom(d *Decoder) (A1, A2) {
	a1 := f.Arg1.Decode(d)
	a2 := f.Arg2.Decode(d)
	return a1, a2
}

// ResultSize returns the encoded size of r.
func (f Func2[A1, A2, R]) ResultSize(r R) int { return f.Ret.Size(r) }

// AppendResult appends the encoding of r.
func (f Func2[A1, A2, R]) AppendResult(b []byte, r R) []byte { return f.Ret.Append(b, r) }

// DecodeResult decodes a result buffer.
func (f Func2[A1, A2, R]) DecodeResult(b []byte) (R, error) { return Unmarshal(f.Ret, b) }

// ArgsSize returns the encoded size of the arguments.
func (f Func3[A1, A2, A3, R]) ArgsSize(a1 A1, a2 A2, a3 A3) int {
	return f.Arg1.Size(a1) + f.Arg2.Size(a2) + f.Arg3.Size(a3)
}

// AppendArgs appends the argument encoding.
func (f Func3[A1, A2, A3, R]) AppendArgs(b []byte, a1 A1, a2 A2, a3 A3) []byte {
	return f.Arg3.Append(f.Arg2.Append(f.Arg1.Append(b, a1), a2), a3)
}

// DecodeArgs decodes an argument buffer.
func (f Func3[A1, A2, A3, R]) DecodeArgs(b []byte) (A1, A2, A3, error) {
	d := getDecoder(b)
	a1, a2, a3 := f.DecodeArgsFrom(d)
	err := d.Err()
	putDecoder(d)
	return a1, a2, a3, err
}

// DecodeArgsFrom decodes the arguments from d; check d's error.
func (f Func3[A1, A2, A3, R]) DecodeArgsFrom(d *Decoder) (A1, A2, A3) {
	a1 := f.Arg1.Decode(d)
	a2 := f.Arg2.Decode(d)
	a3 := f.Arg3.Decode(d)
	return a1, a2, a3
}

// ResultSize returns the encoded size of r.
func (f Func3[A1, A2, A3, R]) ResultSize(r R) int { return f.Ret.Size(r) }

// AppendResult appends the encoding of r.
func (f Func3[A1, A2, A3, R]) AppendResult(b []byte, r R) []byte { return f.Ret.Append(b, r) }

// DecodeResult decodes a result buffer.
func (f Func3[A1, A2, A3, R]) DecodeResult(b []byte) (R, error) { return Unmarshal(f.Ret, b) }
