/* test_peer_auth.c - the tags of inter-host frames and the cluster key
 * file (spate_peer_auth.h).
 *
 *  - the tag is HMAC-SHA256 truncated: RFC 4231's test cases 1 and 3,
 *    twice each (the MAC context is re-initialised, not re-keyed);
 *  - a signed frame verifies, and every single-bit flip anywhere in it
 *    (header, key id, body, tag) is refused; 20,000 blind tags too;
 *  - a rotation: a ring of [new, old] signs with new and accepts both, a
 *    ring of [old] refuses new's frames; unsigned mode signs nothing and
 *    accepts only unsigned frames, a keyed ring refuses them;
 *  - the key file: what parses, each mistake refused with its line, and
 *    a file group or others may read refused. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "proto/spate_be.h"
#include "proto/spate_err.h"
#include "peer/spate_peer.h"
#include "auth/spate_peer_auth.h"

static struct spate_peer_key key_of(uint8_t id, uint8_t fill, uint8_t len)
{
	struct spate_peer_key k = { .id = id, .len = len };

	memset(k.bytes, fill, len);
	return k;
}

static void unhex(const char *s, uint8_t *out)
{
	for (size_t i = 0; s[2 * i]; i++) {
		unsigned v;
		sscanf(s + 2 * i, "%2x", &v);
		out[i] = (uint8_t)v;
	}
}

/* RFC 4231: the tag of data under key is the first 16 bytes of the
 * HMAC-SHA256 given. Byte 3 of the data is where a frame names its key:
 * the key's id is that byte, so signing leaves the data as it is. */
static void rfc4231(uint8_t fill, uint8_t key_len, const uint8_t *data, size_t n,
		    const char *want_hex)
{
	uint8_t buf[128], want[32];
	struct spate_peer_key k = key_of(data[3], fill, key_len);

	if (key_len < SPATE_PEER_KEY_MIN) {
		CHECK(0);
		return;
	}
	unhex(want_hex, want);
	struct spate_peer_auth *a = spate_peer_auth_create(&k, 1);
	CHECK(a != NULL);
	for (int round = 0; a && round < 2; round++) {
		memcpy(buf, data, n);
		memset(buf + n, 0, SPATE_PEER_TAG_LEN);
		spate_peer_auth_sign(a, buf, n + SPATE_PEER_TAG_LEN);
		CHECK(memcmp(buf, data, n) == 0);
		CHECK(memcmp(buf + n, want, SPATE_PEER_TAG_LEN) == 0);
	}
	spate_peer_auth_destroy(a);
}

