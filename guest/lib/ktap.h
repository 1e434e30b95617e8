/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal KTAP (Documentation/dev-tools/ktap.rst) output for guest tests.
 * A test program prints one KTAP document; init nests it under its own.
 *
 * The plan comes first, as KTAP wants it, so it is counted by hand; the
 * count is checked: ktap_end() fails a test whose number of results
 * (ok, not ok or skipped) differs from its plan, with a
 * "# planned N, reported M" line. A test that stops early after a failed
 * check therefore reports the mismatch as well, which names how far it got.
 */
#ifndef HWAGE_KTAP_H
#define HWAGE_KTAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int ktap_nr, ktap_failed, ktap_planned = -1;

static inline void ktap_begin(const char *suite, int planned)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	ktap_planned = planned;
	printf("KTAP version 1\n# Subtest: %s\n1..%d\n", suite, planned);
}

/* ktap_diag(): a '#' line explaining what a test saw. */
static inline void ktap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
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

/*
 * ktap_todo(): a known defect showed itself: "not ok N name # TODO why".
 * The host lists it as a known failure and counts it with the skipped
 * cases, so the run is not failed by a defect already filed; anything the
 * defect does not explain must still be a ktap_result() failure.
 */
static inline void ktap_todo(const char *name, const char *why)
{
	printf("not ok %d %s # TODO %s\n", ++ktap_nr, name, why);
}

/* ktap_end(): the exit status of the test: 0 if all passed as planned */
static inline int ktap_end(void)
{
	int bad_plan = ktap_planned < 0 || ktap_nr != ktap_planned;

	if (bad_plan)
		ktap_diag("planned %d, reported %d", ktap_planned, ktap_nr);
	fflush(stdout);
	return ktap_failed || bad_plan ? 1 : 0;
}

#endif
