# orcrt — see README.md. `make demo` runs a JIT'd program through
# orcrt-executor; `make test` runs every check CI runs.
SHELL := /bin/bash
GO ?= go
FUZZTIME ?= 20s
export CGO_ENABLED := 1

.PHONY: all deps build executor jit-controller demo test check fmt-check clang-format-check requests-check tidy-check doc-check vet staticcheck unit fuzz fuzz-rate fuzz-libfuzzer fuzz-cover fuzz-cover-check bench-smoke cross

all: build jit-controller

deps:
	@.ci/deps.sh gcc-aarch64-linux-gnu libc6-dev-arm64-cross

build:
	$(GO) build ./...

LLVM_BIN := /usr/lib/llvm-22/bin
ORC_RUNTIME := /usr/lib/llvm-22/lib/clang/22/lib/linux/liborc_rt-x86_64.a
DEMO_SRC := cmd/orcrt-executor/e2e/testdata
DEMO_OUT := bench/out/demo

# With the PGO profile when present (profiles/pgo.sh; `make pgo-profile`).
executor:
	$(GO) build $(if $(wildcard profiles/orcrt-executor.pgo),-pgo=profiles/orcrt-executor.pgo) -o orcrt-executor ./cmd/orcrt-executor

# The sidecar controller of package jit (C++ against llvm-22-dev). The jit
# tests build their own copy into the user cache unless ORCRT_JIT_CONTROLLER
# names one.
jit-controller: deps orcrt-jit-controller
orcrt-jit-controller: $(wildcard jit/controller/*)
	jit/controller/build.sh $(CURDIR)/$@

# The main job: real C and C++ programs, compiled with clang-22 and linked
# by stock llvm-jitlink 22, run inside orcrt-executor.
demo: deps executor
	@mkdir -p $(DEMO_OUT)
	clang-22 -c -fPIC -O1 $(DEMO_SRC)/hello.c -o $(DEMO_OUT)/hello.o
	clang++-22 -c -fPIC -O1 $(DEMO_SRC)/cxx.cpp -o $(DEMO_OUT)/cxx.o
	@echo "== C: llvm-jitlink -oop-executor=./orcrt-executor hello.o -args a b"
	@$(LLVM_BIN)/llvm-jitlink -oop-executor=$(CURDIR)/orcrt-executor $(DEMO_OUT)/hello.o -args a b; \
	  echo "exit code $$? (expected 7)"
	@echo "== C++ with the ORC runtime (static constructor, exception, thread_local, STL)"
	@$(LLVM_BIN)/llvm-jitlink -oop-executor=$(CURDIR)/orcrt-executor -orc-runtime=$(ORC_RUNTIME) \
	  -L/usr/lib/gcc/x86_64-linux-gnu/12 -lstdc++ $(DEMO_OUT)/cxx.o; \
	  echo "exit code $$? (expected 16)"
	@for v in 19 16 14; do \
	  echo "== the same binary, no flag, under LLVM $$v: llvm-jitlink-$$v -oop-executor=./orcrt-executor"; \
	  clang-$$v -c -fPIC -O1 $(DEMO_SRC)/hello.c -o $(DEMO_OUT)/hello-$$v.o && \
	  /usr/lib/llvm-$$v/bin/llvm-jitlink -oop-executor=$(CURDIR)/orcrt-executor $(DEMO_OUT)/hello-$$v.o -args a b; \
	  echo "exit code $$? (expected 7)"; done

# Further checks (benchmark gate, arm64 under emulation, ...) live in
# .ci/*.mk; each appends its targets to TEST_EXTRA.
TEST_EXTRA :=
-include $(sort $(wildcard .ci/*.mk))

test: deps fmt-check clang-format-check requests-check tidy-check doc-check vet cross staticcheck unit fuzz fuzz-cover-check bench-smoke $(TEST_EXTRA)
	@echo "make test: all checks passed"

fmt-check:
	@out=$$(gofmt -l $$(find . -name '*.go' -not -path './.git/*')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	GOARCH=amd64 $(GO) vet ./...
	GOARCH=arm64 CC=aarch64-linux-gnu-gcc $(GO) vet ./...
	$(GO) -C bench/cmd/benchreport vet ./...

# The module builds, and vets, wherever Go does: the executor itself needs
# Linux and cgo, and elsewhere its Linux-only parts return errors wrapping
# errors.ErrUnsupported (see the *_other.go files).
CROSS_TARGETS := darwin/amd64 darwin/arm64 windows/amd64 linux/arm64
cross:
	@set -e; for t in $(CROSS_TARGETS); do \
	  echo "== CGO_ENABLED=0 GOOS=$${t%/*} GOARCH=$${t#*/}: go build, go vet"; \
	  CGO_ENABLED=0 GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) build ./...; \
	  CGO_ENABLED=0 GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) vet ./...; \
	done

