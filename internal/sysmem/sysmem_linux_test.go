//go:build linux

package sysmem

import (
	"errors"
	"syscall"
	"testing"
)

func TestMapProtectAdviseUnmap(t *testing.T) {
	pg := PageSize()
	if pg == 0 || pg&(pg-1) != 0 {
		t.Fatalf("page size %d", pg)
	}
	a, err := Mmap(0, 4*pg, ProtNone, MapPrivate|MapAnonymous|MapNoreserve, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := Mprotect(a, 2*pg, ProtRead|ProtWrite); err != nil {
		t.Fatal(err)
	}
	if err := Madvise(a, 2*pg, MadvPopulateWrite); err != nil && !errors.Is(err, syscall.EINVAL) {
		t.Fatal(err)
	}
	v := View(a, 2*pg)
	v[0], v[len(v)-1] = 1, 2
	if err := Madvise(a, 2*pg, MadvDontneed); err != nil {
		t.Fatal(err)
	}
	if v[0] != 0 || v[len(v)-1] != 0 {
		t.Fatal("MADV_DONTNEED did not zero private anonymous pages")
	}
	// Errors wrap the errno: misaligned mprotect is EINVAL.
	if err := Mprotect(a+1, pg, ProtRead); !errors.Is(err, syscall.EINVAL) {
		t.Fatalf("misaligned mprotect: %v", err)
	}
	if err := Munmap(a, 4*pg); err != nil {
		t.Fatal(err)
	}
	if View(a, 0) != nil {
		t.Fatal("View of 0 bytes must be nil")
	}
}

func TestMemfdDualView(t *testing.T) {
	pg := PageSize()
	fd, err := MemfdCreate("sysmem-test", MfdCloexec)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := Close(fd); err != nil {
			t.Error(err)
		}
	}()
	if err := Ftruncate(fd, int64(pg)); err != nil {
		t.Fatal(err)
	}
	w, err := Mmap(0, pg, ProtRead|ProtWrite, MapShared, fd, 0)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Mmap(0, pg, ProtRead, MapShared, fd, 0)
	if err != nil {
		t.Fatal(err)
	}
	View(w, pg)[7] = 42
	if View(r, pg)[7] != 42 {
		t.Fatal("views do not share pages")
	}
	if err := Munmap(w, pg); err != nil {
		t.Fatal(err)
	}
	if err := Munmap(r, pg); err != nil {
		t.Fatal(err)
	}
	if err := Close(-1); !errors.Is(err, syscall.EBADF) {
		t.Fatalf("close(-1): %v", err)
	}
}

func TestMembarrierQuery(t *testing.T) {
	mask, err := Membarrier(MembarrierCmdQuery, 0)
	if errors.Is(err, syscall.ENOSYS) {
		t.Skip("no membarrier")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("membarrier commands %#x (sync-core %t)", mask, mask&MembarrierCmdPrivateExpeditedSyncCore != 0)
}
