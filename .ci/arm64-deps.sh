#!/usr/bin/env bash
# Prepares the arm64 side of CI on an x86-64 Debian 12 host:
#   - host packages: QEMU user mode and the AArch64 cross toolchain (C and
#     C++ headers/libraries), through .ci/deps.sh;
#   - a private arm64 root (sysroot) for `qemu-aarch64 -L <root>`: Debian's
#     arm64 glibc, libstdc++, libgcc_s, ..., the stock arm64
#     llvm-jitlink-executor (the reference executor) and the AArch64 ORC
#     runtime (liborc_rt-aarch64.a). These arm64 .debs are downloaded with
#     `apt-get download` and unpacked with `dpkg -x` into the root; they are
#     never installed on the host.
#
# Usage: .ci/arm64-deps.sh <root dir>
# Idempotent: the root is rebuilt only when the package versions change.
set -euo pipefail
cd "$(dirname "$0")/.."

root=${1:?usage: .ci/arm64-deps.sh <root dir>}

.ci/deps.sh qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross libstdc++-12-dev-arm64-cross

# Runtime libraries of the arm64 orcrt-executor, of Go's cgo test binaries
# and of Debian's arm64 llvm-jitlink-executor, plus the executor itself and
# the ORC runtime archive.
pkgs=(libc6 libstdc++6 libgcc-s1 libgomp1 libz3-4 zlib1g libzstd1 llvm-22 libclang-rt-22-dev)

is_root() { [ "$(id -u)" -eq 0 ]; }

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  if ! is_root; then
    echo "orcrt: the arm64 root needs Debian's arm64 package lists; run as root:" >&2
    echo "orcrt:   dpkg --add-architecture arm64 && apt-get update" >&2
    exit 1
  fi
  echo "orcrt: dpkg --add-architecture arm64" >&2
  dpkg --add-architecture arm64
fi
if ! apt-cache show libc6:arm64 >/dev/null 2>&1; then
  if ! is_root; then
    echo "orcrt: no arm64 package lists; run as root: apt-get update" >&2
    exit 1
  fi
  echo "orcrt: apt-get update (arm64 package lists)" >&2
  apt-get update -q >/dev/null
fi

# The versions apt would download now (and the layout this script makes);
# the root is current if they match.
dl=()
for p in "${pkgs[@]}"; do
  v=$(apt-cache policy "$p:arm64" | awk '/Candidate:/ {print $2}')
  if [ -z "$v" ] || [ "$v" = "(none)" ]; then
    echo "orcrt: no candidate for $p:arm64 in the package lists" >&2
    exit 1
  fi
  dl+=("$p:arm64=$v")
done
want=$(printf '%s\n' layout=1 "${dl[@]}")
if [ -f "$root/.orcrt-arm64-root" ] && [ "$(cat "$root/.orcrt-arm64-root")" = "$want" ]; then
  exit 0
fi

echo "orcrt: building the arm64 root in $root" >&2
mkdir -p "$(dirname "$root")"
work=$(mktemp -d "$(dirname "$root")/.arm64root.XXXXXX")
debs=$(mktemp -d)
trap 'rm -rf "$work" "$debs"' EXIT
mkdir "$work/root"
# apt-get download writes into the current directory; as root it drops
# privileges to _apt, which must be able to write there (a home directory
# is often not reachable for _apt, so download under $TMPDIR).
chmod 777 "$debs"
(cd "$debs" && apt-get download -q "${dl[@]}" >/dev/null)
for deb in "$debs"/*.deb; do
  dpkg -x "$deb" "$work/root"
done

# The link the linker (and llvm-jitlink's -lstdc++) looks for, where
# Debian's arm64 libstdc++-12-dev has it: -L<root>/usr/lib/gcc/aarch64-linux-gnu/12
# then names the root's libstdc++, the copy the executors already load.
mkdir -p "$work/root/usr/lib/gcc/aarch64-linux-gnu/12"
ln -s ../../../aarch64-linux-gnu/libstdc++.so.6 "$work/root/usr/lib/gcc/aarch64-linux-gnu/12/libstdc++.so"

# Sanity: what qemu and the tests need.
for f in lib/ld-linux-aarch64.so.1 usr/lib/llvm-22/bin/llvm-jitlink-executor \
  usr/lib/llvm-22/lib/clang/22/lib/linux/liborc_rt-aarch64.a usr/lib/gcc/aarch64-linux-gnu/12/libstdc++.so; do
  if [ ! -e "$work/root/$f" ]; then
    echo "orcrt: arm64 root is missing /$f" >&2
    exit 1
  fi
done
printf '%s\n' "$want" >"$work/root/.orcrt-arm64-root"

rm -rf "$root"
mv "$work/root" "$root"
echo "orcrt: arm64 root ready: $root" >&2
