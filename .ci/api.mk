# API stability (issue 41). Included by the Makefile; `make test` runs
# api-check (TEST_EXTRA), which go test ./... runs too.
#
#   make api-check      the tree's exported API against the last release's,
#                       recorded in api/ (internal/apicheck; a few seconds)
#   make api-release VERSION=v0.2.0
#                       after CHANGELOG.md's "## [0.2.0] - <date>" is
#                       written: records api/v0.2.0.txt and .export, commits
#                       them with CHANGELOG.md and tags the commit
#
# The rules (CHANGELOG.md, README.md "Versions"): an incompatible change
# is named under the next minor version's heading, and a removed name was
# marked "// Deprecated:" in the last release.

.PHONY: api-check api-release

TEST_EXTRA += api-check

api-check:
	@$(GO) test -count=1 -run '^TestAPI$$' -v ./internal/apicheck | grep -E '_test.go:|^(ok|FAIL|---)'; exit $${PIPESTATUS[0]}

api-release:
	@[[ "$(VERSION)" =~ ^v0\.[0-9]+\.[0-9]+$$ ]] || { echo 'api-release: VERSION=v0.N.M'; exit 1; }
	@grep -q '^## \[$(VERSION:v%=%)\] - [0-9]' CHANGELOG.md || { echo 'api-release: CHANGELOG.md has no dated "## [$(VERSION:v%=%)] - YYYY-MM-DD" section'; exit 1; }
	$(GO) test -count=1 -run '^TestAPI$$' ./internal/apicheck -record $(VERSION)
	git add api/$(VERSION).txt api/$(VERSION).export CHANGELOG.md
	git commit -m "release $(VERSION): its API recorded in api/ (make api-release)" -- api/$(VERSION).txt api/$(VERSION).export CHANGELOG.md
	git tag -a $(VERSION) -m "orcrt $(VERSION) (CHANGELOG.md)"
