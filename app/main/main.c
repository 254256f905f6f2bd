/* main.c - spated: command line, configuration, EAL, then the modules.
 *
 *   spated [-c FILE] [--check-config] [--salvage-journal] [-- EAL args]
 *
 * Everything else is a module (infra/module.h): the ports, the
 * membership, the pipeline (RX -> cluster -> matching workers -> TX,
 * infra/pipeline.h), the journal, the operators' interfaces. main()
 * starts them in order, runs the housekeeping (main/house.h) until a
 * signal, and stops them in the reverse order.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "config/check_config.h"
#include "config/config.h"
#include "control/control.h"
#include "infra/module.h"
#include "main/house.h"
#include "util/spate_release.h"

/* The EAL's argv (kept: port_find reads it after rte_eal_init). */
#define EAL_ARGV_MAX (SPATED_EAL_ARGS_MAX + 64)
static char *eal_argv[EAL_ARGV_MAX], *eal_given[EAL_ARGV_MAX];
static char vdev_arg[SPATED_PORTS_MAX][300];

struct args {
	const char *conf_path;
	int check_only, salvage, own_argc; /* own_argc: ours end at "--" */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: spated [-c FILE] [--check-config] [--salvage-journal] [--version] [-- EAL "
		"args]\n"
		"  -c, --config FILE   libconfig file (groups 'spate' and 'spated')\n"
		"      --check-config  validate the configuration and exit\n"
		"      --salvage-journal  a journal damaged before its tail: keep it aside as\n"
		"                      <path>.damaged-TIME, replay its sound records, report\n"
		"                      the lost ones (without it such a journal stops the start)\n"
		"EAL args after '--' replace spated.eal from the file; when they have no\n"
		"--vdev, --vdev=<spated.port.device> is added. Without spated.port.device\n"
		"spated runs on every port the EAL probed (a NIC allowed with -a PCI).\n"
		"SIGUSR1 prints the counters as one JSON line; SIGINT/SIGTERM stop.\n");
}

/* The command line: -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", no_argument, NULL, 'C' },
		{ "salvage-journal", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*a = (struct args){ .own_argc = argc };
	/* Our options end at "--"; what follows belongs to the EAL. */
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			a->own_argc = i;
			break;
		}
	while ((c = getopt_long(a->own_argc, argv, "c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			a->conf_path = optarg;
			break;
		case 'C':
			a->check_only = 1;
			break;
		case 'S':
			a->salvage = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			return spate_release_print("spated");
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < a->own_argc) {
		fprintf(stderr, "spated: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	return -1;
}

/* The configuration (or its check only): -1 to go on, else the exit code. */
static int load_conf(struct spated *d, const struct args *a)
{
	struct spated_conf *conf = &d->conf;
	char err[1024]; /* an unknown key lists the known ones */

	if (a->check_only && a->conf_path != NULL)
		return check_config(a->conf_path, stdout) == 0 ? 0 : 1;
	d->conf_path = a->conf_path;
	spated_conf_default(conf);
	if (spated_conf_load(conf, a->conf_path, err, sizeof(err)) != 0) {
		fprintf(stderr, "spated: %s\n", err);
		spated_conf_free(conf);
		return 1;
	}
	if (a->check_only) {
		printf("spated: %s: configuration OK\n",
		       a->conf_path ? a->conf_path : "(defaults)");
		spated_conf_free(conf);
		return 0;
	}
	/* This start only: never a setting, so it cannot stay on. */
	conf->ops.journal.salvage = a->salvage;
	if (a->salvage && conf->ops.journal_path[0] == '\0') {
		fprintf(stderr,
			"spated: --salvage-journal: no journal is configured (journal.path)\n");
		spated_conf_free(conf);
		return 2;
	}
	return -1;
}

/* EAL argv: ours after "--", else the file's; plus the vdev. Then the
 * EAL: -1 to go on, else the exit code. */
static int start_eal(struct spated *d, const struct args *a, int argc, char **argv)
{
	const struct spated_conf *conf = &d->conf;
	int n = 0;

	eal_argv[n++] = argv[0];
	if (a->own_argc < argc) {
		if (argc - a->own_argc - 1 > SPATED_EAL_ARGS_MAX + 60) {
			fprintf(stderr, "spated: too many EAL arguments\n");
			return 2;
		}
		for (int i = a->own_argc + 1; i < argc; i++)
			eal_argv[n++] = argv[i];
	} else {
		for (int i = 0; i < conf->n_eal; i++)
			eal_argv[n++] = conf->eal[i];
	}
	for (int i = 1; i < n; i++)
		if (strncmp(eal_argv[i], "--vdev", 6) == 0)
			d->have_vdev = 1;
	for (uint32_t v = 0; !d->have_vdev && v < conf->n_devices; v++) {
		snprintf(vdev_arg[v], sizeof(vdev_arg[v]), "--vdev=%s", conf->devices[v]);
		eal_argv[n++] = vdev_arg[v];
	}
	eal_argv[n] = NULL;
	/* rte_eal_init reorders eal_argv: keep them as given, for messages */
	memcpy(eal_given, eal_argv, sizeof(eal_argv));
	d->eal_argc = n;
	d->eal_given = eal_given;
	if (rte_eal_init(n, eal_argv) < 0)
		rte_exit(EXIT_FAILURE, "rte_eal_init: err=%d, port=%u\n", rte_errno, 0u);
	return -1;
}

int main(int argc, char **argv)
{
	static struct spated d;
	struct args a;
	int rc;

	if ((rc = parse_args(argc, argv, &a)) >= 0 || (rc = load_conf(&d, &a)) >= 0)
		return rc;
	if ((rc = start_eal(&d, &a, argc, argv)) >= 0) {
		spated_conf_free(&d.conf);
		return rc;
	}
	house_signals();
	control_apply_log_level(&d.conf);
	spated_modules_init(&d);
	house_run(&d);
	spated_modules_stop(&d);
	spated_modules_fini(&d);
	rte_eal_cleanup();
	spated_conf_free(&d.conf);
	return d.exit_code;
}
