package crashers

/*
#cgo LDFLAGS: -pthread
#include "crashers.h"
*/
import "C"

// Run triggers the named crash in native code.
func Run(name string) {
	switch name {
	case "segv":
		C.segv()
	case "segv-thread":
		C.segv_on_own_thread()
	case "ill":
		C.ill()
	case "trap":
		C.trap()
	case "fpe":
		C.fpe()
	case "bus":
		C.bus()
	case "abort":
		C.do_abort()
	case "sigpipe":
		C.pipe_write()
	case "atexit-segv":
		C.register_atexit_segv()
	case "buffered-print":
		C.buffered_print()
	}
}
