/* libFuzzer target: the parsers of /proc/PID/task/TID/stat lines, which
 * hold a command name the traced program chose (any bytes but NUL, with
 * spaces and parentheses). */
#include "proc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	struct proc_stat st;
	uint64_t faults;
	int cpu;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	proc_stat_parse(buf, &st);
	proc_state_parse(buf, &cpu, &faults);
	free(buf);
	return 0;
}
