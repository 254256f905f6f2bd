/* test_client_seq.c - the per-receiver sequence tracking of the UDP
 * clients (tools/client.c): gaps counted as lost, late datagrams taking
 * a loss back, restarts at 1, and nothing counted before the first;
 * each server address (a multi-host Spate's hosts) tracked apart. */
#include <stdio.h>
#include <stdlib.h>

#include "client.h"

static int failures;

/* clang-format off */
#define EXPECT(cond)                                                                  \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond); \
			failures++;                                                   \
		}                                                                     \
	} while (0)
/* clang-format on */

int main(void)
{
	struct client_seq_track t = { 0 };

	/* Joining late (seq 41 first): no loss. */
	EXPECT(client_seq_see(&t, 41) == 0);
	EXPECT(client_seq_see(&t, 42) == 0);
	EXPECT(t.lost == 0 && t.late == 0 && t.restarts == 0);
	/* 43..45 missing. */
	EXPECT(client_seq_see(&t, 46) == 3);
	EXPECT(t.lost == 3 && t.last == 46);
	/* 44 arrives late: one fewer lost. */
	EXPECT(client_seq_see(&t, 44) == 0);
	EXPECT(t.lost == 2 && t.late == 1 && t.last == 46);
	/* The server forgot us: back to 1, no loss counted. */
	EXPECT(client_seq_see(&t, 1) == 0);
	EXPECT(t.restarts == 1 && t.last == 1 && t.lost == 2);
	EXPECT(client_seq_see(&t, 2) == 0);
	/* A wrap of the 32-bit counter is a jump like any other. */
	struct client_seq_track w = { 0 };
	EXPECT(client_seq_see(&w, 0xfffffffeu) == 0);
	EXPECT(client_seq_see(&w, 0xffffffffu) == 0);
	EXPECT(w.lost == 0);
	/* A duplicate of the last one is late, not a loss. */
	EXPECT(client_seq_see(&w, 0xffffffffu) == 0);
	EXPECT(w.late == 1 && w.lost == 0);
	/* Several servers, interleaved, each in order: nothing late or lost;
	 * a gap at one of them is that one's */
	struct client *c = calloc(1, sizeof(*c));
	if (c == NULL)
		return 1;
	for (uint32_t s = 1; s <= 40; s++)
		for (uint32_t h = 0; h < 3; h++)
			if (!(h == 2 && s == 17))
				client_seq_see(client_seq_of(c, 0xc6120003u + h, 47100), s);
	struct client_seq_track sum = client_seq_total(c);
	EXPECT(c->n_src == 3 && sum.late == 0 && sum.lost == 1 && sum.restarts == 0);
	EXPECT(client_seq_of(c, 0xc6120005u, 47100)->lost == 1);
	EXPECT(client_seq_of(c, 0xc6120003u, 47101)->last == 0); /* another port: another server */
	EXPECT(c->n_src == 4);
	/* past the table the rest share its last slot, and are counted */
	for (uint32_t h = 0; h < CLIENT_SOURCES_MAX; h++)
		client_seq_of(c, 0x0a000000u + h, 1);
	EXPECT(c->n_src == CLIENT_SOURCES_MAX && c->sources_over == 4);
	free(c);
	if (failures == 0)
		printf("ok: client sequence tracking\n");
	return failures ? 1 : 0;
}
