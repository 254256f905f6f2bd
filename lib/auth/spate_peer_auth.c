/* spate_peer_auth.c - the cluster key file and the frames' HMAC tags
 * (spate_peer_auth.h). OpenSSL computes the MAC and compares it in
 * constant time; nothing cryptographic is written here. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "proto/spate_err.h"
#include "peer/spate_peer.h"
#include "auth/spate_peer_auth.h"

#define MAC_LEN 32 /* SHA-256; the tag is its first SPATE_PEER_TAG_LEN bytes */
#define FILE_MAX (64 * 1024)

_Static_assert(SPATE_PEER_TAG_LEN <= MAC_LEN, "the tag is a truncated HMAC-SHA256");

/* ---- the key file ---- */

static int fail_at(char *err, size_t errlen, const char *path, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int fail_at(char *err, size_t errlen, const char *path, int line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errlen, "%s:%d: ", path, line);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The next whitespace-separated word of a line: [*w, *w + *n). */
static const char *word(const char **p, const char *end, size_t *n)
{
	while (*p < end && isspace((unsigned char)**p))
		(*p)++;
	const char *w = *p;
	while (*p < end && !isspace((unsigned char)**p))
		(*p)++;
	*n = (size_t)(*p - w);
	return *n ? w : NULL;
}

static int parse_key(struct spate_peer_keyfile *kf, const char **p, const char *end,
		     const char *path, int line, char *err, size_t errlen)
{
	size_t n;
	const char *w = word(p, end, &n);
	char num[8];

	if (kf->n_keys == SPATE_PEER_KEYS_MAX)
		return fail_at(err, errlen, path, line,
			       "more than %d keys (the signing key and one still accepted)",
			       SPATE_PEER_KEYS_MAX);
	if (w == NULL || n >= sizeof(num))
		return fail_at(err, errlen, path, line, "key: want \"key ID HEX\", ID 1 to 255");
	memcpy(num, w, n);
	num[n] = '\0';
	char *e;
	errno = 0;
	long id = strtol(num, &e, 10);
	if (errno || *e || id < 1 || id > 255)
		return fail_at(err, errlen, path, line, "key id '%s' is not 1 to 255", num);
	for (uint32_t i = 0; i < kf->n_keys; i++)
		if (kf->key[i].id == id)
			return fail_at(err, errlen, path, line, "key id %ld listed twice", id);
	w = word(p, end, &n);
	if (w == NULL || n % 2 || n < 2 * SPATE_PEER_KEY_MIN || n > 2 * SPATE_PEER_KEY_MAX)
		return fail_at(
			err, errlen, path, line,
			"key %ld: want %d to %d hex digits, an even number (openssl rand -hex 32)",
			id, 2 * SPATE_PEER_KEY_MIN, 2 * SPATE_PEER_KEY_MAX);
	struct spate_peer_key *k = &kf->key[kf->n_keys];
	for (size_t i = 0; i < n; i += 2) {
		int hi = hexval(w[i]), lo = hexval(w[i + 1]);
		if (hi < 0 || lo < 0)
			return fail_at(err, errlen, path, line, "key %ld: '%c%c' is not hex", id,
				       w[i], w[i + 1]);
		k->bytes[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	k->id = (uint8_t)id;
	k->len = (uint8_t)(n / 2);
	kf->n_keys++;
	return 0;
}

int spate_peer_keyfile_parse(const char *text, const char *path, struct spate_peer_keyfile *kf,
			     char *err, size_t errlen)
{
	int line = 0;

	memset(kf, 0, sizeof(*kf));
	for (const char *p = text; *p != '\0';) {
		const char *eol = strchr(p, '\n');
		const char *end = eol ? eol : p + strlen(p);
		const char *hash = memchr(p, '#', (size_t)(end - p));
		const char *stop = hash ? hash : end;
		size_t n;
		const char *w;
		line++;
		w = word(&p, stop, &n);
		if (w == NULL) {
			/* blank or a comment */
		} else if (n == 3 && memcmp(w, "key", 3) == 0) {
			if (parse_key(kf, &p, stop, path, line, err, errlen) != 0)
				goto fail;
		} else if (n == 9 && memcmp(w, "zk_digest", 9) == 0) {
			w = word(&p, stop, &n);
			if (w == NULL || n >= sizeof(kf->zk_digest) || memchr(w, ':', n) == NULL ||
			    w[0] == ':' || w[n - 1] == ':') {
				fail_at(err, errlen, path, line,
					"zk_digest: want \"user:password\" (under %d bytes)",
					SPATE_PEER_DIGEST_MAX);
				goto fail;
			}
			memcpy(kf->zk_digest, w, n);
			kf->zk_digest[n] = '\0';
		} else {
			fail_at(err, errlen, path, line,
				"unknown entry '%.*s' (known: key, zk_digest)",
				(int)(n > 32 ? 32 : n), w);
			goto fail;
		}
		if (word(&p, stop, &n) != NULL) {
			fail_at(err, errlen, path, line, "unexpected text after the entry");
			goto fail;
		}
		p = eol ? eol + 1 : end;
	}
	if (kf->n_keys == 0) {
		fail_at(err, errlen, path, line,
			"no key (a line \"key 1 HEX\"; openssl rand -hex 32)");
		goto fail;
	}
	return 0;
fail:
	spate_peer_keyfile_wipe(kf);
	return -1;
}

int spate_peer_keyfile_load(const char *path, struct spate_peer_keyfile *kf, char *err,
			    size_t errlen)
{
	FILE *f = fopen(path, "r");
	struct stat st;
	char *text = NULL;
	int rc = -1;

	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fileno(f), &st) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	/* the cluster's secret: nobody but its owner may see or change it */
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		snprintf(err, errlen,
			 "%s: mode %04o lets group or others read or write the cluster key: "
			 "chmod 600 %s",
			 path, (unsigned)(st.st_mode & 07777), path);
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > FILE_MAX) {
		snprintf(err, errlen, "%s: not a regular file of at most %d bytes", path, FILE_MAX);
		goto out;
	}
	text = calloc(1, (size_t)st.st_size + 1);
	if (text == NULL) {
		snprintf(err, errlen, "%s: no memory", path);
		goto out;
	}
	size_t got = fread(text, 1, (size_t)st.st_size, f);
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		goto out;
	}
	if (memchr(text, '\0', got) != NULL) {
		snprintf(err, errlen, "%s: not a text file", path);
		goto out;
	}
	rc = spate_peer_keyfile_parse(text, path, kf, err, errlen);
out:
	if (text != NULL) {
		OPENSSL_cleanse(text, (size_t)st.st_size);
		free(text);
	}
	fclose(f);
	return rc;
}

