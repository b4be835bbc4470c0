package gdbjit

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// FuncSym is a function symbol of a debug object, at its load address.
type FuncSym struct {
	Addr, Size uint64
	Name       string
}

// maxSyms bounds the symbols read from one debug object.
const maxSyms = 1 << 20

// FuncSymbols reads the defined function symbols of a debug object: a
// 64-bit little-endian relocatable ELF whose section headers the
// controller set to the sections' load addresses, so a symbol is at its
// section's sh_addr plus its value. The image is hostile input: every
// offset and size is checked, and a malformed one is an error.
func FuncSymbols(img []byte) ([]FuncSym, error) {
	le := binary.LittleEndian
	if len(img) < 64 || !bytes.Equal(img[:4], []byte("\x7fELF")) {
		return nil, errors.New("gdbjit: debug object: not an ELF image")
	}
	if img[4] != 2 || img[5] != 1 {
		return nil, errors.New("gdbjit: debug object: not 64-bit little-endian ELF")
	}
	shoff, shentsize, shnum := le.Uint64(img[0x28:]), uint64(le.Uint16(img[0x3a:])), uint64(le.Uint16(img[0x3c:]))
	if shentsize < 64 || shoff > uint64(len(img)) || shnum > (uint64(len(img))-shoff)/shentsize {
		return nil, fmt.Errorf("gdbjit: debug object: %d section headers of %d bytes at %#x overrun its %d bytes", shnum, shentsize, shoff, len(img))
	}
	type section struct{ typ, link, addr, off, size, entsize uint64 }
	secs := make([]section, shnum)
	for i := range secs {
		h := img[shoff+uint64(i)*shentsize:]
		secs[i] = section{typ: uint64(le.Uint32(h[4:])), link: uint64(le.Uint32(h[0x28:])), addr: le.Uint64(h[0x10:]),
			off: le.Uint64(h[0x18:]), size: le.Uint64(h[0x20:]), entsize: le.Uint64(h[0x38:])}
	}
	body := func(s section) ([]byte, error) {
		if s.off > uint64(len(img)) || s.size > uint64(len(img))-s.off {
			return nil, fmt.Errorf("gdbjit: debug object: section of %d bytes at %#x overruns its %d bytes", s.size, s.off, len(img))
		}
		return img[s.off : s.off+s.size], nil
	}
	var syms []FuncSym
	for _, st := range secs {
		if st.typ != 2 { // SHT_SYMTAB
			continue
		}
		if st.link >= shnum || st.entsize < 24 {
			return nil, errors.New("gdbjit: debug object: a symbol table without a string table or with short entries")
		}
		tab, err := body(st)
		if err != nil {
			return nil, err
		}
		strs, err := body(secs[st.link])
		if err != nil {
			return nil, err
		}
		for off := uint64(0); off+24 <= uint64(len(tab)) && len(syms) < maxSyms; off += st.entsize {
			e := tab[off:]
			name, info, shndx := uint64(le.Uint32(e)), e[4], uint64(le.Uint16(e[6:]))
			value, size := le.Uint64(e[8:]), le.Uint64(e[16:])
			if info&0xf != 2 || shndx == 0 || shndx >= shnum || size == 0 || name >= uint64(len(strs)) { // STT_FUNC, defined
				continue
			}
			n := bytes.IndexByte(strs[name:], 0)
			if n <= 0 {
				continue
			}
			syms = append(syms, FuncSym{Addr: secs[shndx].addr + value, Size: size, Name: string(strs[name : name+uint64(n)])})
		}
	}
	return syms, nil
}
