//go:build linux

// Seedgen records real sessions between LLVM's llvm-jitlink and its stock
// llvm-jitlink-executor and checks them in as fuzz seeds. Run it by hand
// from the module root when a release or the targets change:
//
//	go run ./fuzz/internal/seedgen [-keep] [-captures DIR [-dump]]
//
// For each installed release of 22, 19 and 14 (/usr/lib/llvm-N/bin),
// the first release of each of rt/dialect's dialects, it compiles small
// C (and, for 22, C++) programs with that release's clang and runs them
// with llvm-jitlink -oop-executor=SEEDGEN, which makes seedgen a proxy
// (SEEDGEN_PROXY_OUT set) that starts the stock executor on its own
// pipes and records both directions. From the recordings it writes,
// replacing its earlier files (llvmN-SESSION-NNNN):
//
//   - fuzz/wirefuzz: FuzzFrames and FuzzReader, the controller stream
//     behind two mode bytes each (wireModes);
//   - fuzz/spsfuzz: FuzzDecode, FuzzRoundTrip and FuzzDiff, every
//     argument and result payload (up to capture.MaxPayload) behind the
//     index of the shape that decodes it (read from shapes.go's
//     list: rerun after reordering it);
//   - fuzz/executorfuzz: FuzzExecutor, by running its
//     TestGenerateRealSessionSeeds on the recordings (it rewrites
//     addresses into the harness's placeholders).
//
// Addresses differ from run to run, so every run rewrites every file.
// -keep keeps the recordings (the path is printed); -captures DIR writes
// the seeds from an earlier -keep's recordings without running LLVM, or
// with -dump lists their calls.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/orcgo/orcrt/fuzz/internal/seedgen/capture"
	"github.com/orcgo/orcrt/rt/dialect"
)

// Environment of the proxy mode.
const (
	envProxyOut = "SEEDGEN_PROXY_OUT" // recording path, without the suffixes
	envExecutor = "SEEDGEN_EXECUTOR"  // the stock executor to start
)

// releases are the LLVM releases recorded: the first release of each
// dialect, newest first (22, 19, 14).
func releases() []int {
	var rs []int
	for _, d := range slices.Backward(dialect.All) {
		rs = append(rs, d.Releases[0])
	}
	return rs
}

func main() {
	if out := os.Getenv(envProxyOut); out != "" {
		if err := proxy(out, os.Getenv(envExecutor), os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, "seedgen proxy:", err)
			os.Exit(1)
		}
		return
	}
	log.SetFlags(0)
	log.SetPrefix("seedgen: ")
	keep := flag.Bool("keep", false, "keep the recordings")
	captures := flag.String("captures", "", "write seeds from the recordings in `dir` instead of recording")
	dump := flag.Bool("dump", false, "with -captures: list the recorded calls instead of writing seeds")
	flag.Parse()
	if *dump {
		if err := dumpCalls(*captures); err != nil {
			log.Fatal(err)
		}
		return
	}
	if _, err := os.Stat("fuzz/executorfuzz"); err != nil {
		log.Fatal("run me from the module root: ", err)
	}

	dir, err := filepath.Abs(*captures) // the go test below runs elsewhere
	if err != nil {
		log.Fatal(err)
	}
	if *captures == "" {
		if dir, err = os.MkdirTemp("", "seedgen-"); err != nil {
			log.Fatal(err)
		}
		if *keep {
			log.Printf("recordings in %s", dir)
		} else {
			defer os.RemoveAll(dir)
		}
		if err := recordAll(dir); err != nil {
			log.Fatal(err)
		}
	}
	if err := writeSeeds(dir); err != nil {
		log.Fatal(err)
	}
}

// writeSeeds writes every target's seeds from the recordings in dir.
func writeSeeds(dir string) error {
	sessions, err := capture.Load(dir)
	if err != nil {
		return err
	}
	if len(sessions) == 0 {
		return fmt.Errorf("no recordings in %s", dir)
	}
	rels := capture.Releases(sessions)
	if err := writeWireSeeds(sessions, rels); err != nil {
		return err
	}
	if err := writeSPSSeeds(sessions, rels); err != nil {
		return err
	}
	// The placeholder encoding and the harness's world live in
	// executorfuzz's tests, so its own test rewrites the streams.
	cmd := exec.Command("go", "test", "-count=1", "-run", "^TestGenerateRealSessionSeeds$", "-v", "./fuzz/executorfuzz")
	cmd.Env = append(os.Environ(), "ORCRT_SEEDGEN_CAPTURES="+dir)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("executorfuzz seeds: %w", err)
	}
	return nil
}

