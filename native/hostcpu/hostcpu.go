package hostcpu

import (
	"strings"

	"github.com/klauspost/cpuid/v2"
)

// Features returns the CPU features cpuid detects, in LLVM's
// subtarget-feature syntax ("+sse2,+avx2"), each once, in table order.
func Features() string {
	return formatFeatures(func(id cpuid.FeatureID) bool { return cpuid.CPU.Has(id) })
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
