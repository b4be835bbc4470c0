//go:build cgo

package ehframe_test

import (
	"encoding/binary"
	"encoding/hex"
	"sync"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/orcgo/orcrt/native"
	"github.com/orcgo/orcrt/rt/svctest"
	"github.com/orcgo/orcrt/service/ehframe"
	"github.com/orcgo/orcrt/sps"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// synthEHFrame builds an .eh_frame section with one CIE and one FDE
// covering [pc, pc+size), followed by the zero terminator.
func synthEHFrame(pc, size uint64) []byte {
	cie := []byte{
		0, 0, 0, 0, // CIE id
		1,           // version
		'z', 'R', 0, // augmentation
		1,          // code alignment factor
		0x78,       // data alignment factor -8
		16,         // return address register
		1,          // augmentation data length
		0x00,       // FDE pointer encoding: DW_EH_PE_absptr
		0x0c, 7, 8, // DW_CFA_def_cfa r7+8
		0x90, 1, // DW_CFA_offset r16, cfa-8
	}
	for (len(cie)+4)%8 != 0 {
		cie = append(cie, 0) // DW_CFA_nop
	}
	var out []byte
	out = binary.LittleEndian.AppendUint32(out, uint32(len(cie)))
	out = append(out, cie...)
	fde := []byte{}
	cieOff := len(out) + 4 // distance from the CIE-pointer field back to the CIE
	fde = binary.LittleEndian.AppendUint32(fde, uint32(cieOff))
	fde = binary.LittleEndian.AppendUint64(fde, pc)
	fde = binary.LittleEndian.AppendUint64(fde, size)
	fde = append(fde, 0) // augmentation data length
	for (len(fde)+4)%8 != 0 {
		fde = append(fde, 0)
	}
	out = binary.LittleEndian.AppendUint32(out, uint32(len(fde)))
	out = append(out, fde...)
	return append(out, 0, 0, 0, 0)
}

// placed copies b into fresh mmap'd memory (the unwinder keeps pointing
// at it) and returns its address.
func placed(t *testing.T, b []byte) sps.Addr {
	t.Helper()
	m, err := syscall.Mmap(-1, 0, 4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	require.NoError(t, err)
	copy(m, b)
	a := sps.Addr(uintptr(unsafe.Pointer(&m[0])))
	t.Cleanup(func() {
		for ehframe.Registered(a) > 0 {
			_ = ehframe.Deregister(a)
		}
		_ = syscall.Munmap(m)
	})
	return a
}

func TestUsesLibgccUnwinder(t *testing.T) {
	require.NoError(t, ehframe.Init())
	// The process-wide lookup (what JIT'd ORC-runtime code resolves
	// through the process handle) must give libgcc_s's copy, not a
	// private one.
	ph, err := native.Dlopen("", native.RTLD_LAZY)
	require.NoError(t, err)
	global, err := native.Dlsym(ph, "__register_frame")
	require.NoError(t, err)
	gh, err := native.Dlopen("libgcc_s.so.1", native.RTLD_NOW)
	require.NoError(t, err)
	defer func() { _ = native.Dlclose(gh) }()
	own, err := native.Dlsym(gh, "__register_frame")
	require.NoError(t, err)
	assert.Equal(t, own, global)
	assert.Equal(t, own, ehframe.RegisterFrameAddr())
}

func TestRegisterFindDeregister(t *testing.T) {
	const pc, size = 0x7a5a00001000, 0x100
	a := placed(t, synthEHFrame(pc, size))
	require.Zero(t, ehframe.FindFDE(pc+0x10), "nothing covers the fake range yet")

	require.NoError(t, ehframe.Register(a))
	fde := ehframe.FindFDE(pc + 0x10)
	assert.NotZero(t, fde)
	// The FDE found is the one in our section (after the CIE).
	assert.True(t, fde > uintptr(a) && fde < uintptr(a)+64, "fde %#x, section %#x", fde, a)
	assert.Equal(t, fde, ehframe.FindFDE(pc))
	assert.Zero(t, ehframe.FindFDE(pc+size))

	// Registered twice, deregistered twice.
	require.NoError(t, ehframe.Register(a))
	assert.Equal(t, 2, ehframe.Registered(a))
	require.NoError(t, ehframe.Deregister(a))
	assert.NotZero(t, ehframe.FindFDE(pc+0x10))
	require.NoError(t, ehframe.Deregister(a))
	assert.Zero(t, ehframe.FindFDE(pc+0x10))

	err := ehframe.Deregister(a)
	assert.ErrorContains(t, err, "no eh-frame section registered at")
	assert.Error(t, ehframe.Register(0))
}

func TestActionsOverTheWire(t *testing.T) {
	h := svctest.New(t, ehframe.Install)
	const pc = 0x7a5a00003000
	ehf := synthEHFrame(pc, 0x40)
	a := placed(t, ehf)
	rng := sps.RegisterEHFrameAction.AppendArgs(nil, sps.AddrRange{Start: a, End: a + sps.Addr(len(ehf))})

	r := h.CallName(ehframe.RegisterActionName, rng)
	assert.Equal(t, "00", hex.EncodeToString(r.Bytes()))
	assert.NotZero(t, ehframe.FindFDE(pc))
	r = h.CallName(ehframe.DeregisterActionName, rng)
	assert.Equal(t, "00", hex.EncodeToString(r.Bytes()))
	assert.Zero(t, ehframe.FindFDE(pc))

	// Deregistering again: an SPSError naming the address.
	r = h.CallName(ehframe.DeregisterActionName, rng)
	v, err := sps.Unmarshal(sps.ErrorCodec, r.Bytes())
	require.NoError(t, err)
	assert.ErrorContains(t, v, "no eh-frame section registered")

	// Undecodable arguments (as in Probe 3's direct call with an empty
	// buffer): out-of-band error, i.e. an empty Result on the wire.
	for _, name := range []string{ehframe.RegisterActionName, ehframe.DeregisterActionName} {
		for _, args := range [][]byte{nil, rng[:15]} {
			assert.True(t, h.CallName(name, args).IsOutOfBandError())
		}
	}
}

func TestConcurrentRegistration(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 4 {
		pc := uint64(0x7a5a10000000 + g*0x10000)
		a := placed(t, synthEHFrame(pc, 0x100))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				if err := ehframe.Register(a); err != nil {
					t.Error(err)
					return
				}
				if ehframe.FindFDE(uintptr(pc)+8) == 0 {
					t.Error("registered FDE not found")
				}
				if err := ehframe.Deregister(a); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func BenchmarkRegisterDeregister(b *testing.B) {
	m, err := syscall.Mmap(-1, 0, 4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	require.NoError(b, err)
	defer syscall.Munmap(m)
	copy(m, synthEHFrame(0x7a5a20000000, 0x100))
	a := sps.Addr(uintptr(unsafe.Pointer(&m[0])))
	b.ReportAllocs()
	for b.Loop() {
		_ = ehframe.Register(a)
		_ = ehframe.Deregister(a)
	}
}
