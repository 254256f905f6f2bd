/* spate_param.h - one row per configuration parameter, and the code that
 * every reader of parameters shares: the libconfig reader, the run-time
 * setter and getter (spatectl get/set/save, telemetry), the lists of
 * known names in "unknown setting" errors and the generated
 * docs/parameters.md. Each module keeps its rows beside its code in this
 * row type (drt_params.c, spate_conf.c, app/config/, app/link/host_conf.c);
 * a table is the list of sections a program reads (spated: app/config/
 * spated_params.c; the offline tools: spate_conf.c).
 *
 * A row names a key of a group; its section says which group (its config
 * path, "spate.drt"), the prefix spatectl puts before the key ("drt."),
 * and where the section's struct sits in the table's root struct. Adding
 * a run-time parameter is one row: the reader, the checks, the error
 * messages, spatectl, telemetry and the docs follow from it.
 */
#ifndef SPATE_PARAM_H
#define SPATE_PARAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <libconfig.h>

enum spate_param_type {
	SPATE_PARAM_U32,    /* uint32_t, an integer in [min, max] */
	SPATE_PARAM_U16,    /* uint16_t */
	SPATE_PARAM_INT,    /* int (may be negative) */
	SPATE_PARAM_DOUBLE, /* double in [min, max] */
	SPATE_PARAM_BOOL,   /* bool: true or false */
	SPATE_PARAM_STRING, /* char[size] */
	SPATE_PARAM_ENUM,   /* uint32_t: the index of its name in choices */
	SPATE_PARAM_MODE,   /* uint32_t file mode, an octal string "0600" */
	SPATE_PARAM_CUSTOM, /* a shape of its own (a list, an address): row->read */
};

/* When a value takes effect, and what spatectl may do with it. */
enum spate_param_reach {
	SPATE_PARAM_FILE,    /* read at start; spatectl does not name it */
	SPATE_PARAM_CONFIG,  /* read at start; spatectl get and show config report it */
	SPATE_PARAM_RESTART, /* read at start; show params and get report the value
			      * running, set takes only that value */
	SPATE_PARAM_LIVE,    /* spatectl set changes it now */
};

/* Flags of a row. */
/* SPATE_PARAM_CLUSTER: also a key of the cluster group (host_conf.h);
 * SPATE_PARAM_DERIVED: spated computes the running value (the row's help
 * says from what); SPATE_PARAM_ONE_GROUP: the entry rows are the keys of
 * one group, not of a list's entries. */
#define SPATE_PARAM_CLUSTER 1u
#define SPATE_PARAM_DERIVED 2u
#define SPATE_PARAM_ONE_GROUP 4u

struct spate_param {
	const char *key; /* in its section's group; "limits.max_keywords" is key
			  * max_keywords of the subgroup limits */
	enum spate_param_type type;
	enum spate_param_reach reach;
	double min, max;            /* numbers: the allowed range */
	const char *def;            /* the default, as text (docs, and tested
				     * against the struct's defaults) */
	size_t off, size;           /* the field in the section's struct */
	const char *const *choices; /* ENUM: names by value, NULL-terminated;
				     * "" = a value no name sets */
	/* CUSTOM: read the setting into the section's struct (NULL: its
	 * section reads it after the group, e.g. the attribute schema).
	 * 0, or -1 with "file:line: message" in err (spate_conf_error). */
	int (*read)(void *obj, const config_setting_t *s, const char *file, char *err,
		    size_t errlen);
	unsigned flags;
	const char *help;
	/* A list of groups ( { ... }, ... ): the rows of one entry (read by
	 * spate_param_read_entry from the row's reader; listed in the docs
	 * as "path[].key"), ended by a NULL key. */
	const struct spate_param *entry;
};

struct spate_param_section {
	const char *group;              /* config path of the group: "spate.drt", "journal" */
	const char *ctl;                /* spatectl's prefix of the keys: "drt.", "" */
	size_t base;                    /* offset of the section's struct in the root */
	bool text_numbers;              /* numbers may be given as strings ("0.5"): the
			     * drt group always took them so */
	const struct spate_param *rows; /* ended by a row whose key is NULL */
};

