/* libFuzzer target: the pprof reader on arbitrary bytes, then every
 * writer on whatever profile it accepted.  The reader parses untrusted
 * files: no input may crash it or make a writer misbehave. */
#include "output.h"
#include "profile.h"

#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const formats[] = { "text", "folded", "pprof", "svg" };
	struct output_opts oo = { .thread_frames = 1, .callgraph = 1, .lines = 1 };
	struct profile p;
	FILE *null;
	size_t i;

	profile_init(&p);
	if (pprof_read_mem(data, size, "fuzz", &p) == 0) {
		null = fopen("/dev/null", "w");
		profile_demangle(&p);
		for (i = 0; null && i < sizeof(formats) / sizeof(formats[0]); i++)
			writer_find(formats[i])->write(null, &p, NULL, &oo);
		oo.per_thread = 1;
		if (null)
			writer_find("text")->write(null, &p, NULL, &oo);
		if (null)
			fclose(null);
	}
	profile_release(&p);
	return 0;
}
