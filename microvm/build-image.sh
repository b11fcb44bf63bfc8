#!/bin/sh
# Build what the microvm sandbox boots (docs/microvm.md): the newest installed Debian kernel,
# unpacked to the ELF image QEMU's microvm machine boots directly (PVH), and a small initramfs
# (busybox-static, the 9p and virtio-serial modules, microvm/init.sh).
# Output: ${AGENTGUARD_MICROVM_DIR:-/var/lib/agentguard/microvm}/{vmlinux,initramfs.cpio.gz,kernel-release}
set -eu
cd "$(dirname "$0")/.."
out="${AGENTGUARD_MICROVM_DIR:-/var/lib/agentguard/microvm}"
vmlinuz=$(ls -1 /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$vmlinuz" ]; then
  echo "agentguard: no kernel in /boot. Fix: apt-get install -y linux-image-amd64" >&2
  exit 2
fi
release="${vmlinuz#/boot/vmlinuz-}"
moddir="/lib/modules/$release"
[ -f "$moddir/modules.dep" ] || { echo "agentguard: $moddir/modules.dep is missing. Fix: apt-get install --reinstall linux-image-$release" >&2; exit 2; }
command -v busybox >/dev/null 2>&1 || { echo "agentguard: busybox is not installed. Fix: apt-get install -y busybox-static" >&2; exit 2; }
command -v cpio >/dev/null 2>&1 || { echo "agentguard: cpio is not installed. Fix: apt-get install -y cpio" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || { echo "agentguard: python3 is not installed. Fix: apt-get install -y python3" >&2; exit 2; }
mkdir -p "$out" 2>/dev/null && [ -w "$out" ] || { echo "agentguard: cannot write the microvm image to $out. Fix: run as root, or set AGENTGUARD_MICROVM_DIR to a folder you can write (and export it for agentguard runs)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ir/bin" "$work/ir/dev" "$work/ir/proc" "$work/ir/sys" "$work/ir/modules" "$out"
cp "$(command -v busybox)" "$work/ir/bin/busybox"
file "$work/ir/bin/busybox" 2>/dev/null | grep -q 'statically linked' || ldd "$work/ir/bin/busybox" 2>&1 | grep -q 'not a dynamic' \
  || { echo "agentguard: $(command -v busybox) is not statically linked. Fix: apt-get install -y busybox-static" >&2; exit 2; }
# Modules in load order (dependencies first); built-in ones (=y) need nothing.
: > "$work/ir/modules.order"
for m in virtio_ring virtio virtio_mmio virtio_console netfs fscache 9pnet 9pnet_virtio 9p; do
  rel=$(grep -E "(^|/)$m\.ko(\.xz|\.zst|\.gz)?:" "$moddir/modules.dep" | head -n 1 | cut -d: -f1 || true)
  if [ -z "$rel" ]; then
    grep -qE "(^|/)$m\.ko" "$moddir/modules.builtin" 2>/dev/null && continue
    echo "agentguard: kernel $release has no module $m (9p or virtio-serial). Fix: install a Debian kernel with 9p and virtio (apt-get install -y linux-image-amd64)" >&2
    exit 2
  fi
  case "$rel" in
    *.xz) xz -dc "$moddir/$rel" > "$work/ir/modules/$m.ko" ;;
    *.zst) zstd -qdc "$moddir/$rel" > "$work/ir/modules/$m.ko" ;;
    *.gz) gzip -dc "$moddir/$rel" > "$work/ir/modules/$m.ko" ;;
    *) cp "$moddir/$rel" "$work/ir/modules/$m.ko" ;;
  esac
  echo "$m" >> "$work/ir/modules.order"
done
cp microvm/init.sh "$work/ir/init"
chmod 755 "$work/ir/init"
(cd "$work/ir" && find . | cpio -o -H newc --quiet | gzip -1) > "$work/initramfs.cpio.gz"
# The bzImage's payload is the ELF kernel; microvm boots that directly (PVH), skipping the
# real-mode setup and the decompressor.
python3 - "$vmlinuz" "$work/vmlinux" <<'PY'
import lzma, gzip, sys, zlib
data = open(sys.argv[1], 'rb').read()
for magic, unpack in ((b'\xfd7zXZ\x00', lambda b: lzma.LZMADecompressor().decompress(b)),
                      (b'\x1f\x8b\x08', lambda b: zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(b))):
    at = data.find(magic)
    while at >= 0:
        try:
            elf = unpack(data[at:])
        except Exception:
            elf = b''
        if elf[:4] == b'\x7fELF':
            open(sys.argv[2], 'wb').write(elf)
            sys.exit(0)
        at = data.find(magic, at + 1)
sys.exit('agentguard: could not find the ELF kernel inside ' + sys.argv[1])
PY
mv "$work/vmlinux" "$out/vmlinux"
mv "$work/initramfs.cpio.gz" "$out/initramfs.cpio.gz"
echo "$release" > "$out/kernel-release"
echo "agentguard: microvm image for kernel $release in $out"
