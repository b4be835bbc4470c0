# Reliability checks beyond `go test -race ./...` (issue 8). Included by
# the Makefile; `make test` runs them (TEST_EXTRA).
#
#   make leak-sessions   10,000 complete executor sessions in one process,
#                        without the race detector (under -race, in `make
#                        unit`, the same test runs 500), with the measured
#                        heap, mappings, /dev/shm objects, descriptors,
#                        goroutines and threads in the log
#   make soak SOAK=10m   the shutdown-under-load soak test for as long as
#                        asked, under -race (8 s in `make unit`)
#
# Long fuzzing runs: .ci/fuzz-all.sh 10m (every target), or one target as
# README.md ("Fuzzing") shows.

SOAK ?= 60s

.PHONY: leak-sessions soak

TEST_EXTRA += leak-sessions

leak-sessions:
	ORCRT_SESSIONS=10000 $(GO) test -count=1 -run '^TestManySessionsNoLeaks$$' -v ./executor

soak:
	ORCRT_SOAK=$(SOAK) $(GO) test -race -count=1 -timeout 0 -run '^TestSoak$$' -v ./executor
