/* fuzz_seed.h - what every fuzz target's seed generator (its main() when
 * built with -DSPATE_FUZZ_SEEDS) shares: writing one corpus file. */
#ifndef SPATE_FUZZ_SEED_H
#define SPATE_FUZZ_SEED_H

#include <stdio.h>

/* Write buf into dir/name; 0, or -1 after printing why. */
static inline int write_seed(const char *dir, const char *name, const void *buf, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f == NULL || (len && fwrite(buf, 1, len, f) != len) || fclose(f) != 0) {
		perror(path);
		return -1;
	}
	return 0;
}

#endif
