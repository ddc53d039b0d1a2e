// SPDX-License-Identifier: GPL-2.0
/*
 * failopen.so: an LD_PRELOAD fault injector for the tests.  Opening the
 * file named by $FAILOPEN_PATH for writing fails with EPERM; everything
 * else goes through.  It lets the UML suite make the kernel "refuse" one
 * chosen write, such as the "on" of a later context, to test the rollback
 * of what damo restore had already done.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int refuse(const char *path, int flags)
{
	const char *f = getenv("FAILOPEN_PATH");

	return f && !strcmp(f, path) && (flags & O_ACCMODE) != O_RDONLY;
}

static int call(const char *name, const char *path, int flags, mode_t mode)
{
	int (*real)(const char *, int, ...);

	if (refuse(path, flags)) {
		errno = EPERM;
		return -1;
	}
	real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, name);
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return call("open", path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return call("open64", path, flags, mode);
}
