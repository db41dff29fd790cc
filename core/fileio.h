/* fileio.h - writing a file whole or not at all. */
#ifndef XR_FILEIO_H
#define XR_FILEIO_H
#include <stdbool.h>
#include <stddef.h>

/* Writes the n bytes at data to path. A regular file (or a new one) is
 * written beside it under a temporary name and renamed over path once
 * every byte is out, so a failed write (disk full, file size limit)
 * leaves what was there; the file keeps its mode, and a symbolic link
 * its target (the file it names is replaced). Anything else (/dev/null,
 * a pipe), or a file in a directory we may not create files in (the
 * file itself may be writable), is written in place. False with errno
 * set. */
bool file_write_whole(const char *path, const void *data, size_t n);

#endif
