/* fileio.c - writing a file whole or not at all (see fileio.h). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* open, fstat, getpid */
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

bool file_write_whole(const char *path, const void *data, size_t n)
{
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		int fd = open(path, O_WRONLY | O_TRUNC);
		return fd >= 0 && put_close(fd, data, n);
	}
	size_t len = strlen(path);
	char *tmp = malloc(len + 40);
	if (!tmp) {
		errno = ENOMEM;
		return false;
	}
	static unsigned serial;
	int fd = -1;
	for (int tries = 0; fd < 0 && tries < 100; tries++) {
		snprintf(tmp, len + 40, "%s.tmp.%ld.%u", path, (long)getpid(),
			 serial++);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	bool ok = fd >= 0 && put_close(fd, data, n);
	int e = errno;
	if (fd >= 0 && ok && rename(tmp, path) != 0) {
		ok = false;
		e = errno;
	}
	if (fd >= 0 && !ok)
		remove(tmp);
	free(tmp);
	errno = e;
	return ok;
}
