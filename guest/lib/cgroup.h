/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory cgroups (cgroup v2, mounted by init at /sys/fs/cgroup): create
 * one with a limit, join it, read and set its files.
 *
 * A cgroup is named by its directory, e.g. CG_ROOT "/hwage-t12". Errors
 * are returned as -errno; cg_create() also says on stderr, as a '#' line,
 * which step failed.
 */
#ifndef HWAGE_CGROUP_H
#define HWAGE_CGROUP_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#define CG_ROOT "/sys/fs/cgroup"

/* cg_write(): write val to the cgroup's file; 0 or -errno */
static inline int cg_write(const char *cg, const char *file, const char *val)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	return write_file(path, val);
}

/* cg_read(): the number a one-value file holds ("max" reads -1), or -1 */
static inline long long cg_read(const char *cg, const char *file)
{
	char path[512], buf[64];

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	if (read_file(path, buf, sizeof(buf)) <= 0 || !strncmp(buf, "max", 3))
		return -1;
	return atoll(buf);
}

/* cg_stat(): key's value in a "key value" file (memory.stat, cpu.stat...), or -1 */
static inline long long cg_stat(const char *cg, const char *file, const char *key)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	return stat_value(path, key);
}

/*
 * cg_set_max(): memory.max in bytes (0: no limit), checked by reading it
 * back (the kernel keeps whole pages); 0, -errno, or -EIO if it reads
 * another value.
 */
static inline int cg_set_max(const char *cg, long long bytes)
{
	long long psz = sysconf(_SC_PAGESIZE), want = bytes > 0 ? bytes / psz * psz : -1, got;
	char v[32];
	int ret;

	if (bytes > 0)
		snprintf(v, sizeof(v), "%lld", bytes);
	else
		snprintf(v, sizeof(v), "max");
	ret = cg_write(cg, "memory.max", v);
	if (ret)
		return ret;
	got = cg_read(cg, "memory.max");
	if (got != want) {
		fprintf(stderr, "# %s/memory.max reads %lld after writing %s\n", cg, got, v);
		return -EIO;
	}
	return 0;
}

/* cg_enter(): move the calling process into the cgroup; 0 or -errno */
static inline int cg_enter(const char *cg)
{
	return cg_write(cg, "cgroup.procs", "0");
}

/*
 * cg_create(): a fresh memory cgroup at cg (one left over from an earlier
 * run is removed first) with memory.max at max_bytes (0: no limit).
 */
static inline int cg_create(const char *cg, long long max_bytes)
{
	const char *step = "+memory in " CG_ROOT "/cgroup.subtree_control";
	int ret = write_file(CG_ROOT "/cgroup.subtree_control", "+memory");

	if (!ret) {
		step = "mkdir";
		rmdir(cg);
		ret = mkdir(cg, 0755) && errno != EEXIST ? -errno : 0;
	}
	if (!ret) {
		step = "memory.max";
		ret = cg_set_max(cg, max_bytes);
	}
	if (ret)
		fprintf(stderr, "# cg_create %s: %s: %s\n", cg, step, strerror(-ret));
	return ret;
}

/*
 * cg_self(): the directory of the calling process's cgroup (CG_ROOT
 * "/PATH", of "0::/PATH" in /proc/self/cgroup) into @buf; 0 or -ENOENT
 */
static inline int cg_self(char *buf, size_t size)
{
	char line[256];

	if (read_file("/proc/self/cgroup", line, sizeof(line)) <= 0 ||
	    strncmp(line, "0::/", 4))
		return -ENOENT;
	line[strcspn(line, "\n")] = '\0';
	snprintf(buf, size, CG_ROOT "%s", line + 3);
	return 0;
}

/* cg_path(): the cgroup's path as the kernel shows it ("/hwage-t12") */
static inline const char *cg_path(const char *cg)
{
	size_t n = strlen(CG_ROOT);

	return !strncmp(cg, CG_ROOT, n) && cg[n] == '/' ? cg + n : cg;
}

#endif
