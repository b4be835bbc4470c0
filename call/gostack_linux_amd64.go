//go:build cgo

package call

// stackBoundExtra is what a function's frame (its stack-size entry) leaves
// out of its stack use on amd64: the return address its call pushes (8)
// and the System V red zone (128), which a leaf may use below its stack
// pointer without moving it.
const stackBoundExtra = 8 + 128
