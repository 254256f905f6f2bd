/* frame_handler.h - one Spate datagram in, matcher calls, replies and
 * notifications out. Knows nothing of Ethernet, IP or DPDK: the port
 * loop hands it UDP payloads with their source, so it can later run on
 * its own lcore behind a ring. */
#ifndef SPATED_FRAME_HANDLER_H
#define SPATED_FRAME_HANDLER_H

#include <stddef.h>
#include <stdint.h>

#include "notify.h"
#include "spate_matcher.h"
#include "spate_types.h"

struct frame_handler;

/* The matcher, limits and notifier stay owned by the caller. max_payload
 * is the largest reply datagram. NULL on no memory. */
struct frame_handler *frame_handler_create(struct spate_matcher *m,
					   const struct spate_limits *lim,
					   struct notifier *nt, size_t max_payload);
void frame_handler_destroy(struct frame_handler *fh);

/* Handle one datagram (the UDP payload) from `src`. */
void frame_handler_datagram(struct frame_handler *fh, const uint8_t *buf, size_t len,
			    struct spate_dest src);

/* End of an RX burst: send the batched notifications. */
void frame_handler_burst_end(struct frame_handler *fh);

#endif
