/* control_perm.c - the control socket's mode, group and way in
 * (control_perm.h). */
#include <errno.h>
#include <grp.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "control/control_perm.h"
#include "main/spated_log.h"

/* Whether members of gid may pass through directory st. */
static bool group_may_traverse(const struct stat *st, gid_t gid)
{
	return (st->st_mode & S_IXOTH) || (st->st_gid == gid && (st->st_mode & S_IXGRP));
}

/* dir, ours: the socket's directory gets the group and g+x; DPDK's own
 * directory above the runtime directory o+x (its group is not ours to
 * change). Directories not ours are only checked. */
static int open_dir(const char *dir, gid_t gid, const char *group, bool own_group, char *err,
		    size_t errlen)
{
	struct stat st;

	if (stat(dir, &st) != 0) {
		snprintf(err, errlen, "control socket: %s: %s", dir, strerror(errno));
		return -1;
	}
	if (group_may_traverse(&st, gid))
		return 0;
	if (st.st_uid != geteuid()) {
		SPATED_LOG(WARNING,
			   "control socket: group %s cannot pass through %s (mode 0%o, not ours)\n",
			   group, dir, (unsigned int)(st.st_mode & 07777));
		return 0;
	}
	mode_t mode = st.st_mode & 07777;
	if (own_group) {
		if (st.st_gid != gid && chown(dir, (uid_t)-1, gid) != 0) {
			snprintf(err, errlen, "control socket: chgrp %s %s: %s", group, dir,
				 strerror(errno));
			return -1;
		}
		mode |= S_IXGRP;
	} else {
		mode |= S_IXOTH;
	}
	if (chmod(dir, mode) != 0) {
		snprintf(err, errlen, "control socket: chmod %s: %s", dir, strerror(errno));
		return -1;
	}
	SPATED_LOG(NOTICE, "control socket: %s is now mode 0%o%s%s, for group %s\n", dir,
		   (unsigned int)mode, own_group ? ", group " : "", own_group ? group : "", group);
	return 0;
}

int control_perm_apply(const char *sock_path, const char *group, unsigned int mode,
		       const char *runtime_dir, char *err, size_t errlen)
{
	char dir[PATH_MAX], up[PATH_MAX];
	struct stat st;

	if (group[0] != '\0') {
		struct group *g = getgrnam(group);
		if (g == NULL) {
			snprintf(err, errlen, "control socket %s: group '%s': no such group",
				 sock_path, group);
			return -1;
		}
		/* only when needed: a service whose group it already is may
		 * not be allowed chown at all (SystemCallFilter=~@privileged) */
		if (stat(sock_path, &st) != 0 ||
		    (st.st_gid != g->gr_gid && chown(sock_path, (uid_t)-1, g->gr_gid) != 0)) {
			snprintf(err, errlen, "control socket %s: group '%s': %s", sock_path, group,
				 strerror(errno));
			return -1;
		}
		if (mode & 0070) {
			char tmp[PATH_MAX];
			/* dirname works in place: a copy each time */
			snprintf(tmp, sizeof(tmp), "%s", sock_path);
			snprintf(dir, sizeof(dir), "%s", dirname(tmp));
			if (open_dir(dir, g->gr_gid, group, true, err, errlen) != 0)
				return -1;
			/* DPDK's runtime directory: its parent is DPDK's too */
			snprintf(tmp, sizeof(tmp), "%s", dir);
			snprintf(up, sizeof(up), "%s", dirname(tmp));
			if (strcmp(dir, runtime_dir) == 0 &&
			    open_dir(up, g->gr_gid, group, false, err, errlen) != 0)
				return -1;
		}
	}
	if (chmod(sock_path, (mode_t)mode) != 0) {
		snprintf(err, errlen, "control socket %s: chmod: %s", sock_path, strerror(errno));
		return -1;
	}
	return 0;
}
