package alloc

import "syscall"

// physicalMemory returns physical memory plus swap in bytes, from
// sysinfo(2).
func physicalMemory() (uint64, error) {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0, err
	}
	unit := max(uint64(si.Unit), 1)
	return (uint64(si.Totalram) + uint64(si.Totalswap)) * unit, nil
}
