/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parse-size.h - the one parser of sizes, for the plugin's ram= and page=
 * options and for hca-size's arguments, so that both take the same words.
 *
 * A size is decimal digits with an optional K, M, G or T suffix (either
 * case; powers of 1024). Refused: anything else (a sign, spaces, other
 * suffixes, trailing characters), 0, and values that do not fit in 64
 * bits, before or after the suffix.
 */
#ifndef HCA_PARSE_SIZE_H
#define HCA_PARSE_SIZE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

static inline bool parse_size(const char *s, uint64_t *out)
{
	unsigned int shift = 0;
	char *end;
	uint64_t v;

	/* strtoull() would take spaces and a sign */
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return false;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (*end || !v || (shift && v > (UINT64_MAX >> shift)))
		return false;
	*out = v << shift;
	return true;
}

#endif /* HCA_PARSE_SIZE_H */