// wireModes are the mode bytes of each wire target's seeds: 4 KiB reads
// to EOF, and 1-byte reads with the controller going silent at the end
// (FuzzFrames stalls with bits 7 and 6, FuzzReader with bit 7).
var wireModes = map[string][]byte{"FuzzFrames": {0x05, 0xc0}, "FuzzReader": {0x05, 0x80}}

func writeWireSeeds(sessions []*capture.Session, rels []int) error {
	for _, target := range []string{"FuzzFrames", "FuzzReader"} {
		var seeds []capture.Seed
		for _, s := range sessions {
			for _, m := range wireModes[target] {
				seeds = append(seeds, capture.Seed{Session: s.Name, Data: append([]byte{m}, s.C2E...)})
			}
		}
		dir := filepath.Join("fuzz/wirefuzz/testdata/fuzz", target)
		n, size, err := capture.WriteCorpus(dir, rels, seeds)
		if err != nil {
			return err
		}
		log.Printf("%s: %d seeds, %d bytes", dir, n, size)
	}
	return nil
}

// recordAll records every session of every installed release into dir.
func recordAll(dir string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	src, err := os.MkdirTemp("", "seedgen-src-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(src)
	recorded := 0
	for _, r := range releases() {
		bin := fmt.Sprintf("/usr/lib/llvm-%d/bin", r)
		missing := ""
		for _, tool := range []string{"clang", "clang++", "llvm-jitlink", "llvm-jitlink-executor"} {
			if _, err := os.Stat(filepath.Join(bin, tool)); err != nil {
				missing = tool
				break
			}
		}
		if missing != "" {
			log.Printf("LLVM %d: skipped, no %s in %s", r, missing, bin)
			continue
		}
		for _, p := range sessionsFor(r) {
			name := fmt.Sprintf("llvm%d-%s", r, p.name)
			out := filepath.Join(dir, name)
			if err := record(self, bin, src, out, p); err != nil {
				log.Printf("%s: skipped: %v", name, err)
				for _, suffix := range []string{capture.C2ESuffix, capture.E2CSuffix, doneSuffix} {
					os.Remove(out + suffix)
				}
				continue
			}
			recorded++
		}
	}
	if recorded == 0 {
		return fmt.Errorf("no session recorded")
	}
	return nil
}

// record compiles p with the release in bin and runs it through
// llvm-jitlink and the proxy, which leaves out.c2e and out.e2c.
func record(self, bin, src, out string, p session) error {
	obj := filepath.Join(src, filepath.Base(out)+".o")
	file := filepath.Join(src, filepath.Base(out)+p.ext)
	if err := os.WriteFile(file, []byte(p.src), 0o644); err != nil {
		return err
	}
	cc := "clang"
	if p.ext == ".cpp" {
		cc = "clang++"
	}
	args := append([]string{"-c", "-O1", "-o", obj}, p.cflags...)
	if b, err := exec.Command(filepath.Join(bin, cc), append(args, file)...).CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", cc, err, b)
	}
	args = append([]string{"-oop-executor=" + self}, p.jitlink...)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a stuck session is a failure, not a hang
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "llvm-jitlink"), append(args, obj)...)
	cmd.Env = append(os.Environ(), envProxyOut+"="+out, envExecutor+"="+filepath.Join(bin, "llvm-jitlink-executor"))
	// The proxy and the executor outlive llvm-jitlink (it never waits
	// for them) and hold its output pipe; don't wait for them here.
	cmd.WaitDelay = 5 * time.Second
	b, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("llvm-jitlink: %v\n%s", err, b)
	}
	if p.want != "" && string(b) != p.want {
		return fmt.Errorf("llvm-jitlink printed %q, want %q", b, p.want)
	}
	// The proxy marks a complete recording.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(out + doneSuffix); err == nil {
			return os.Remove(out + doneSuffix)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the proxy did not finish %s", out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// dumpCalls lists every recorded call: what the seeds are made of.
func dumpCalls(dir string) error {
	sessions, err := capture.Load(dir)
	if err != nil {
		return err
	}
	for _, s := range sessions {
		fmt.Printf("%s: %d+%d bytes, %d symbols in Setup, reservations %#x\n", s.Name, len(s.C2E), len(s.E2C), len(s.Setup.Symbols), s.Reservations)
		for _, c := range s.Calls {
			name := c.Name
			if name == "" {
				name = fmt.Sprintf("%#x", uint64(c.Tag))
			}
			fmt.Printf("  %3d %s(%d bytes) -> %d bytes\n", c.SeqNo, name, len(c.Payload), len(c.Result))
			for _, a := range c.Actions() {
				fmt.Printf("      action %s(%d bytes) / %s(%d bytes)\n", s.Names[a.Finalize.Fn], len(a.Finalize.Args), s.Names[a.Dealloc.Fn], len(a.Dealloc.Args))
			}
		}
	}
	return nil
}
