#!/bin/sh
# Install what agentguard needs on a Debian machine (run as root), then build it.
set -eu
cd "$(dirname "$0")/.."
# --microvm: also install QEMU and Debian's kernel and build the microvm sandbox's image (docs/microvm.md).
microvm=no
for arg in "$@"; do
  case "$arg" in
    --microvm) microvm=yes ;;
    *) echo "agentguard: unknown option $arg. Fix: scripts/install.sh [--microvm]" >&2; exit 2 ;;
  esac
done

need_node="20.19.0"
if ! command -v node >/dev/null 2>&1; then
  echo "agentguard: Node.js >= $need_node is required and not installed. Fix: install Node.js 20 or newer (e.g. from nodejs.org or NodeSource), then re-run." >&2
  exit 2
fi
if ! node -e "const [a,b]=process.versions.node.split('.').map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)"; then
  echo "agentguard: Node.js $(node -v) is too old; $need_node or newer is required. Fix: upgrade Node.js." >&2
  exit 2
fi

packages="git kmod bubblewrap iproute2 bpftrace strace python3 python3-venv python3-pytest ca-certificates curl podman runc busybox-static gcc libc6-dev"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "agentguard: missing Debian packages:$missing. Fix: run as root, or: sudo apt-get install -y$missing" >&2
    exit 2
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# What the compiled eBPF collector builds with; optional: without it runs use bpftrace.
collector_packages="clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev make pkg-config"
collector_missing=""
for p in $collector_packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || collector_missing="$collector_missing $p"
done
if [ -n "$collector_missing" ] && [ "$(id -u)" -eq 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  [ -n "$missing" ] || apt-get update -qq >/dev/null 2>&1 || true
  apt-get install -y -qq --no-install-recommends $collector_missing >/dev/null 2>&1 \
    || echo "agentguard: could not install$collector_missing (for the compiled collector); runs will use bpftrace" >&2
fi

npm ci --no-audit --no-fund
npm run build
# The compiled eBPF collector (collector/): optional, runs fall back to bpftrace without it.
if ! make_log=$(make -C collector 2>&1); then
  reason=$(printf '%s\n' "$make_log" | grep -m1 -iE 'error|no such|not found|failed' || printf '%s\n' "$make_log" | tail -n 1)
  echo "agentguard: the compiled collector did not build ($reason); runs will use bpftrace" >&2
fi

if [ "$microvm" = yes ]; then
  microvm_packages="qemu-system-x86 linux-image-amd64 busybox-static cpio python3"
  microvm_missing=""
  for p in $microvm_packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || microvm_missing="$microvm_missing $p"
  done
  if [ -n "$microvm_missing" ]; then
    if [ "$(id -u)" -ne 0 ]; then
      echo "agentguard: the microvm sandbox needs:$microvm_missing. Fix: sudo apt-get install -y$microvm_missing" >&2
      exit 2
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends $microvm_missing >/dev/null
  fi
  sh microvm/build-image.sh
fi
