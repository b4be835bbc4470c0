package rt

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/klauspost/cpuid/v2"
)

// ProcessInfo describes the executor process: its LLVM target triple, its
// page size and its CPU features in LLVM subtarget-feature syntax
// ("+sse2,+avx2"). It is an immutable value, safe to copy and share.
type ProcessInfo struct {
	triple   string
	pageSize uint64
	features string
}

// NewProcessInfo returns a ProcessInfo with explicit values. The triple
// must be non-empty and the page size a power of two; features is kept
// verbatim.
func NewProcessInfo(triple string, pageSize uint64, features string) (ProcessInfo, error) {
	if triple == "" {
		return ProcessInfo{}, fmt.Errorf("rt: process info: empty target triple")
	}
	if pageSize == 0 || pageSize&(pageSize-1) != 0 {
		return ProcessInfo{}, fmt.Errorf("rt: process info: page size %d is not a power of two", pageSize)
	}
	return ProcessInfo{triple: triple, pageSize: pageSize, features: features}, nil
}

// DetectProcessInfo describes the running process: the triple LLVM's
// sys::getProcessTriple() gives for this GOOS/GOARCH (x86_64-pc-linux-gnu
// on linux/amd64, exactly as the stock llvm-jitlink-executor sends it;
// aarch64-unknown-linux-gnu on linux/arm64), the OS page size, and the CPU
// features cpuid reports, in LLVM's names.
func DetectProcessInfo() (ProcessInfo, error) {
	triple, err := hostTriple(runtime.GOOS, runtime.GOARCH)
	if err != nil {
		return ProcessInfo{}, err
	}
	return NewProcessInfo(triple, uint64(os.Getpagesize()), hostFeatures())
}

// TargetTriple returns the LLVM target triple.
func (p ProcessInfo) TargetTriple() string { return p.triple }

// PageSize returns the page size in bytes (a power of two).
func (p ProcessInfo) PageSize() uint64 { return p.pageSize }

// CPUFeatures returns the subtarget features, "+a,+b" form.
func (p ProcessInfo) CPUFeatures() string { return p.features }

func hostTriple(goos, goarch string) (string, error) {
	switch goos + "/" + goarch {
	case "linux/amd64":
		return "x86_64-pc-linux-gnu", nil
	case "linux/arm64":
		return "aarch64-unknown-linux-gnu", nil
	case "darwin/arm64":
		return "arm64-apple-darwin", nil
	case "darwin/amd64":
		return "x86_64-apple-darwin", nil
	case "freebsd/amd64":
		return "x86_64-unknown-freebsd", nil
	case "freebsd/arm64":
		return "aarch64-unknown-freebsd", nil
	}
	return "", fmt.Errorf("rt: no LLVM target triple known for %s/%s", goos, goarch)
}

// llvmFeatureNames maps cpuid features to LLVM subtarget feature names, in
// the order they are emitted.
var llvmFeatureNames = []struct {
	id   cpuid.FeatureID
	name string
}{
	// x86
	{cpuid.X87, "x87"}, {cpuid.CMPXCHG8, "cx8"}, {cpuid.CMOV, "cmov"},
	{cpuid.MMX, "mmx"}, {cpuid.FXSR, "fxsr"}, {cpuid.SSE, "sse"},
	{cpuid.SSE2, "sse2"}, {cpuid.SSE3, "sse3"}, {cpuid.SSSE3, "ssse3"},
	{cpuid.SSE4, "sse4.1"}, {cpuid.SSE42, "sse4.2"}, {cpuid.SSE4A, "sse4a"},
	{cpuid.CX16, "cx16"}, {cpuid.POPCNT, "popcnt"}, {cpuid.LAHF, "sahf"},
	{cpuid.MOVBE, "movbe"}, {cpuid.AESNI, "aes"}, {cpuid.XSAVE, "xsave"},
	{cpuid.XSAVEOPT, "xsaveopt"}, {cpuid.XSAVEC, "xsavec"}, {cpuid.XSAVES, "xsaves"},
	{cpuid.AVX, "avx"}, {cpuid.F16C, "f16c"}, {cpuid.FMA3, "fma"},
	{cpuid.FMA4, "fma4"}, {cpuid.XOP, "xop"}, {cpuid.TBM, "tbm"},
	{cpuid.RDRAND, "rdrnd"}, {cpuid.RDSEED, "rdseed"}, {cpuid.ADX, "adx"},
	{cpuid.BMI1, "bmi"}, {cpuid.BMI2, "bmi2"}, {cpuid.LZCNT, "lzcnt"},
	{cpuid.AVX2, "avx2"}, {cpuid.SHA, "sha"},
	{cpuid.CLZERO, "clzero"}, {cpuid.WBNOINVD, "wbnoinvd"},
	{cpuid.AVX512F, "avx512f"}, {cpuid.AVX512CD, "avx512cd"},
	{cpuid.AVX512BW, "avx512bw"}, {cpuid.AVX512DQ, "avx512dq"},
	{cpuid.AVX512VL, "avx512vl"}, {cpuid.AVX512IFMA, "avx512ifma"},
	{cpuid.AVX512VBMI, "avx512vbmi"}, {cpuid.AVX512VBMI2, "avx512vbmi2"},
	{cpuid.AVX512VNNI, "avx512vnni"}, {cpuid.AVX512BITALG, "avx512bitalg"},
	{cpuid.AVX512VPOPCNTDQ, "avx512vpopcntdq"}, {cpuid.AVX512BF16, "avx512bf16"},
	{cpuid.AVXVNNI, "avxvnni"}, {cpuid.GFNI, "gfni"}, {cpuid.VAES, "vaes"},
	{cpuid.VPCLMULQDQ, "vpclmulqdq"}, {cpuid.MOVDIRI, "movdiri"},
	{cpuid.MOVDIR64B, "movdir64b"}, {cpuid.SERIALIZE, "serialize"},
	{cpuid.WAITPKG, "waitpkg"}, {cpuid.RTM, "rtm"},
	// arm64
	{cpuid.FP, "fp-armv8"}, {cpuid.ASIMD, "neon"}, {cpuid.AESARM, "aes"},
	{cpuid.SHA2, "sha2"}, {cpuid.SHA3, "sha3"}, {cpuid.SM4, "sm4"},
	{cpuid.CRC32, "crc"}, {cpuid.ATOMICS, "lse"}, {cpuid.ASIMDRDM, "rdm"},
	{cpuid.ASIMDHP, "fullfp16"}, {cpuid.ASIMDDP, "dotprod"},
	{cpuid.JSCVT, "jsconv"}, {cpuid.FCMA, "complxnum"}, {cpuid.LRCPC, "rcpc"},
	{cpuid.DCPOP, "ccpp"}, {cpuid.SVE, "sve"},
}

// hostFeatures formats the features cpuid detects as "+a,+b".
func hostFeatures() string {
	return formatFeatures(func(id cpuid.FeatureID) bool { return cpuid.CPU.Has(id) })
}

func formatFeatures(has func(cpuid.FeatureID) bool) string {
	var sb strings.Builder
	seen := make(map[string]bool)
	for _, f := range llvmFeatureNames {
		if !has(f.id) || seen[f.name] {
			continue
		}
		seen[f.name] = true
		if sb.Len() > 0 {
			sb.WriteByte(',')
		}
		sb.WriteByte('+')
		sb.WriteString(f.name)
	}
	return sb.String()
}
