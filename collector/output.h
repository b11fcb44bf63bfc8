/* The lines of a run's file, in the shapes `bpftrace -f json` prints (record-parser.ts parseLine). */
#ifndef AGENTGUARD_OUTPUT_H
#define AGENTGUARD_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One ring-buffer record as one line; returns 0, or -1 for a record of unknown type or size. */
int write_record(FILE *out, const void *data, size_t size);
/* READY [0, t] and TICK [6, t]. */
void write_clock(FILE *out, int type, uint64_t t);
/* {"type": "lost_events", "data": {"events": N}} */
void write_lost(FILE *out, uint64_t count);

#endif
