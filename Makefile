# orcrt — see README.md. `make demo` runs a JIT'd program through
# orcrt-executor; `make test` runs every check CI runs.
SHELL := /bin/bash
GO ?= go
FUZZTIME ?= 20s
export CGO_ENABLED := 1

.PHONY: all deps build demo test check fmt-check vet staticcheck unit fuzz bench-smoke

all: build

deps:
	@.ci/deps.sh gcc-aarch64-linux-gnu libc6-dev-arm64-cross

build:
	$(GO) build ./...

test: deps fmt-check vet staticcheck unit fuzz bench-smoke
	@echo "make test: all checks passed"

fmt-check:
	@out=$$(gofmt -l $$(find . -name '*.go' -not -path './.git/*')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	GOARCH=amd64 $(GO) vet ./...
	GOARCH=arm64 CC=aarch64-linux-gnu-gcc $(GO) vet ./...

staticcheck:
	$(GO) tool staticcheck ./...

unit:
	$(GO) test -race -count=1 ./...

fuzz:
	.ci/fuzz-all.sh $(FUZZTIME)

bench-smoke:
	$(GO) test -run '^$$' -bench . -benchtime=1x ./...
