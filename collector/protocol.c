#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "protocol.h"

/* `WATCH <cgroup-id-decimal> <absolute-file-path>` or `STOP`. */
struct command parse_command(char *line)
{
	struct command cmd = {.kind = CMD_INVALID};
	if (strcmp(line, "STOP") == 0) {
		cmd.kind = CMD_STOP;
		return cmd;
	}
	if (strncmp(line, "WATCH ", 6) != 0) {
		cmd.error = "unknown command (expected WATCH <cgroup-id> <file> or STOP)";
		return cmd;
	}
	char *id = line + 6;
	char *space = strchr(id, ' ');
	if (!space || space == id) {
		cmd.error = "WATCH needs a cgroup id and a file path";
		return cmd;
	}
	*space = 0;
	for (const char *c = id; *c; c++) {
		if (*c < '0' || *c > '9') {
			cmd.error = "the cgroup id must be a decimal number";
			return cmd;
		}
	}
	errno = 0;
	unsigned long long value = strtoull(id, NULL, 10);
	if (errno != 0 || value == 0) {
		cmd.error = "the cgroup id must be a nonzero 64-bit number";
		return cmd;
	}
	const char *path = space + 1;
	if (path[0] != '/') {
		cmd.error = "the file path must be absolute";
		return cmd;
	}
	cmd.kind = CMD_WATCH;
	cmd.cgroup_id = value;
	cmd.path = path;
	return cmd;
}
