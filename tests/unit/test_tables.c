/* test_tables.c - the keyword dictionary and the id map against plain
 * arrays, under random churn. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "matcher/spate_dict.h"
#include "util/spate_hash.h"
#include "matcher/spate_idmap.h"

static void test_dict(void)
{
	struct spate_dict *d = spate_dict_create();
	char buf[32];

	CHECK(spate_dict_lookup(d, "x", 1) == SPATE_DICT_NONE);
	for (int i = 0; i < 20000; i++) {
		int len = snprintf(buf, sizeof(buf), "kw%d", i);
		CHECK_EQ_INT(spate_dict_intern(d, buf, (size_t)len), i);
	}
	for (int i = 0; i < 20000; i++) {
		int len = snprintf(buf, sizeof(buf), "kw%d", i);
		uint32_t id = spate_dict_lookup(d, buf, (size_t)len);
		size_t slen;
		const char *s = spate_dict_str(d, id, &slen);
		if (id != (uint32_t)i || slen != (size_t)len || memcmp(s, buf, slen) != 0) {
			CHECK(0);
			break;
		}
	}
	CHECK_EQ_INT(spate_dict_intern(d, "kw77", 4), 77);
	CHECK(spate_dict_lookup(d, "kw", 2) == SPATE_DICT_NONE);
	CHECK(spate_dict_lookup(d, "kw200000", 8) == SPATE_DICT_NONE);
	/* the empty string and embedded NULs are just bytes */
	uint32_t e = spate_dict_intern(d, "", 0);
	CHECK(spate_dict_lookup(d, "", 0) == e);
	uint32_t z = spate_dict_intern(d, "a\0b", 3);
	CHECK(z != spate_dict_lookup(d, "a", 1));
	CHECK_EQ_INT(spate_dict_count(d), 20002);
	/* several at once, more than an event carries (SPATE_KW_MAX_HARD),
	 * lengths 0 to 23, some unknown */
	enum { MANY = SPATE_KW_MAX_HARD + 40 };
	static char many_buf[MANY][32];
	struct spate_str many[MANY];
	uint32_t ids[MANY];
	for (int i = 0; i < MANY; i++) {
		int len = i % 3 == 2 ? snprintf(many_buf[i], 32, "unknown-%d", i)
				     : snprintf(many_buf[i], 32, "kw%d", i * 997 % 20000);
		many[i] = (struct spate_str){ many_buf[i], (uint32_t)(i % 7 == 0 ? 0 : len) };
		if (i % 11 == 0) /* a long one: "kw" and 21 more bytes */
			many[i].len = (uint32_t)snprintf(many_buf[i], 32, "kw%021d", i);
	}
	memset(ids, 0xee, sizeof(ids)); /* no id, and not SPATE_DICT_NONE */
	spate_dict_lookup_many(d, many, MANY, ids);
	int many_wrong = 0;
	for (int i = 0; i < MANY; i++)
		many_wrong += ids[i] != spate_dict_lookup(d, many[i].p, many[i].len);
	CHECK_EQ_INT(many_wrong, 0);
	CHECK(ids[1] == (uint32_t)(997 % 20000) && ids[2] == SPATE_DICT_NONE && ids[7] == e);
	/* none (nothing written) and one (no next string to hash) */
	memset(ids, 0xee, sizeof(ids));
	spate_dict_lookup_many(d, many, 0, ids);
	CHECK(ids[0] == 0xeeeeeeeeu);
	spate_dict_lookup_many(d, many + 1, 1, ids);
	CHECK(ids[0] == (uint32_t)(997 % 20000) && ids[1] == 0xeeeeeeeeu);
	spate_dict_destroy(d);
}

/* A million distinct strings of one length meet about a hundred 32-bit
 * hash collisions: the slot's length and 8-byte prefix (8 bytes), or the
 * rest of the string (12 bytes sharing their first 8: one 8-byte load;
 * 24 bytes sharing their first 8 and last 8: the memcmp past 16 bytes)
 * must keep them apart. */
