//go:build linux

package main

// session is one program run through llvm-jitlink.
type session struct {
	name    string
	ext     string // .c or .cpp
	src     string
	cflags  []string
	jitlink []string // extra llvm-jitlink flags
	want    string   // llvm-jitlink's expected output ("" to skip the check)
}

const helloC = `#include <stdio.h>

int main(void) {
  printf("hello, world\n");
  return 0;
}
`

// dataC has several functions, writable and read-only data and (with
// -g) debug information, so the controller registers the object with
// JITLoaderGDB too.
const dataC = `#include <stdio.h>
#include <string.h>

int table[32] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};
static const char *const words[] = {"alpha", "beta", "gamma", "delta"};
static char buf[64];

static int sum(const int *p, int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += p[i];
  return s;
}

__attribute__((noinline)) int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

const char *word(int i) { return words[i & 3]; }

int main(int argc, char **argv) {
  table[20] = fib(10);
  strcpy(buf, word(argc + 1));
  printf("sum=%d fib=%d word=%s len=%zu\n", sum(table, 32), table[20], buf, strlen(buf));
  return sum(table, 16) == 80 ? 0 : 1;
}
`

// cxxEH throws and catches a C++ exception: its unwinding needs the
// EH-frame registration to have worked.
const cxxEH = `#include <cstdio>
#include <stdexcept>
#include <string>

static int check(int x) {
  if (x > 2)
    throw std::runtime_error("too big: " + std::to_string(x));
  return x;
}

int main(int argc, char **) {
  try {
    check(argc + 3); // argc is 0: llvm-jitlink passes no program name
  } catch (const std::exception &e) {
    std::printf("caught %s\n", e.what());
    return 0;
  }
  return 1;
}
`

const (
	helloOut = "hello, world\n"
	dataOut  = "sum=135 fib=55 word=beta len=4\n"
)

// sessionsFor lists the sessions recorded with release r: the two C
// programs everywhere; for the releases that have them, the shared-memory
// and simple-remote memory managers; C++ exceptions with 22.
func sessionsFor(r int) []session {
	ss := []session{
		{name: "hello", ext: ".c", src: helloC, want: helloOut},
		{name: "data", ext: ".c", src: dataC, cflags: []string{"-g"}, want: dataOut},
	}
	switch r {
	case 22:
		ss = append(ss,
			session{name: "cxxeh", ext: ".cpp", src: cxxEH, want: "caught too big: 3\n"},
			session{name: "shm", ext: ".c", src: dataC, jitlink: []string{"-use-memmgr=shared"}, want: dataOut},
			session{name: "simpleremote", ext: ".c", src: dataC, jitlink: []string{"-use-memmgr=simple-remote"}, want: dataOut},
		)
	case 19:
		ss = append(ss, session{name: "shm", ext: ".c", src: dataC, jitlink: []string{"-use-shared-memory"}, want: dataOut})
	}
	return ss
}
