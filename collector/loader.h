/* Loading and attaching the BPF programs (loader.c). */
#ifndef AGENTGUARD_LOADER_H
#define AGENTGUARD_LOADER_H

#include <stdint.h>
#include "agentguard.skel.h"

extern struct agentguard_bpf *skel;
/* What this kernel cannot trace, comma-separated (empty: nothing). */
extern char missing[4096];
/* `agentguard-collector <n> libbpf <major.minor>` */
extern char version[128];

/* Opens, loads (ring of `ring_bytes`) and attaches; on failure prints one line and exits 1. */
void load(uint64_t ring_bytes);
/* Prints `agentguard-collector: <what> failed: <why>` (with libbpf's explanation) and exits 1. */
void fail(const char *what, int err);
void detach_all(void);

#endif
