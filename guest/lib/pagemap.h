/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /proc/self/pagemap (Documentation/admin-guide/mm/pagemap.rst): one
 * 64-bit entry per virtual page of the caller. The pfn is shown only to
 * CAP_SYS_ADMIN, which the guest programs run with.
 */
#ifndef HWAGE_PAGEMAP_H
#define HWAGE_PAGEMAP_H

#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#define PM_PRESENT (1ULL << 63)
#define PM_SWAPPED (1ULL << 62)
#define PM_PFN ((1ULL << 55) - 1)	/* bits 0-54 when present */

static inline int pagemap_open(void)
{
	return open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
}

/* pagemap_entry(): the entry of the page at addr, 0 if it cannot be read */
static inline uint64_t pagemap_entry(int fd, const volatile void *addr)
{
	static long psz;
	uint64_t e = 0;

	if (!psz)
		psz = sysconf(_SC_PAGESIZE);
	if (pread(fd, &e, sizeof(e), (uintptr_t)addr / psz * sizeof(e)) != sizeof(e))
		return 0;
	return e;
}

/* pagemap_pfn(): the pfn of the page at addr, 0 if it is not present */
static inline unsigned long long pagemap_pfn(int fd, const volatile void *addr)
{
	uint64_t e = pagemap_entry(fd, addr);

	return e & PM_PRESENT ? e & PM_PFN : 0;
}

#endif
