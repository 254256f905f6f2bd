/* app_eal.h - DPDK's EAL for the app/ unit tests: no hugepages, no PCI,
 * no shared config, one lcore and a file prefix of this process's own,
 * so that tests run beside each other and beside a running spated. The
 * runtime folder the EAL makes is removed at exit. */
#ifndef SPATE_APP_EAL_H
#define SPATE_APP_EAL_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>

static char app_eal_dir[512];

static void app_eal_cleanup(void)
{
	rte_eal_cleanup();
	DIR *d = opendir(app_eal_dir);
	if (d != NULL) {
		for (struct dirent *e; (e = readdir(d)) != NULL;) {
			char p[800];
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			snprintf(p, sizeof(p), "%s/%s", app_eal_dir, e->d_name);
			unlink(p);
		}
		closedir(d);
		rmdir(app_eal_dir);
	}
}

/* Start the EAL or exit 2 (the test could not run: not a pass). */
static void app_eal_start(const char *name)
{
	char prefix[96];

	snprintf(prefix, sizeof(prefix), "--file-prefix=spate-%s-%d", name, (int)getpid());
	char *argv[] = {
		(char *)name,     "--no-huge",   "--no-pci", "-m", "256",
		prefix,           "--no-shconf", "-l",       "0",  "--log-level=lib.*:error",
		"--no-telemetry", NULL
	};
	if (rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])) - 1, argv) < 0) {
		fprintf(stderr, "%s: the EAL did not start\n", name);
		exit(2);
	}
	snprintf(app_eal_dir, sizeof(app_eal_dir), "%s", rte_eal_get_runtime_dir());
	atexit(app_eal_cleanup);
}

#endif
