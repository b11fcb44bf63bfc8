// SPDX-License-Identifier: GPL-2.0
/*
 * The collector's BPF programs: the probes of the generated bpftrace script
 * (src/observe/ebpf/bpftrace-script.ts and the *-probes.ts it uses), compiled once, serving
 * every watched cgroup. Each print() of the script is one ring-buffer record here, with the same
 * fields in the same order (records.h); the daemon writes each as the line bpftrace would.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "records.h"
#include "exec-env.h"

char LICENSE[] SEC("license") = "GPL";

#include "common.bpf.h"
#include "walk.bpf.h"
#include "calls.bpf.h"
#include "env.bpf.h"
#include "exec.bpf.h"
#include "net.bpf.h"
#include "process.bpf.h"
#include "raw.bpf.h"
#include "io_uring.bpf.h"
#include "refused.bpf.h"
