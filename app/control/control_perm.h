/* control_perm.h - who may reach the control socket (control.mode and
 * control.group): the socket's own mode and group, and the directories
 * on its way. DPDK makes its runtime directory (/var/run/dpdk/<prefix>,
 * the default home of the socket) and the one above it 0700, so a group
 * given the socket alone could still not reach it; with a group set,
 * spated lets that group traverse (never list) the directories it owns
 * on the way, and warns about any other one that stops it. */
#ifndef SPATED_CONTROL_PERM_H
#define SPATED_CONTROL_PERM_H

#include <stddef.h>

/* After bind(): the socket at sock_path gets `mode` and, when group is
 * not "", that group. runtime_dir: DPDK's runtime directory (its parent
 * is DPDK's too, so it may be opened for traversal as well). 0, or -1
 * with the reason in err. */
int control_perm_apply(const char *sock_path, const char *group, unsigned int mode,
		       const char *runtime_dir, char *err, size_t errlen);

#endif
