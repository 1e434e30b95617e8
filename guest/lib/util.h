/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by the guest programs. */
#ifndef HWAGE_UTIL_H
#define HWAGE_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <time.h>
#include <unistd.h>

static inline ssize_t read_file(const char *path, char *buf, size_t size);

/*
 * kparam(): the value of hwage.NAME= on the kernel command line (a copy
 * that stays valid), or def. /proc must be mounted by the first call.
 */
static inline const char *kparam(const char *name, const char *def)
{
	static char cmdline[4096];
	static int loaded;
	char key[64];
	const char *p;

	if (!loaded && read_file("/proc/cmdline", cmdline, sizeof(cmdline)) >= 0)
		loaded = 1;
	snprintf(key, sizeof(key), "hwage.%s=", name);
	for (p = cmdline; (p = strstr(p, key)); p++) {
		if (p != cmdline && p[-1] != ' ')
			continue;
		p += strlen(key);
		return strndup(p, strcspn(p, " \n"));
	}
	return def;
}

/*
 * xorshift64(): the next of a reproducible pseudo-random sequence kept in
 * *state (seed it with anything but 0; print the seed to replay a run)
 */
static inline uint64_t xorshift64(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545f4914f6cdd1dull;
}

/*
 * parse_num(): the decimal s, given to option opt of program prog, in
 * [lo, hi]; anything else ends the program with status 2, naming both
 */
static inline long parse_num(const char *prog, const char *opt, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "%s: bad value '%s' for %s (%ld to %ld)\n", prog, s, opt, lo, hi);
		exit(2);
	}
	return v;
}

/* now_s(): seconds on the monotonic clock */
static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* read_file(): whole small file into buf, NUL-terminated; -1 on error. */
static inline ssize_t read_file(const char *path, char *buf, size_t size)
{
	ssize_t n, total = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while (total < (ssize_t)size - 1) {
		n = read(fd, buf + total, size - 1 - total);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += n;
	}
	close(fd);
	buf[total] = '\0';
	return total;
}

/* write_file(): write a string; returns 0 or -errno of the write. */
static inline int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

/* stat_value(): NAME's value in a "name value" file, -1 if absent. */
static inline long long stat_value(const char *path, const char *name)
{
	static char buf[16384];
	size_t len = strlen(name);
	char *p = buf;

	if (read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	while (p && *p) {
		if (!strncmp(p, name, len) && p[len] == ' ')
			return atoll(p + len + 1);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

static inline long long vmstat(const char *name)
{
	return stat_value("/proc/vmstat", name);
}

/* the pid of the kernel thread named @comm, or -1 */
static inline int thread_pid(const char *comm)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int pid = -1;

	if (!d)
		return -1;
	while (pid < 0 && (e = readdir(d))) {
		char path[300], buf[64];

		if (!strchr("0123456789", e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		if (read_file(path, buf, sizeof(buf)) > 0 && !strncmp(buf, comm, strlen(comm)) &&
		    buf[strlen(comm)] == '\n')
			pid = atoi(e->d_name);
	}
	closedir(d);
	return pid;
}

/*
 * the CPU time of @pid in ns: its schedstat's first field, or without
 * CONFIG_SCHED_INFO utime + stime of its stat, in clock ticks; -1 if none
 */
static inline long long task_cpu_ns(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	if (read_file(path, buf, sizeof(buf)) > 0)
		return atoll(buf);
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_file(path, buf, sizeof(buf)) <= 0 || !(p = strrchr(buf, ')')))
		return -1;
	/* after "pid (comm)": state and 10 more fields, then utime and stime */
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -1;
	return (long long)(ut + st) * 1000000000LL / sysconf(_SC_CLK_TCK);
}

/*
 * setup_zram_swap(): swap on /dev/zram0 of size_mb, once per boot.
 * Writes the swap header itself (no mkswap in the guest). Returns 0 when
 * swap is on, or -errno.
 */
static inline int setup_zram_swap(int size_mb)
{
	long psz = sysconf(_SC_PAGESIZE);
	char buf[4096], *page;
	uint32_t *hdr;
	int fd, ret;

	if (read_file("/proc/swaps", buf, sizeof(buf)) > 0 && strstr(buf, "/dev/zram0"))
		return 0;
	snprintf(buf, sizeof(buf), "%dM", size_mb);
	ret = write_file("/sys/block/zram0/disksize", buf);
	if (ret)
		return ret;
	page = calloc(1, psz);
	if (!page)
		return -ENOMEM;
	/* struct swap_header: version, last_page, nr_badpages after 1024 bytes */
	hdr = (uint32_t *)(page + 1024);
	hdr[0] = 1;
	hdr[1] = (uint32_t)((long long)size_mb * 1024 * 1024 / psz - 1);
	hdr[2] = 0;
	memcpy(page + psz - 10, "SWAPSPACE2", 10);
	fd = open("/dev/zram0", O_WRONLY);
	if (fd < 0 || write(fd, page, psz) != psz)
		ret = -errno;
	if (fd >= 0)
		close(fd);
	free(page);
	if (ret)
		return ret;
	return swapon("/dev/zram0", 0) ? -errno : 0;
}

#endif
