#!/bin/sh
# Build the tiny local image used by the container sandbox's tests and demos, offline:
# a rootfs holding Debian's static busybox and its applet links, imported with `podman import`.
# Usage: scripts/make-test-image.sh [--force] [--engine podman|docker] [--image NAME]
# Idempotent: does nothing when the image exists unless --force. Prints the image id on stdout.
set -eu

image="localhost/agentguard-test:latest"
engine="podman"
force=0
while [ $# -gt 0 ]; do
  case "$1" in
    --force) force=1 ;;
    --engine) engine="$2"; shift ;;
    --image) image="$2"; shift ;;
    -h|--help) sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "make-test-image: unknown argument '$1'. Fix: use --force, --engine or --image." >&2; exit 2 ;;
  esac
  shift
done

if ! command -v "$engine" >/dev/null 2>&1; then
  echo "make-test-image: '$engine' is not installed. Fix: apt-get install -y podman runc" >&2
  exit 2
fi

old_id="$("$engine" image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)"
if [ "$force" -eq 0 ] && [ -n "$old_id" ]; then
  echo "$old_id"
  exit 0
fi

# Debian's busybox-static: one statically linked binary, so the rootfs needs no libraries.
if ! dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q "install ok installed"; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "make-test-image: busybox-static is missing. Fix: sudo apt-get install -y busybox-static" >&2
    exit 2
  fi
  echo "make-test-image: installing busybox-static from Debian" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq busybox-static >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null && apt-get install -y -qq busybox-static >/dev/null; }
fi
busybox=""
for candidate in $(dpkg-query -L busybox-static | grep '/busybox$'); do
  if [ -f "$candidate" ] && [ -x "$candidate" ]; then busybox="$candidate"; break; fi
done
if [ -z "$busybox" ]; then
  echo "make-test-image: busybox-static is installed but its binary was not found. Fix: apt-get install --reinstall -y busybox-static" >&2
  exit 2
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT INT TERM
root="$work/rootfs"
mkdir -p "$root/bin" "$root/sbin" "$root/usr/bin" "$root/usr/sbin" "$root/etc" "$root/root" \
  "$root/tmp" "$root/dev" "$root/proc" "$root/sys" "$root/run" "$root/var/tmp" "$root/home"
chmod 1777 "$root/tmp" "$root/var/tmp"
chmod 0700 "$root/root"
cp "$busybox" "$root/bin/busybox"
chmod 0755 "$root/bin/busybox"
for applet in $("$root/bin/busybox" --list); do
  [ "$applet" = "busybox" ] || ln -s busybox "$root/bin/$applet"
done
cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
EOF
cat >"$root/etc/group" <<'EOF'
root:x:0:
nogroup:x:65534:
EOF
printf 'hosts: files dns\n' >"$root/etc/nsswitch.conf"
: >"$root/etc/hosts"
: >"$root/etc/resolv.conf"

tar -C "$root" --numeric-owner --owner=0 --group=0 -cf "$work/rootfs.tar" .
"$engine" import \
  --change 'ENV PATH=/bin:/sbin:/usr/bin:/usr/sbin' \
  --change 'CMD ["/bin/sh"]' \
  --message 'agentguard test image: Debian busybox-static' \
  "$work/rootfs.tar" "$image" >/dev/null
new_id="$("$engine" image inspect --format '{{.Id}}' "$image")"
# A rebuild leaves the previous image untagged: remove it unless a container still uses it.
if [ -n "$old_id" ] && [ "$old_id" != "$new_id" ]; then "$engine" rmi "$old_id" >/dev/null 2>&1 || true; fi
echo "$new_id"
