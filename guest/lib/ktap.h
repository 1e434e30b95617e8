/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal KTAP (Documentation/dev-tools/ktap.rst) output for guest tests.
 * A test program prints one KTAP document; init nests it under its own.
 */
#ifndef HWAGE_KTAP_H
#define HWAGE_KTAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int ktap_nr, ktap_failed;

static inline void ktap_begin(const char *suite, int planned)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n# Subtest: %s\n1..%d\n", suite, planned);
}

/* ktap_diag(): a '#' line explaining what a test saw. */
static inline void ktap_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("# ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

static inline int ktap_result(int ok, const char *name)
{
	printf("%sok %d %s\n", ok ? "" : "not ", ++ktap_nr, name);
	if (!ok)
		ktap_failed++;
	return ok;
}

static inline void ktap_skip(const char *name, const char *why)
{
	printf("ok %d %s # SKIP %s\n", ++ktap_nr, name, why);
}

static inline int ktap_end(void)
{
	fflush(stdout);
	return ktap_failed ? 1 : 0;
}

#endif
