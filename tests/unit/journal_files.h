/* journal_files.h - whole-file helpers of the journal tests
 * (test_journal.c, test_journal_io.c): a file's size, its bytes, writing
 * them back, comparing. In test_journal_io these go through the same
 * wrapped system calls (lseek, pread, write) as the journal does. */
#ifndef SPATE_TEST_JOURNAL_FILES_H
#define SPATE_TEST_JOURNAL_FILES_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

/* Its size, or -1 when it is not there. */
static off_t jf_size(const char *p)
{
	struct stat sb;

	return stat(p, &sb) == 0 ? sb.st_size : -1;
}

/* The whole file, malloc'd with a byte to spare; its length in *len. */
static uint8_t *jf_read(const char *p, size_t *len)
{
	int fd = open(p, O_RDONLY);
	off_t n = lseek(fd, 0, SEEK_END);
	uint8_t *buf = malloc(n > 0 ? (size_t)n + 1 : 1);

	CHECK(fd >= 0 && n >= 0);
	CHECK_EQ_INT(pread(fd, buf, n > 0 ? (size_t)n : 0, 0), n > 0 ? n : 0);
	if (fd >= 0)
		close(fd);
	*len = n > 0 ? (size_t)n : 0;
	return buf;
}

/* The file made of exactly these bytes. */
static void jf_write(const char *p, const uint8_t *buf, size_t len)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	CHECK_EQ_INT(write(fd, buf, len), (long long)len);
	close(fd);
}

/* Is the file there and exactly img? */
static bool jf_equals(const char *p, const uint8_t *img, size_t len)
{
	if (access(p, F_OK) != 0)
		return false;
	size_t n;
	uint8_t *now = jf_read(p, &n);
	bool same = n == len && memcmp(now, img, len) == 0;

	free(now);
	return same;
}

#endif