void spate_peer_keyfile_wipe(struct spate_peer_keyfile *kf)
{
	OPENSSL_cleanse(kf, sizeof(*kf));
}

/* ---- tags ---- */

struct spate_peer_auth {
	uint32_t n;
	uint8_t id[SPATE_PEER_KEYS_MAX];
	EVP_MAC_CTX *ctx[SPATE_PEER_KEYS_MAX]; /* keyed once; re-initialised per frame */
};

void spate_peer_auth_destroy(struct spate_peer_auth *a)
{
	if (a == NULL)
		return;
	for (uint32_t i = 0; i < a->n; i++)
		EVP_MAC_CTX_free(a->ctx[i]);
	free(a);
}

struct spate_peer_auth *spate_peer_auth_create(const struct spate_peer_key *keys, uint32_t n)
{
	if (n > SPATE_PEER_KEYS_MAX)
		return NULL;
	struct spate_peer_auth *a = calloc(1, sizeof(*a));
	EVP_MAC *mac = n ? EVP_MAC_fetch(NULL, "HMAC", NULL) : NULL;
	char digest[] = "SHA256";
	OSSL_PARAM params[] = { OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
				OSSL_PARAM_construct_end() };

	if (a == NULL || (n && mac == NULL))
		goto fail;
	for (uint32_t i = 0; i < n; i++) {
		if (keys[i].id == 0 || keys[i].len < SPATE_PEER_KEY_MIN ||
		    keys[i].len > SPATE_PEER_KEY_MAX)
			goto fail;
		for (uint32_t k = 0; k < i; k++)
			if (a->id[k] == keys[i].id)
				goto fail;
		a->ctx[i] = EVP_MAC_CTX_new(mac);
		a->n = i + 1;
		if (a->ctx[i] == NULL ||
		    !EVP_MAC_init(a->ctx[i], keys[i].bytes, keys[i].len, params))
			goto fail;
		a->id[i] = keys[i].id;
	}
	EVP_MAC_free(mac);
	return a;
fail:
	EVP_MAC_free(mac);
	spate_peer_auth_destroy(a);
	return NULL;
}

uint32_t spate_peer_auth_keys(const struct spate_peer_auth *a)
{
	return a->n;
}

/* HMAC of frame[0, len - tag) under key slot i. */
static int tag_of(struct spate_peer_auth *a, uint32_t i, const uint8_t *frame, size_t len,
		  uint8_t out[MAC_LEN])
{
	size_t n = 0;

	/* a NULL key re-initialises with the key already set (no re-keying) */
	return EVP_MAC_init(a->ctx[i], NULL, 0, NULL) &&
	       EVP_MAC_update(a->ctx[i], frame, len - SPATE_PEER_TAG_LEN) &&
	       EVP_MAC_final(a->ctx[i], out, &n, MAC_LEN) && n == MAC_LEN;
}

void spate_peer_auth_sign(struct spate_peer_auth *a, uint8_t *frame, size_t len)
{
	uint8_t mac[MAC_LEN];
	uint8_t *tag = frame + len - SPATE_PEER_TAG_LEN;

	if (a->n == 0) {
		frame[3] = 0;
		memset(tag, 0, SPATE_PEER_TAG_LEN);
		return;
	}
	frame[3] = a->id[0];
	if (!tag_of(a, 0, frame, len, mac))
		memset(mac, 0, sizeof(mac)); /* refused by every receiver: counted there */
	memcpy(tag, mac, SPATE_PEER_TAG_LEN);
	OPENSSL_cleanse(mac, sizeof(mac));
}

int spate_peer_auth_verify(struct spate_peer_auth *a, const uint8_t *frame, size_t len,
			   uint32_t *slot)
{
	static const uint8_t zero[SPATE_PEER_TAG_LEN];
	uint8_t mac[MAC_LEN];

	if (len < SPATE_PEER_OVERHEAD)
		return -SPATE_E_AUTH_FAILED;
	const uint8_t *tag = frame + len - SPATE_PEER_TAG_LEN;
	if (a->n == 0) {
		*slot = 0;
		return frame[3] == 0 && memcmp(tag, zero, sizeof(zero)) == 0 ? 0
									     : -SPATE_E_AUTH_FAILED;
	}
	for (uint32_t i = 0; i < a->n; i++) {
		if (a->id[i] != frame[3])
			continue;
		int ok = tag_of(a, i, frame, len, mac) &&
			 CRYPTO_memcmp(mac, tag, SPATE_PEER_TAG_LEN) == 0;
		if (!ok)
			return -SPATE_E_AUTH_FAILED;
		*slot = i;
		return 0;
	}
	return -SPATE_E_AUTH_FAILED;
}