static void test_vectors(void)
{
	uint8_t d3[50];

	/* test case 1: key 0x0b x 20, "Hi There" */
	rfc4231(0x0b, 20, (const uint8_t *)"Hi There", 8,
		"b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	/* test case 3: key 0xaa x 20, 0xdd x 50 */
	memset(d3, 0xdd, sizeof(d3));
	rfc4231(0xaa, 20, d3, sizeof(d3),
		"773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
}

/* A frame of two messages from host 1 to host 2, unsigned. */
static size_t make_frame(uint8_t *f)
{
	uint8_t body[64];
	struct spate_peer_writer w;

	spate_peer_writer_init(&w, body, sizeof(body));
	spate_peer_put_merge(&w, 5, 6);
	spate_peer_put_create(&w, 7, 1);
	struct spate_peer_hdr h = { .length = (uint16_t)(SPATE_PEER_OVERHEAD + w.len),
				    .count = w.count,
				    .src_host = 1,
				    .src_epoch = 3,
				    .dst_host = 2,
				    .dst_epoch = 4,
				    .seq = 9,
				    .ack = 2 };
	spate_peer_hdr_encode(f, &h);
	memcpy(f + SPATE_PEER_HDR_LEN, body, w.len);
	memset(f + SPATE_PEER_HDR_LEN + w.len, 0, SPATE_PEER_TAG_LEN);
	return h.length;
}

static void test_sign_verify(void)
{
	struct spate_peer_key keys[2] = { key_of(2, 0x5c, 32), key_of(1, 0x9f, 32) };
	struct spate_peer_auth *both = spate_peer_auth_create(keys, 2);
	struct spate_peer_auth *old = spate_peer_auth_create(&keys[1], 1);
	struct spate_peer_auth *none = spate_peer_auth_create(NULL, 0);
	uint8_t f[SPATE_PEER_FRAME_MAX], g[SPATE_PEER_FRAME_MAX];
	uint32_t slot = 99;

	CHECK(both && old && none);
	if (!both || !old || !none)
		return;
	CHECK_EQ_INT(spate_peer_auth_keys(both), 2);
	CHECK_EQ_INT(spate_peer_auth_keys(none), 0);
	size_t n = make_frame(f);
	spate_peer_auth_sign(both, f, n);
	CHECK_EQ_INT(f[3], 2); /* the first key signs */
	struct spate_peer_hdr h;
	CHECK_EQ_INT(spate_peer_decode_hdr(f, n, &h), 0);
	CHECK_EQ_INT(h.key, 2);
	CHECK_EQ_INT(spate_peer_auth_verify(both, f, n, &slot), 0);
	CHECK_EQ_INT(slot, 0);
	/* a host that does not know the new key yet refuses its frames */
	CHECK_EQ_INT(spate_peer_auth_verify(old, f, n, &slot), -SPATE_E_AUTH_FAILED);
	/* ... and its own frames are accepted under the second key */
	memcpy(g, f, n);
	spate_peer_auth_sign(old, g, n);
	CHECK_EQ_INT(g[3], 1);
	CHECK_EQ_INT(spate_peer_auth_verify(both, g, n, &slot), 0);
	CHECK_EQ_INT(slot, 1);
	CHECK(memcmp(f + n - SPATE_PEER_TAG_LEN, g + n - SPATE_PEER_TAG_LEN, SPATE_PEER_TAG_LEN) !=
	      0);

	/* every bit counts: header, key id, epochs, sequence, body, tag */
	int refused = 0;
	for (size_t off = 0; off < n; off++)
		for (int bit = 0; bit < 8; bit++) {
			memcpy(g, f, n);
			g[off] ^= (uint8_t)(1u << bit);
			refused +=
				spate_peer_auth_verify(both, g, n, &slot) == -SPATE_E_AUTH_FAILED;
		}
	CHECK_EQ_INT(refused, (int)n * 8);
	/* a frame cut short, or grown by a byte, is refused */
	CHECK_EQ_INT(spate_peer_auth_verify(both, f, n - 1, &slot), -SPATE_E_AUTH_FAILED);
	CHECK_EQ_INT(spate_peer_auth_verify(both, f, SPATE_PEER_OVERHEAD - 1, &slot),
		     -SPATE_E_AUTH_FAILED);
	/* blind forgeries: random tags under the right key id */
	check_rng = 0x5eed;
	refused = 0;
	for (int i = 0; i < 20000; i++) {
		memcpy(g, f, n);
		spate_put_be32(g + 24, (uint32_t)i + 1); /* seq 1..20000 */
		for (int b = 0; b < SPATE_PEER_TAG_LEN; b += 8) {
			uint64_t r = check_rand();
			memcpy(g + n - SPATE_PEER_TAG_LEN + b, &r, 8);
		}
		refused += spate_peer_auth_verify(both, g, n, &slot) != 0;
	}
	CHECK_EQ_INT(refused, 20000);

	/* unsigned mode: key 0 and a zero tag, nothing else accepted; keyed
	 * rings refuse unsigned frames */
	memcpy(g, f, n);
	spate_peer_auth_sign(none, g, n);
	CHECK_EQ_INT(g[3], 0);
	CHECK_EQ_INT(spate_peer_auth_verify(none, g, n, &slot), 0);
	CHECK_EQ_INT(spate_peer_auth_verify(both, g, n, &slot), -SPATE_E_AUTH_FAILED);
	CHECK_EQ_INT(spate_peer_auth_verify(none, f, n, &slot), -SPATE_E_AUTH_FAILED);
	g[n - 1] = 1;
	CHECK_EQ_INT(spate_peer_auth_verify(none, g, n, &slot), -SPATE_E_AUTH_FAILED);

	/* rings refuse what they cannot use */
	struct spate_peer_key bad[2] = { key_of(0, 1, 32), key_of(3, 1, 8) };
	CHECK(spate_peer_auth_create(&bad[0], 1) == NULL); /* id 0 */
	CHECK(spate_peer_auth_create(&bad[1], 1) == NULL); /* too short */
	struct spate_peer_key same[2] = { key_of(3, 1, 32), key_of(3, 2, 32) };
	CHECK(spate_peer_auth_create(same, 2) == NULL);
	CHECK(spate_peer_auth_create(keys, 3) == NULL);
	spate_peer_auth_destroy(both);
	spate_peer_auth_destroy(old);
	spate_peer_auth_destroy(none);
}

#define K32 "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

/* Parse text; the error (or "") in err. */
static int parse(const char *text, struct spate_peer_keyfile *kf, char *err)
{
	err[0] = '\0';
	return spate_peer_keyfile_parse(text, "k", kf, err, 200);
}

static void refused(const char *text, const char *want)
{
	struct spate_peer_keyfile kf;
	char err[200];

	CHECK_EQ_INT(parse(text, &kf, err), -1);
	if (strstr(err, want) == NULL) {
		CHECK(0);
		fprintf(stderr, "  '%s': got '%s', want '%s'\n", text, err, want);
	}
	CHECK_EQ_INT(kf.n_keys, 0); /* wiped */
}

static void test_keyfile(void)
{
	struct spate_peer_keyfile kf;
	char err[200];

	CHECK_EQ_INT(parse("# cluster keys\n\nkey 2 " K32 "  # signs\n  key 1 "
			   "ffeeddccbbaa99887766554433221100\nzk_digest spate:pa$$word\n",
			   &kf, err),
		     0);
	CHECK_EQ_INT(kf.n_keys, 2);
	CHECK(kf.key[0].id == 2 && kf.key[0].len == 32 && kf.key[0].bytes[31] == 0x1f);
	CHECK(kf.key[1].id == 1 && kf.key[1].len == 16 && kf.key[1].bytes[0] == 0xff);
	CHECK(strcmp(kf.zk_digest, "spate:pa$$word") == 0);
	/* no newline at the end, upper-case hex */
	CHECK_EQ_INT(parse("key 255 "
			   "AABBCCDDEEFF00112233445566778899",
			   &kf, err),
		     0);
	CHECK(kf.n_keys == 1 && kf.key[0].id == 255 && kf.key[0].bytes[0] == 0xaa &&
	      kf.zk_digest[0] == '\0');
	spate_peer_keyfile_wipe(&kf);
	CHECK(kf.n_keys == 0 && kf.key[0].bytes[0] == 0);

	refused("", "k:0: no key");
	refused("# only a comment\n", "k:1: no key");
	refused("key 1 " K32 "\nkey 2 " K32 "\nkey 3 " K32 "\n", "k:3: more than 2 keys");
	refused("key 1 " K32 "\nkey 1 " K32 "\n", "k:2: key id 1 listed twice");
	refused("key 0 " K32 "\n", "k:1: key id '0' is not 1 to 255");
	refused("key 256 " K32 "\n", "is not 1 to 255");
	refused("key x1 " K32 "\n", "is not 1 to 255");
	refused("key\n", "k:1: key: want");
	refused("key 1\n", "want 32 to 128 hex digits");
	refused("key 1 0011223344556677\n", "want 32 to 128 hex digits");
	refused("key 1 " K32 "0\n", "an even number");
	/* the key length at both bounds: 16 and 64 bytes, not 15 or 65 */
	char ktext[300];
	for (int bytes = 15; bytes <= 65; bytes++) {
		int n = snprintf(ktext, sizeof(ktext), "key 9 ");
		for (int i = 0; i < bytes; i++)
			n += snprintf(ktext + n, sizeof(ktext) - (size_t)n, "%02x",
				      (unsigned)(i * 5 + 3) & 0xff);
		if (bytes >= 16 && bytes <= 64) {
			CHECK_EQ_INT(parse(ktext, &kf, err), 0);
			CHECK_EQ_INT(kf.key[0].len, bytes);
			CHECK_EQ_INT(kf.key[0].bytes[bytes - 1], ((bytes - 1) * 5 + 3) & 0xff);
		} else {
			refused(ktext, "key 9: want 32 to 128 hex digits");
		}
		if (bytes == 17)
			bytes = 62; /* the middle says nothing new */
	}
	refused("key 1 0g0102030405060708090a0b0c0d0e0f\n", "'0g' is not hex");
	refused("key 1 " K32 " extra\n", "k:1: unexpected text after the entry");
	refused("\nsecret 1 " K32 "\n", "k:2: unknown entry 'secret'");
	refused("key 1 " K32 "\nzk_digest nocolon\n", "k:2: zk_digest: want");
	refused("key 1 " K32 "\nzk_digest :pw\n", "zk_digest: want");

	/* the file: only its owner may read it */
	char path[] = "/tmp/test_peer_auth.XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	static const char text[] = "key 4 " K32 "\n";
	CHECK(write(fd, text, sizeof(text) - 1) == (ssize_t)sizeof(text) - 1);
	close(fd);
	CHECK_EQ_INT(chmod(path, 0600), 0);
	CHECK_EQ_INT(spate_peer_keyfile_load(path, &kf, err, sizeof(err)), 0);
	CHECK(kf.n_keys == 1 && kf.key[0].id == 4);
	CHECK_EQ_INT(chmod(path, 0640), 0);
	CHECK_EQ_INT(spate_peer_keyfile_load(path, &kf, err, sizeof(err)), -1);
	CHECK(strstr(err, "mode 0640") != NULL && strstr(err, "chmod 600") != NULL);
	/* one byte past 64 KiB, then not a file at all */
	CHECK_EQ_INT(chmod(path, 0600), 0);
	CHECK_EQ_INT(truncate(path, 64 * 1024 + 1), 0);
	char want[300];
	snprintf(want, sizeof(want), "%s: not a regular file of at most 65536 bytes", path);
	CHECK_EQ_INT(spate_peer_keyfile_load(path, &kf, err, sizeof(err)), -1);
	CHECK(strcmp(err, want) == 0);
	CHECK_EQ_INT(truncate(path, 64 * 1024), 0); /* at the bound: read (the key, then NULs) */
	err[0] = '\0';
	int rc = spate_peer_keyfile_load(path, &kf, err, sizeof(err));
	CHECK(rc == 0 || strstr(err, "not a regular file") == NULL);
	unlink(path);
	CHECK_EQ_INT(mkdir(path, 0700), 0);
	snprintf(want, sizeof(want), "%s: not a regular file of at most 65536 bytes", path);
	CHECK_EQ_INT(spate_peer_keyfile_load(path, &kf, err, sizeof(err)), -1);
	CHECK(strcmp(err, want) == 0);
	rmdir(path);
	CHECK_EQ_INT(spate_peer_keyfile_load(path, &kf, err, sizeof(err)), -1);
	CHECK(strstr(err, "No such file") != NULL);
}

int main(void)
{
	test_vectors();
	test_sign_verify();
	test_keyfile();
	return check_summary("test_peer_auth");
}