# The controller's C++ is in LLVM's style (jit/controller/.clang-format;
# requests.inc is generated, and the repository's other C and C++ keep
# their own). clang-format-22 comes with `make deps`.
CLANG_FORMAT ?= clang-format-22
CONTROLLER_SOURCES = $(wildcard jit/controller/*.cpp jit/controller/*.h)
clang-format-check: deps
	@$(CLANG_FORMAT) --dry-run --Werror $(CONTROLLER_SOURCES) || \
	  { echo "clang-format-check: run \`$(CLANG_FORMAT) -i jit/controller/*.cpp jit/controller/*.h\`"; exit 1; }

# jit/requests_gen.go and jit/controller/requests.inc are what
# jit/requests.txt makes (also part of unit).
requests-check:
	$(GO) test -count=1 ./jit/internal/genrequests

# go.mod and go.sum are what `go mod tidy` makes them (the plotting stack
# of bench/cmd/benchreport lives in that command's own module).
tidy-check:
	@$(GO) mod tidy -diff || { echo "tidy-check: run \`go mod tidy\`"; exit 1; }

# Package docs stay short (at most 60 lines each) and comments stay near
# the anchors' density (.ci/comment-ratio.sh: at most 0.30); the why
# lives in RATIONALE.md.
doc-check:
	@long=$$(for f in $$(git ls-files '*doc.go'); do [ $$(wc -l < $$f) -le 60 ] || echo $$f; done); \
	if [ -n "$$long" ]; then echo "doc-check: over 60 lines: $$long"; exit 1; fi
	@r=$$(.ci/comment-ratio.sh); echo "doc-check: $$r"; \
	awk -v r="$${r##* }" 'BEGIN { exit !(r <= 0.30) }' || { echo "doc-check: comment-to-code ratio above 0.30"; exit 1; }

staticcheck:
	$(GO) tool staticcheck ./...

# The tests of package jit and its users take the controller built here.
JIT_CONTROLLER_ENV = ORCRT_JIT_CONTROLLER=$(CURDIR)/orcrt-jit-controller

unit: jit-controller
	$(JIT_CONTROLLER_ENV) ORCRT_REQUIRE_LLVM=1 $(GO) test -race -count=1 ./...

fuzz:
	.ci/fuzz-all.sh --self-test
	.ci/fuzz-all.sh $(FUZZTIME)

# Each fuzz target's throughput with one worker (FUZZRATE_TIME each).
FUZZRATE_TIME ?= 60s
fuzz-rate:
	.ci/fuzz-rate.sh $(FUZZRATE_TIME)

# The codec and wire targets and the LLVM oracle (FuzzLLVM) under
# libFuzzer (clang, libclang-rt, llvm-22-dev), each FUZZ_LIBFUZZER_TIME on
# one worker, beside the native engine's rate; fails on a crash and
# writes it into testdata/fuzz (not in make test).
FUZZ_LIBFUZZER_TIME ?= 60s
fuzz-libfuzzer:
	.ci/fuzz-libfuzzer.sh $(FUZZ_LIBFUZZER_TIME)

# Statement coverage the checked-in fuzz corpora reach, and the functions
# they never reach (OUT=dir keeps the profiles; MIN_SPS, MIN_WIRE,
# MIN_SERVICES, MIN_DECODING turn it into a check).
fuzz-cover:
	.ci/fuzz-cover.sh

# The coverage the corpora must keep (part of make test).
fuzz-cover-check:
	MIN_SPS=90 MIN_WIRE=90 MIN_DECODING=85 .ci/fuzz-cover.sh >/dev/null

bench-smoke: jit-controller
	$(JIT_CONTROLLER_ENV) $(GO) test -run '^$$' -bench . -benchtime=1x ./...
