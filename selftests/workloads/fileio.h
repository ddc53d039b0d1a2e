/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What sysio and cfsfuzz share: file operations as single system calls
 * whose result is an errno (0: success), the errnos' names, a SIGALRM
 * that interrupts a blocking call, and waiting for a child.  Every
 * function is static; a program includes it once per source file.
 */
#ifndef FILEIO_H
#define FILEIO_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* "OK" for 0, else the errno's name ("EINVAL"), or "E<number>". */
static inline const char *ename(int err)
{
	static char buf[32];
	const char *name;

	if (!err)
		return "OK";
	name = strerrorname_np(err);
	if (name)
		return name;
	snprintf(buf, sizeof(buf), "E%d", err);
	return buf;
}

/*
 * Open @path write-only, write its @len bytes of @val in one write(2) and
 * close it; 0 or the first errno.  *@written gets what write(2) returned,
 * -1 if it was not called or failed.
 */
static inline int write_once(const char *path, const void *val, size_t len,
			     ssize_t *written)
{
	ssize_t n;
	int fd, err = 0;

	*written = -1;
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return errno;
	n = write(fd, val, len);
	if (n < 0)
		err = errno;
	else
		*written = n;
	if (close(fd) && !err)
		err = errno;
	return err;
}

/* write_once() of all of @val; a short write is EIO. */
static inline int write_all(const char *path, const void *val, size_t len)
{
	ssize_t n;
	int err = write_once(path, val, len, &n);

	if (!err && (size_t)n != len)
		err = EIO;	/* a short write: not expected of configfs */
	return err;
}

static inline int write_str(const char *path, const char *s)
{
	return write_all(path, s, strlen(s));
}

/* Read all of @path into @buf (NUL-terminated); the length or -errno. */
static inline ssize_t read_file(const char *path, char *buf, size_t size)
{
	ssize_t n, len = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	while ((size_t)len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (!n)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	return len;
}

static inline int do_mkdir(const char *path)
{
	return mkdir(path, 0755) ? errno : 0;
}

static inline int do_rmdir(const char *path)
{
	return rmdir(path) ? errno : 0;
}

static inline void on_alarm(int sig)
{
	(void)sig;
}

/* From now on SIGALRM makes a blocking call fail with EINTR. */
static inline void catch_alarm(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
}

/* A SIGALRM in @ms milliseconds (0: none). */
static inline void alarm_ms(long ms)
{
	struct itimerval it = {};

	it.it_value.tv_sec = ms / 1000;
	it.it_value.tv_usec = (ms % 1000) * 1000;
	setitimer(ITIMER_REAL, &it, NULL);
}

/*
 * Wait for child @pid: its exit status, 128 + the signal that killed it,
 * or 3 if waitpid(2) failed.
 */
static inline int wait_status(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 3;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

#endif /* FILEIO_H */