struct spate_param_table {
	const struct spate_param_section *const *sec;
	size_t n;
};

/* A row with its section: what the functions below take. */
struct spate_param_ref {
	const struct spate_param_section *sec;
	const struct spate_param *row;
};

/* Rows in a section. */
size_t spate_param_count(const struct spate_param_section *sec);

/* The section struct of `ref` inside `root`. */
static inline void *spate_param_obj(struct spate_param_ref ref, void *root)
{
	return (char *)root + ref.sec->base;
}

/* The row at config path "spate.limits.max_keywords" / at spatectl name
 * "limits.max_keywords"; .row NULL if none. */
struct spate_param_ref spate_param_find(const struct spate_param_table *t, const char *path);
struct spate_param_ref spate_param_find_ctl(const struct spate_param_table *t, const char *name);
/* The i-th row of the table (NULL .row past the last). */
struct spate_param_ref spate_param_at(const struct spate_param_table *t, size_t i);
/* Its config path ("spate.drt.alpha") and spatectl name ("drt.alpha"). */
void spate_param_path(struct spate_param_ref ref, char *buf, size_t len);
void spate_param_ctl_name(struct spate_param_ref ref, char *buf, size_t len);
/* Named by spatectl get / show params (reach above FILE). */
bool spate_param_in_ctl(struct spate_param_ref ref);

/* Read every setting of group `g` (config path `gpath`, "" for the root)
 * into root: a key no row names, and a group no row lies in, is refused
 * with the names the group may hold, generated from the table. Rows are
 * read in the file's order; 0, or -1 with "file:line: message" in err. */
int spate_param_read_group(const struct spate_param_table *t, void *root, const config_setting_t *g,
			   const char *gpath, const char *file, char *err, size_t errlen);
/* One setting into its row's field in obj (the section's struct; any
 * row but CUSTOM without read); `what` names it in errors (NULL: its
 * config path). */
int spate_param_read_setting(struct spate_param_ref ref, void *obj, const config_setting_t *s,
			     const char *what, const char *file, char *err, size_t errlen);
/* One entry of a list (a group): each key through its row of `rows` into
 * obj; a key none names is refused with the keys of rows. `what` names
 * the entry in messages ("spated.peers"). 0, or -1 with err. */
int spate_param_read_entry(const struct spate_param *rows, void *obj, const config_setting_t *g,
			   const char *what, const char *file, char *err, size_t errlen);
/* The names a group may hold ("spate.limits": "max_keywords, ..."); for
 * "cluster" also the keys of the rows marked SPATE_PARAM_CLUSTER. */
void spate_param_known(const struct spate_param_table *t, const char *gpath, char *buf, size_t len);
/* Whether some row lies inside group path gpath. */
bool spate_param_is_group(const struct spate_param_table *t, const char *gpath);

/* Text in, checked against the row (the error names the spatectl name
 * and the allowed values), stored in obj (the section's struct). */
int spate_param_parse(struct spate_param_ref ref, void *obj, const char *text, char *err,
		      size_t errlen);
/* The value in obj as text (what get prints and save writes). -1 for a
 * CUSTOM row. */
int spate_param_format(struct spate_param_ref ref, const void *obj, char *buf, size_t len);
/* The value is text in JSON (strings, names, modes), not a number or a
 * boolean. */
bool spate_param_is_text(const struct spate_param *row);
/* Copy the row's field from one struct of its section to another with
 * an atomic word store (readers on other lcores poll these fields). */
void spate_param_copy_field(const struct spate_param *row, void *dst, const void *src);
/* Store text from the file as the row's type in a libconfig group (what
 * `spatectl save` writes). 0 or -1. */
int spate_param_add_setting(const struct spate_param *row, config_setting_t *group, const char *key,
			    const char *text);

/* The whole table as a markdown document (docs/parameters.md). */
void spate_param_print_md(const struct spate_param_table *t, FILE *out);

#endif
