package spsfuzz

import (
	"fmt"

	"github.com/orcgo/orcrt/fuzz/internal/target"
)

// The LLVM oracle: LLVM 22's own SPS deserializers judge orcrt's decoder
// (llvmoracle/oracle.cpp). FuzzLLVM runs Oracle under libFuzzer with the
// C++ side in the same process (llvmoracle/, built by
// fuzz/oss-fuzz/build.sh); TestLLVMOracle runs it over the checked-in
// corpora with the C++ side as a program.

// OracleQuery is orcrt's decision on one message, as the oracle judges
// it: the shape's name, the message, whether orcrt accepted it, how many
// bytes it consumed and the re-encoding of the value it decoded.
type OracleQuery struct {
	Shape    string
	Msg      []byte
	OK       bool
	Consumed int
	Enc      []byte
}

// OracleExcluded are the shapes the oracle leaves out, with the reason:
// none is a message of any dialect (each is orcrt's own check or
// composition, with no LLVM type to decode it into). Every other shape is
// covered; TestLLVMOracle checks that the two lists partition shapes.
var OracleExcluded = map[string]string{
	"span/u32":            "orcrt's span rule on an SPSExecutorAddrRange (start <= end, a whole number of elements), which LLVM does not state",
	"span/bytes":          "orcrt's span rule on an SPSExecutorAddrRange, which LLVM does not state",
	"seq/orc-records":     "ends in a span (orcrt's rule)",
	"seq/request-records": "holds maps keyed by integers and addresses, which no LLVM type decodes",
	"map-u32-bool":        "a map keyed by integers: no LLVM type decodes it (LLVM's maps are StringMaps)",
	"map-addr-string":     "a map keyed by addresses: no LLVM type decodes it",
}

// Query decodes data (a shape byte, then the message) with orcrt and
// returns the query the oracle judges; false for an empty input or a
// shape the oracle leaves out.
func Query(data []byte) (OracleQuery, bool) {
	s, in, ok := pick(data)
	if !ok {
		return OracleQuery{}, false
	}
	if _, out := OracleExcluded[s.name]; out {
		return OracleQuery{}, false
	}
	q := OracleQuery{Shape: s.name, Msg: in}
	v, n, err := s.decode(in)
	if err == nil {
		q.OK, q.Consumed, q.Enc = true, n, s.encode(v)
	}
	return q, true
}

// Judge is the oracle: LLVM's verdict on q. It returns "" when LLVM and
// orcrt agree, Undefined when LLVM's own answer is undefined behaviour,
// and the disagreement otherwise; an error when the oracle cannot judge q
// (it does not know the shape).
type Judge func(q OracleQuery) (string, error)

// Undefined is Judge's answer for a message on which LLVM's decoder has no
// defined behaviour: LLVM copies a bool's wire byte into a C++ bool, so a
// byte other than 0 or 1 is undefined behaviour (a clang-22 build of the
// oracle reads 0x54 as false in a branch, by its low bit, and writes it
// back out as 0x54). orcrt reads any non-zero byte as true and writes 1
// (RATIONALE.md, "fuzzing"); such a message is not judged.
const Undefined = "undefined"

// Oracle returns FuzzLLVM's body: orcrt and LLVM reach the same decision
// on every input, and on acceptance consume the same bytes and produce the
// same value (byte-identical re-encodings; for values LLVM keeps in a
// StringMap, equal values).
func Oracle(judge Judge) target.Body {
	return func(t target.T, data []byte) {
		q, ok := Query(data)
		if !ok {
			return
		}
		why, err := judge(q)
		if err != nil {
			t.Fatalf("%s: %v", q.Shape, err)
		}
		if why != "" && why != Undefined {
			t.Fatalf("%s: orcrt and LLVM 22 disagree on %x: %s", q.Shape, q.Msg, why)
		}
	}
}

// OracleShapes returns the names of the shapes the oracle covers: every
// shape but OracleExcluded's.
func OracleShapes() []string {
	var names []string
	for _, s := range shapes {
		if _, out := OracleExcluded[s.name]; !out {
			names = append(names, s.name)
		}
	}
	return names
}

// ShapeNames returns every shape's name, in shape-byte order.
func ShapeNames() []string {
	names := make([]string, len(shapes))
	for i, s := range shapes {
		names[i] = s.name
	}
	return names
}

// ErrUnknownShape is the error a Judge returns for a shape the oracle
// does not know.
func ErrUnknownShape(name string) error {
	return fmt.Errorf("spsfuzz: the LLVM oracle does not know shape %q", name)
}