static void test_dict_collisions(void)
{
	static const int lens[] = { 8, 12, 24 };
	for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
		int len = lens[li];
		struct spate_dict *d = spate_dict_create();
		char buf[25] = "prefix12-middle-tail1234";
		int wrong = 0;
		for (uint32_t i = 0; i < 1000000; i++) {
			/* 8 bytes: all of them vary (a bijection of i); 12 and
			 * 24: bytes 8-11 */
			uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull; /* splitmix64 */
			uint32_t y = i * 2654435761u;
			x = (x ^ x >> 30) * 0xbf58476d1ce4e5b9ull;
			x = (x ^ x >> 27) * 0x94d049bb133111ebull;
			x ^= x >> 31;
			if (len == 8)
				memcpy(buf, &x, 8);
			else
				memcpy(buf + 8, &y, 4);
			if (spate_dict_intern(d, buf, (size_t)len) != i && wrong++ < 3)
				fprintf(stderr, "dict: string %u of %d bytes got another's id\n", i,
					len);
		}
		CHECK_EQ_INT(wrong, 0);
		CHECK_EQ_INT(spate_dict_count(d), 1000000);
		spate_dict_destroy(d);
	}
	/* Pairs of 5, 6 and 7 bytes that differ only in their last byte and
	 * share their 32-bit hash (found by search over the first three
	 * bytes; a new hash needs new pairs): only the slot's 8-byte prefix
	 * tells them apart, so it must hold every byte. */
	static const struct {
		size_t len;
		const char *a, *b;
	} twins[] = {
		{ 5, "\xa9\x35\x04x\x5b", "\xa9\x35\x04x\xd0" },
		{ 6, "\xec\x4b\x01xx\x56", "\xec\x4b\x01xx\xf7" },
		{ 7, "\x92\x1c\x05xxx\x6e", "\x92\x1c\x05xxx\xf5" },
	};
	for (size_t t = 0; t < sizeof(twins) / sizeof(twins[0]); t++) {
		struct spate_dict *d = spate_dict_create();
		const char *a = twins[t].a, *b = twins[t].b;
		size_t len = twins[t].len;
		CHECK_EQ_INT(spate_hash_bytes(a, len), spate_hash_bytes(b, len)); /* still twins */
		uint32_t ia = spate_dict_intern(d, a, len), ib = spate_dict_intern(d, b, len);
		CHECK(ia != ib);
		CHECK_EQ_INT(spate_dict_lookup(d, a, len), ia);
		CHECK_EQ_INT(spate_dict_lookup(d, b, len), ib);
		CHECK_EQ_INT(spate_dict_count(d), 2);
		spate_dict_destroy(d);
	}
	struct spate_dict *d = spate_dict_create();
	uint32_t ab = spate_dict_intern(d, "ab", 2), ab0 = spate_dict_intern(d, "ab\0", 3);
	CHECK(ab != ab0 && spate_dict_lookup(d, "ab\0\0", 4) == SPATE_DICT_NONE);
	CHECK(spate_dict_lookup(d, "ab", 2) == ab && spate_dict_lookup(d, "ab\0", 3) == ab0);
	spate_dict_destroy(d);
}

static void test_idmap(void)
{
	enum { N = 4096 };
	static uint64_t keys[N];
	static int present[N];
	struct spate_idmap *m = spate_idmap_create();
	size_t count = 0;

	for (int i = 0; i < N; i++)
		keys[i] = (i % 3 == 0) ? (uint64_t)i : check_rand(); /* sequential and random */
	for (int step = 0; step < 200000; step++) {
		int i = (int)(check_rand() % N);
		switch (check_rand() % 3) {
		case 0:
			if (!present[i])
				count++;
			CHECK_EQ_INT(spate_idmap_put(m, keys[i], &keys[i]), 0);
			present[i] = 1;
			break;
		case 1: {
			void *v = spate_idmap_del(m, keys[i]);
			if ((v != NULL) != present[i] || (v && v != &keys[i]))
				CHECK(0);
			if (present[i])
				count--;
			present[i] = 0;
			break;
		}
		default:
			if ((spate_idmap_get(m, keys[i]) != NULL) != present[i])
				CHECK(0);
		}
		if (step % 997 == 0)
			CHECK_EQ_INT(spate_idmap_count(m), count);
	}
	for (int i = 0; i < N; i++)
		if ((spate_idmap_get(m, keys[i]) == &keys[i]) != present[i])
			CHECK(0);
	spate_idmap_destroy(m);
}

/* The id map's byte figure: its slots (16 bytes each, load at most 1/2,
 * so at least 32 bytes per entry) plus its header (three words): exact
 * lower and upper bounds as it grows. */
static void test_idmap_bytes(void)
{
	struct spate_idmap *m = spate_idmap_create();
	int bad = 0;

	for (uint64_t k = 1; k <= 5000; k++) {
		CHECK_EQ_INT(spate_idmap_put(m, k * 7919, (void *)(uintptr_t)k), 0);
		size_t b = spate_idmap_bytes(m), n = spate_idmap_count(m);
		/* at least 2 slots per entry and the header; at most 4 per entry
		 * (or the first table) and the header */
		bad += b < 24 + 32 * n || (n > 64 && b > 24 + 64 * n);
	}
	CHECK_EQ_INT(bad, 0);
	spate_idmap_destroy(m);
}

int main(void)
{
	test_idmap_bytes();
	check_rng = 88172645463325252ull;
	test_dict();
	test_dict_collisions();
	test_idmap();
	return check_summary("tables");
}
