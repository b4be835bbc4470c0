//go:build linux

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/orcgo/orcrt/fuzz/internal/seedgen/capture"
)

// doneSuffix marks a finished recording: the proxy outlives llvm-jitlink.
const doneSuffix = ".done"

// proxy serves llvm-jitlink's `filedescs=IN,OUT` by starting the stock
// executor on pipes of its own and relaying both directions, recording
// each to out.c2e and out.e2c.
func proxy(out, executor string, args []string) error {
	var in, wr int
	found := false
	for _, a := range args {
		if spec, ok := strings.CutPrefix(a, "filedescs="); ok {
			i, o, _ := strings.Cut(spec, ",")
			var err1, err2 error
			in, err1 = strconv.Atoi(i)
			wr, err2 = strconv.Atoi(o)
			if err := errors.Join(err1, err2); err != nil {
				return fmt.Errorf("bad %q: %w", a, err)
			}
			found = true
		}
	}
	if !found || executor == "" {
		return fmt.Errorf("want filedescs=IN,OUT and %s, got %q", envExecutor, args)
	}
	// The inherited descriptors must not reach the executor: it would
	// keep the controller's pipes open.
	syscall.CloseOnExec(in)
	syscall.CloseOnExec(wr)
	ctrlIn, ctrlOut := os.NewFile(uintptr(in), "from-controller"), os.NewFile(uintptr(wr), "to-controller")

	toExecR, toExecW, err := os.Pipe()
	if err != nil {
		return err
	}
	fromExecR, fromExecW, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd := exec.Command(executor, "filedescs=3,4")
	cmd.ExtraFiles = []*os.File{toExecR, fromExecW}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	toExecR.Close()
	fromExecW.Close()

	c2e, err := os.Create(out + capture.C2ESuffix)
	if err != nil {
		return err
	}
	e2c, err := os.Create(out + capture.E2CSuffix)
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	var errC2E, errE2C error
	wg.Go(func() { errC2E = relay(toExecW, ctrlIn, c2e) })
	wg.Go(func() { errE2C = relay(ctrlOut, fromExecR, e2c) })
	wg.Wait()
	werr := cmd.Wait()
	if err := errors.Join(errC2E, errE2C, c2e.Close(), e2c.Close()); err != nil {
		return err
	}
	if werr != nil {
		fmt.Fprintln(os.Stderr, "seedgen proxy: executor:", werr)
	}
	return os.WriteFile(out+doneSuffix, nil, 0o644)
}

// relay copies src to dst until src ends, recording every byte first:
// a peer that went away still leaves the rest of the stream recorded.
// It closes dst at the end, which is how the end reaches the peer.
func relay(dst io.WriteCloser, src io.Reader, rec io.Writer) error {
	defer dst.Close()
	buf := make([]byte, 64<<10)
	forward := true
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := rec.Write(buf[:n]); werr != nil {
				return werr
			}
			if forward {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					forward = false // the peer is gone; keep draining
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
