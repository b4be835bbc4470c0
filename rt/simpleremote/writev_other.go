//go:build !linux

package simpleremote

const writevSupported = false

type vecState struct{}

func (w *Writer) writev(a, b []byte) error {
	if err := writeFull(w.w, a); err != nil {
		return err
	}
	return writeFull(w.w, b)
}
