#!/bin/busybox sh
# PID 1 of the agentguard microVM (packed into the initramfs by microvm/build-image.sh).
# Mounts the host root read-only over virtio-9p and the run's workspace and HOME read-write at their
# host paths (the inner bwrap then gives the agent its private /tmp, as on the host), then hands over to the guest runner (guest-run.js, Node from
# the host root), which talks to the harness over virtio-serial ports. Any failure here is printed
# to the console (the run's evidence keeps the console log) and the VM powers off.
B=/bin/busybox
fail() {
  echo "agentguard-guest: $*"
  $B poweroff -f
}
$B mount -t proc proc /proc
$B mount -t sysfs sys /sys
$B mount -t devtmpfs dev /dev
for m in $($B cat /modules.order); do
  $B insmod "/modules/$m.ko" || fail "cannot load kernel module $m"
done
for arg in $($B cat /proc/cmdline); do
  case "$arg" in
    agentguard.repo=*) REPO="${arg#agentguard.repo=}" ;;
    agentguard.home=*) RUNHOME="${arg#agentguard.home=}" ;;
    agentguard.node=*) NODE="${arg#agentguard.node=}" ;;
    agentguard.runner=*) RUNNER="${arg#agentguard.runner=}" ;;
  esac
done
[ -n "$REPO" ] && [ -n "$RUNHOME" ] && [ -n "$NODE" ] && [ -n "$RUNNER" ] || fail "kernel command line lacks agentguard.repo/home/node/runner"
R=/newroot
$B mkdir -p $R
$B mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=524288,cache=loose hostroot $R || fail "cannot mount the host root over 9p"
$B mount --move /dev $R/dev || fail "cannot move /dev"
$B mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs $R/dev/shm 2>/dev/null
$B mount --move /proc $R/proc || fail "cannot move /proc"
$B mount --move /sys $R/sys || fail "cannot move /sys"
$B mount -t cgroup2 cgroup2 $R/sys/fs/cgroup 2>/dev/null
$B mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288,cache=mmap repo "$R$REPO" || fail "cannot mount the workspace $REPO"
$B mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288,cache=mmap home "$R$RUNHOME" || fail "cannot mount the run HOME $RUNHOME"
exec $B switch_root $R "$NODE" "$RUNNER"
