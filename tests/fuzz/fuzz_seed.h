/* fuzz_seed.h - what every fuzz target's seed generator (its main() when
 * built with -DSPATE_FUZZ_SEEDS) shares: writing one corpus file. */
#ifndef SPATE_FUZZ_SEED_H
#define SPATE_FUZZ_SEED_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

/* A length or count field of an input: its offset and width (1 or 2
 * bytes, big-endian as on the wire). */
struct seed_field {
	size_t off;
	int width;
};

/* Boundary variants of a valid input, one field at a time: the field at
 * 0, one below its value, one above (a string's length byte claiming one
 * byte more than is there, a count one past the items that follow) and
 * its largest value; and the input cut one byte short. Written as
 * dir/NAME-eOFF-VALUE and dir/NAME-cut. 0, or -1. */
static inline int write_field_edges(const char *dir, const char *name, const uint8_t *buf,
				    size_t len, const struct seed_field *f, size_t n)
{
	static uint8_t copy[1 << 16];
	char vname[256];
	int bad = 0;

	if (len > sizeof(copy) || len == 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (f[i].off + (size_t)f[i].width > len)
			continue;
		unsigned v = f[i].width == 1 ? buf[f[i].off]
					     : (unsigned)buf[f[i].off] << 8 | buf[f[i].off + 1];
		unsigned max = f[i].width == 1 ? 0xff : 0xffff;
		unsigned want[4] = { 0, v ? v - 1 : 0, v < max ? v + 1 : max, max };
		for (int k = 0; k < 4; k++) {
			if (want[k] == v || (k > 0 && want[k] == want[k - 1]))
				continue;
			memcpy(copy, buf, len);
			if (f[i].width == 1) {
				copy[f[i].off] = (uint8_t)want[k];
			} else {
				copy[f[i].off] = (uint8_t)(want[k] >> 8);
				copy[f[i].off + 1] = (uint8_t)want[k];
			}
			snprintf(vname, sizeof(vname), "%s-e%zu-%u", name, f[i].off, want[k]);
			bad |= write_seed(dir, vname, copy, len);
		}
	}
	snprintf(vname, sizeof(vname), "%s-cut", name);
	bad |= write_seed(dir, vname, buf, len - 1);
	return bad ? -1 : 0;
}

/* Append to f (room for cap) the offset of the length byte of every
 * occurrence in buf of each string of strs[] (the byte holding its length,
 * then its bytes); returns the new count. */
static inline size_t find_length_bytes(const uint8_t *buf, size_t len, const char *const *strs,
				       size_t n_strs, struct seed_field *f, size_t n, size_t cap)
{
	for (size_t s = 0; s < n_strs; s++) {
		size_t sl = strlen(strs[s]);
		for (size_t i = 0; i + 1 + sl <= len && n < cap; i++)
			if (buf[i] == sl && memcmp(buf + i + 1, strs[s], sl) == 0)
				f[n++] = (struct seed_field){ i, 1 };
	}
	return n;
}

#endif
