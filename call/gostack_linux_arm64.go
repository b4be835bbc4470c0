//go:build cgo

package call

// stackBoundExtra is what a function's frame (its stack-size entry) leaves
// out of its stack use on arm64: nothing. The call leaves the return
// address in LR, not on the stack, the frame LLVM records includes the
// saved FP and LR, and AAPCS64 gives no red zone below SP (LLVM's AArch64
// backend uses one only with -aarch64-redzone, off by default).
const stackBoundExtra = 0
