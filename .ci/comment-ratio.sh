#!/usr/bin/env bash
# Comment-to-code ratio of the non-test Go files under a folder (default:
# the module): comment lines (// lines and /* */ blocks) over code lines
# (every other non-blank line; a cgo preamble, the /* */ block right
# before import "C", counts as code). testdata is left out.
set -euo pipefail
find "${1:-.}" -name '*.go' -not -name '*_test.go' -not -path '*/.git/*' -not -path '*/testdata/*' -print0 |
  xargs -0 awk '
    FNR == 1 { if (blk) { c += blk }; blk = 0; inblk = 0 }
    {
      s = $0; sub(/^[ \t]+/, "", s)
      if (inblk) { blk++; if (s ~ /\*\//) inblk = 0; next }
      if (blk) { if (s ~ /^import "C"/) k += blk; else c += blk; blk = 0 }
      if (s == "") next
      if (s ~ /^\/\//) { c++; next }
      if (s ~ /^\/\*/) { blk = 1; if (s !~ /\*\//) inblk = 1; next }
      k++
    }
    END { if (blk) c += blk; printf "comment lines %d, code lines %d, ratio %.3f\n", c, k, c / k }'
