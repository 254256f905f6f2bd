/* outfile.c - write to a temporary file, rename on success (outfile.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

int outfile_open(struct outfile *o, const char *prog, const char *path)
{
	memset(o, 0, sizeof(*o));
	o->prog = prog;
	o->path = path;
	if (strcmp(path, "-") == 0) {
		o->f = stdout;
		return 0;
	}
	/* Not a regular file (/dev/null, a FIFO, a terminal): written
	 * directly; renaming over it would replace the device. */
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		o->f = fopen(path, "w");
		if (o->f == NULL) {
			fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
			return -1;
		}
		return 0;
	}
	/* Same directory as the target, so that rename() is atomic. */
	if ((size_t)snprintf(o->tmp, sizeof(o->tmp), "%s.tmp.XXXXXX", path) >= sizeof(o->tmp)) {
		fprintf(stderr, "%s: %s: path too long\n", prog, path);
		return -1;
	}
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		o->tmp[0] = '\0';
		return -1;
	}
	/* mkstemp makes 0600; an output file gets the usual mode. */
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	o->f = fdopen(fd, "w");
	if (o->f == NULL) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		close(fd);
		unlink(o->tmp);
		return -1;
	}
	return 0;
}

int outfile_commit(struct outfile *o)
{
	if (o->f == stdout) {
		if (fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "%s: writing stdout: %s\n", o->prog, strerror(errno));
			return -1;
		}
		return 0;
	}
	int bad = 0, err = 0;
	if (o->f != NULL) {
		bad = fflush(o->f) != 0 || ferror(o->f);
		err = errno;
	}
	if (o->f != NULL && fclose(o->f) != 0 && !bad) {
		bad = 1;
		err = errno;
	}
	o->f = NULL;
	if (!bad && o->tmp[0] != '\0' && rename(o->tmp, o->path) != 0) {
		bad = 1;
		err = errno;
	}
	if (bad) {
		fprintf(stderr, "%s: writing %s: %s\n", o->prog, o->path, strerror(err));
		if (o->tmp[0] != '\0')
			unlink(o->tmp);
		return -1;
	}
	return 0;
}

void outfile_abort(struct outfile *o)
{
	if (o->f != NULL && o->f != stdout)
		fclose(o->f);
	if (o->f != stdout && o->tmp[0] != '\0')
		unlink(o->tmp);
	o->f = NULL;
}
