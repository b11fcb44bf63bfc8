/* The control protocol: one text line per command from a client (see collector.c). */
#ifndef AGENTGUARD_PROTOCOL_H
#define AGENTGUARD_PROTOCOL_H

#include <limits.h>
#include <stdint.h>

#define COMMAND_MAX (PATH_MAX + 64)

enum command_kind { CMD_WATCH, CMD_STOP, CMD_INVALID };

struct command {
	enum command_kind kind;
	uint64_t cgroup_id;
	const char *path; /* points into the parsed line */
	const char *error; /* for CMD_INVALID: one sentence */
};

/* Parses one line (without its newline; modified in place). */
struct command parse_command(char *line);

#endif
