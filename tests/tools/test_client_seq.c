/* test_client_seq.c - the per-receiver sequence tracking of the UDP
 * clients (tools/client.c): gaps counted as lost, late datagrams taking
 * a loss back, restarts at 1, and nothing counted before the first. */
#include <stdio.h>

#include "client.h"

static int failures;

#define EXPECT(cond)                                                                  \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond); \
			failures++;                                                   \
		}                                                                     \
	} while (0)

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
	if (failures == 0)
		printf("ok: client sequence tracking\n");
	return failures ? 1 : 0;
}
