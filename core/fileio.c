/* fileio.c - writing a file whole or not at all (see fileio.h). */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* open, fchmod, fchown, realpath, getpid */
#endif
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* n bytes to descriptor fd, through short writes; false with errno. */
static bool put_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = EIO;
			return false;
		}
		p += k;
		n -= (size_t)k;
	}
	return true;
}

/* Writes into fd and closes it; false with errno. */
static bool put_close(int fd, const void *data, size_t n)
{
	bool ok = put_all(fd, data, n);
	int e = errno;
	if (close(fd) != 0 && ok) {
		ok = false;
		e = errno;
	}
	errno = e;
	return ok;
}

/* In place, as fopen(path, "w") would: the fallback where no temporary
 * file can be made beside path. */
static bool write_in_place(const char *path, const void *data, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	return fd >= 0 && put_close(fd, data, n);
}

bool file_write_whole(const char *path, const void *data, size_t n)
{
	struct stat st;
	bool exists = stat(path, &st) == 0;
	if (exists && !S_ISREG(st.st_mode))
		return write_in_place(path, data, n);
	/* through a symbolic link: the file it names is replaced, not the
	 * link */
	char *real = exists ? realpath(path, NULL) : NULL;
	const char *target = real ? real : path;
	size_t len = strlen(target);
	char *tmp = malloc(len + 40);
	if (!tmp) {
		free(real);
		errno = ENOMEM;
		return false;
	}
	/* beside it, in its directory, under a short name (the target's
	 * own name may be as long as a name can be) */
	const char *slash = strrchr(target, '/');
	int dir = slash ? (int)(slash - target) + 1 : 0;
	static unsigned serial;
	int fd = -1;
	for (int tries = 0; fd < 0 && tries < 100; tries++) {
		snprintf(tmp, len + 40, "%.*s.xr-tmp.%ld.%u", dir, target,
			 (long)getpid(), serial++);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0 && errno != EACCES && errno != EPERM && errno != EROFS) {
		/* no room, or no such directory: writing in place would
		 * fail as well, after emptying the file */
		int e = errno;
		free(tmp);
		free(real);
		errno = e;
		return false;
	}
	if (fd < 0) { /* a directory we may not write in: as fopen does */
		free(tmp);
		bool ok = write_in_place(target, data, n);
		int e = errno;
		free(real);
		errno = e;
		return ok;
	}
	if (exists) { /* the old file's mode (and owner, where allowed) */
		(void)fchmod(fd, st.st_mode & 07777);
		(void)!fchown(fd, st.st_uid, st.st_gid);
	}
	bool ok = put_close(fd, data, n);
	int e = errno;
	if (ok && rename(tmp, target) != 0) {
		ok = false;
		e = errno;
	}
	if (!ok)
		remove(tmp);
	free(tmp);
	free(real);
	errno = e;
	return ok;
}
