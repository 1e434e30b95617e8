// SPDX-License-Identifier: GPL-2.0
/*
 * bootstrap - the ratio of two medians with a percentile bootstrap
 * confidence interval, for bench/report.sh.
 *
 *	bootstrap [-n RESAMPLES] [-s SEED] [-l LEVEL] A1 A2 ... / B1 B2 ...
 *
 * prints one line
 *
 *	MEDIAN_A MEDIAN_B RATIO LO HI EXCLUDES_1
 *
 * RATIO is median(A) / median(B); [LO, HI] is the central LEVEL interval
 * (default 0.95) of median(A*) / median(B*) over RESAMPLES (default 10000)
 * pairs of resamples, A* drawn with replacement from A and B* from B, each
 * of its own size.  The two sides are resampled independently because the
 * runs of two configurations are separate boots.  EXCLUDES_1 is "yes" when
 * the interval lies wholly above or below 1.0 (the difference is real at
 * that level), else "no".  LO, HI and EXCLUDES_1 are "-" when a side has
 * fewer than 2 values or a resampled median of B is 0; RATIO is "-" when
 * median(B) is 0.
 *
 * The generator is seeded (SEED, default 1), so the same input gives the
 * same output on every machine.  Exit status 2, with a message naming the
 * argument, on bad input.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sample {
	double *v;
	int n;
};

static uint64_t rng_state;

/* splitmix64: small, fast and good enough to draw indices */
static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* an index in [0, n) without modulo bias worth speaking of (n is small) */
static int rng_index(int n)
{
	return (int)(((rng_next() >> 32) * (uint64_t)n) >> 32);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* median of v[0..n); sorts v in place */
static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* median of a resample of s drawn with replacement, using buf */
static double resample_median(const struct sample *s, double *buf)
{
	int i;

	for (i = 0; i < s->n; i++)
		buf[i] = s->v[rng_index(s->n)];
	return median(buf, s->n);
}

static void usage(const char *why, const char *arg)
{
	fprintf(stderr, "bootstrap: %s%s%s\n"
		"usage: bootstrap [-n RESAMPLES] [-s SEED] [-l LEVEL] A1 A2 ... / B1 B2 ...\n",
		why, arg ? ": " : "", arg ? arg : "");
	exit(2);
}

static double number(const char *arg, const char *what)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(x))
		usage(what, arg);
	return x;
}

static void print_value(double x)
{
	printf("%.6g", x);
}

int main(int argc, char **argv)
{
	struct sample s[2] = { { NULL, 0 }, { NULL, 0 } };
	double level = 0.95, *ratios, *buf, ma, mb;
	long resamples = 10000, r, lo_i, hi_i;
	int i, side = 0, maxn;

	rng_state = 1;
	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] && strchr("nsl", argv[i][1]) &&
		    !argv[i][2]; i += 2) {
		double x;

		if (i + 1 >= argc)
			usage("option without a value", argv[i]);
		x = number(argv[i + 1], argv[i][1] == 'l' ? "bad LEVEL" : "bad number");
		if (argv[i][1] == 'n') {
			if (x < 100 || x > 10000000 || x != (long)x)
				usage("RESAMPLES must be a whole number from 100 to 10000000",
				      argv[i + 1]);
			resamples = (long)x;
		} else if (argv[i][1] == 's') {
			if (x < 0 || x != (uint64_t)x)
				usage("SEED must be a whole number >= 0", argv[i + 1]);
			rng_state = (uint64_t)x;
		} else {
			if (!(x > 0 && x < 1))
				usage("LEVEL must be between 0 and 1", argv[i + 1]);
			level = x;
		}
	}
	s[0].v = calloc(argc, sizeof(double));
	s[1].v = calloc(argc, sizeof(double));
	if (!s[0].v || !s[1].v)
		usage("out of memory", NULL);
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "/")) {
			if (side++)
				usage("more than one '/'", NULL);
			continue;
		}
		s[side].v[s[side].n++] = number(argv[i], "not a number");
	}
	if (side != 1 || !s[0].n || !s[1].n)
		usage("want values on both sides of a '/'", NULL);

	maxn = s[0].n > s[1].n ? s[0].n : s[1].n;
	buf = calloc(maxn, sizeof(double));
	ratios = calloc(resamples, sizeof(double));
	if (!buf || !ratios)
		usage("out of memory", NULL);
	for (i = 0; i < s[0].n; i++)
		buf[i] = s[0].v[i];
	ma = median(buf, s[0].n);
	for (i = 0; i < s[1].n; i++)
		buf[i] = s[1].v[i];
	mb = median(buf, s[1].n);

	print_value(ma);
	putchar(' ');
	print_value(mb);
	putchar(' ');
	if (mb == 0) {
		printf("- - - -\n");
		return 0;
	}
	print_value(ma / mb);
	if (s[0].n < 2 || s[1].n < 2) {
		printf(" - - -\n");
		return 0;
	}
	for (r = 0; r < resamples; r++) {
		double a = resample_median(&s[0], buf), b = resample_median(&s[1], buf);

		if (b == 0) {
			printf(" - - -\n");
			return 0;
		}
		ratios[r] = a / b;
	}
	qsort(ratios, resamples, sizeof(*ratios), cmp_double);
	lo_i = (long)floor((1 - level) / 2 * resamples);
	hi_i = (long)ceil((1 + level) / 2 * resamples) - 1;
	if (hi_i >= resamples)
		hi_i = resamples - 1;
	putchar(' ');
	print_value(ratios[lo_i]);
	putchar(' ');
	print_value(ratios[hi_i]);
	printf(" %s\n", ratios[lo_i] > 1 || ratios[hi_i] < 1 ? "yes" : "no");
	return 0;
}
