/* peer-auth-bench - what the inter-host tag costs (issue 23,
 * docs/benchmarks.md "Inter-host authentication"): for frames of a few
 * sizes, the time to sign one (the sender, spate_peer_auth_sign) and to
 * check one (the receiver, spate_peer_auth_verify), with a cluster key
 * and unsigned (peer_auth = "none": a zero tag written and compared),
 * side by side in one run, in CPU time (the thread's), best of several
 * rounds (the machine is shared: the best round is the least
 * disturbed). One JSON line per
 * size on stdout. A forged frame costs its receiver the same as a good
 * one (the MAC is computed either way); that is checked here too.
 *
 *   peer-auth-bench [FRAMES_PER_ROUND [ROUNDS]]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "peer/spate_peer.h"
#include "auth/spate_peer_auth.h"

static double now_s(void)
{
	struct timespec ts;

	/* this thread's CPU time: on a loaded machine the wall clock counts
	 * the other processes' turns too */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Best ns per frame over rounds of n: sign (verify == 0) or verify, with
 * the frame's tag right (forge == 0) or one byte of it wrong. */
static double time_op(struct spate_peer_auth *a, uint8_t *frame, size_t len, int verify, int forge,
		      uint32_t n, uint32_t rounds, uint32_t *bad)
{
	double best = 1e30;
	uint32_t slot;

	spate_peer_auth_sign(a, frame, len);
	if (forge)
		frame[len - 1] ^= 1;
	for (uint32_t r = 0; r < rounds; r++) {
		double t0 = now_s();
		for (uint32_t i = 0; i < n; i++) {
			if (!verify) {
				frame[24] = (uint8_t)i; /* another seq: another tag */
				spate_peer_auth_sign(a, frame, len);
			} else if ((spate_peer_auth_verify(a, frame, len, &slot) == 0) == forge) {
				(*bad)++;
			}
		}
		double ns = (now_s() - t0) * 1e9 / n;
		if (ns < best)
			best = ns;
	}
	if (forge)
		frame[len - 1] ^= 1;
	return best;
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { SPATE_PEER_OVERHEAD, 256, 1500, SPATE_PEER_FRAME_MAX };
	uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 20000;
	uint32_t rounds = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 20;
	struct spate_peer_key key = { .id = 1, .len = 32 };
	uint8_t frame[SPATE_PEER_FRAME_MAX];
	uint32_t bad = 0;

	if (n == 0 || rounds == 0) {
		fprintf(stderr, "usage: peer-auth-bench [FRAMES_PER_ROUND [ROUNDS]]\n");
		return 2;
	}
	for (uint32_t i = 0; i < key.len; i++)
		key.bytes[i] = (uint8_t)(0x40 + i);
	struct spate_peer_auth *signed_ = spate_peer_auth_create(&key, 1);
	struct spate_peer_auth *none = spate_peer_auth_create(NULL, 0);
	if (signed_ == NULL || none == NULL) {
		fprintf(stderr, "peer-auth-bench: spate_peer_auth_create failed\n");
		return 1;
	}
	for (size_t i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)(i * 7);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t len = sizes[k];
		double sign = time_op(signed_, frame, len, 0, 0, n, rounds, &bad);
		double verify = time_op(signed_, frame, len, 1, 0, n, rounds, &bad);
		double forged = time_op(signed_, frame, len, 1, 1, n, rounds, &bad);
		double sign0 = time_op(none, frame, len, 0, 0, n, rounds, &bad);
		double verify0 = time_op(none, frame, len, 1, 0, n, rounds, &bad);
		printf("{\"frame_bytes\":%zu,\"sign_ns\":%.0f,\"verify_ns\":%.0f,\"verify_forged_"
		       "ns\":%.0f,"
		       "\"unsigned_sign_ns\":%.1f,\"unsigned_verify_ns\":%.1f,"
		       "\"verify_frames_per_s\":%.0f,\"verify_gbit_per_s\":%.2f}\n",
		       len, sign, verify, forged, sign0, verify0, 1e9 / verify,
		       (double)len * 8 / verify);
	}
	spate_peer_auth_destroy(signed_);
	spate_peer_auth_destroy(none);
	if (bad != 0) {
		fprintf(stderr, "peer-auth-bench: %" PRIu32 " verdicts wrong\n", bad);
		return 1;
	}
	return 0;
}
