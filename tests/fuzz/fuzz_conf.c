/* fuzz_conf.c - libFuzzer target for the configuration loader: libconfig
 * parses the input, then spate_conf_read reads the "spate" group.
 *
 * For any input: no crash, no leak, no UB; a refusal names the file and a
 * line ("fuzz.conf:N: ..."); an accepted configuration holds limits that
 * pass spate_limits_check and an engine the registry knows, so whatever
 * the loader lets through is usable.
 *
 * Built with -DSPATE_FUZZ_SEEDS instead, it writes a seed corpus
 * (conf/demo.conf, conf/spated.conf and small variants) into argv[1]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/spate_conf.h"
#include "matcher/spate_engine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_conf: %s: %s\n", what, detail);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[512] = "";
	struct spate_conf c;
	config_t cfg;

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	config_init(&cfg);
	if (config_read_string(&cfg, text) == CONFIG_TRUE) {
		spate_conf_default(&c);
		if (spate_conf_read(&c, &cfg, "fuzz.conf", err, sizeof(err)) == 0) {
			if (spate_limits_check(&c.limits) != 0)
				fail("accepted limits fail their check", text);
			if (spate_engine_find(c.matcher.engine) == NULL)
				fail("accepted an unknown engine", c.engine);
		} else if (strncmp(err, "fuzz.conf:", 10) != 0) {
			fail("refusal does not name the file", err);
		}
	}
	config_destroy(&cfg);
	free(text);
	return 0;
}

#ifdef SPATE_FUZZ_SEEDS
#include "fuzz_seed.h"

int main(int argc, char **argv)
{
	static const char *const small[] = {
		"spate: { engine = \"brute\"; };",
		"spate: { limits: { max_keywords = 64; max_messages = 0; }; };",
		"spate: { drt: { alpha = 0.2; cmax = 64; variant = \"fre\"; }; };",
		"spate: { quotas: { max_subs = 10; max_subs_per_client = 2; }; };",
		"spate = 3;",
	};
	char path[4096], name[32];
	int bad = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: %s CORPUS_DIR SOURCE_ROOT\n", argv[0]);
		return 2;
	}
	for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++) {
		snprintf(name, sizeof(name), "small-%zu", i);
		bad |= write_seed(argv[1], name, small[i], strlen(small[i]));
	}
	/* every integer key at min - 1, min, max and max + 1 (the range
	 * read back from the setter's own refusal) */
	for (size_t i = 0; i < spate_conf_int_count(); i++) {
		struct spate_conf c;
		char err[256], text[256];
		long long lo, hi;
		const char *key = spate_conf_int_name(i), *dot = strchr(key, '.');
		spate_conf_default(&c);
		spate_conf_int_set(&c, key, "-99999999999", err, sizeof(err));
		const char *r = strrchr(err, '[');
		if (r == NULL || sscanf(r, "[%lld, %lld]", &lo, &hi) != 2) {
			fprintf(stderr, "no range in '%s'\n", err);
			return 1;
		}
		const long long v[4] = { lo - 1, lo, hi, hi + 1 };
		for (int k = 0; k < 4; k++) {
			int n = snprintf(text, sizeof(text), "spate: { %.*s: { %s = %lldL; }; };",
					 (int)(dot - key), key, dot + 1, v[k]);
			snprintf(name, sizeof(name), "int-%zu-%d", i, k);
			bad |= write_seed(argv[1], name, text, (size_t)n);
		}
	}
	/* both shipped profiles: the demo's and the production one */
	static const char *const profiles[] = { "demo.conf", "spated.conf" };
	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
		static char buf[1 << 16];
		snprintf(path, sizeof(path), "%s/conf/%s", argv[2], profiles[i]);
		FILE *f = fopen(path, "r");
		if (f == NULL) {
			perror(path);
			return 1;
		}
		size_t n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		bad |= write_seed(argv[1], profiles[i], buf, n);
	}
	return bad ? 1 : 0;
}
#endif
