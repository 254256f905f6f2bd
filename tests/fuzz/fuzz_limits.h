/* fuzz_limits.h - the entry point of the fuzz targets that decode under
 * limits: each input runs through the target's run() twice, with the
 * default limits and with limits far above them (so that inputs past the
 * defaults reach the deeper code too). Include after run() is defined. */
#ifndef SPATE_FUZZ_LIMITS_H
#define SPATE_FUZZ_LIMITS_H

#include <stddef.h>
#include <stdint.h>

#include "proto/spate_types.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct spate_limits def, big = { 1000, 1000, 1000, 1000, 1000, 1024 };

	if (def.max_messages == 0)
		spate_limits_default(&def);
	run(data, size, &def);
	run(data, size, &big);
	return 0;
}

#endif
