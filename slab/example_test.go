//go:build linux

package slab_test

import (
	"errors"
	"fmt"

	"github.com/orcgo/orcrt/slab"
)

// Example places code in executable memory: reserve a region, write the
// bytes while it is read-write, then make it read-execute. Writable and
// executable at once is refused.
func Example() {
	s, err := slab.New(slab.Config{Size: 1 << 20})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	r, err := s.Reserve(100)
	if err != nil {
		fmt.Println(err)
		return
	}
	code := []byte{0xb8, 0x2a, 0, 0, 0, 0xc3} // x86-64: mov eax, 42; ret
	if err := s.Write(r.Base(), code, r.Size()); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("whole pages:", r.Size()%s.PageSize() == 0, "executable:", s.IsExecutable(r.Base(), uintptr(len(code))))

	err = s.Protect(r.Base(), r.Size(), slab.ProtRead|slab.ProtWrite|slab.ProtExec)
	fmt.Println("RWX refused:", errors.Is(err, slab.ErrWriteExec))

	if err := s.Protect(r.Base(), r.Size(), slab.ProtRX); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("executable:", s.IsExecutable(r.Base(), uintptr(len(code))))
	fmt.Println(s.Release(r))
	// Output:
	// whole pages: true executable: false
	// RWX refused: true
	// executable: true
	// <nil>
}
