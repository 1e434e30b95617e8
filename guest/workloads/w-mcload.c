// SPDX-License-Identifier: GPL-2.0
/*
 * w-mcload: a verifying memcached load client (text protocol over TCP to
 * 127.0.0.1), one connection per thread.
 *
 *   w-mcload [-p PORT] [-k KEYS] [-v BYTES] [-l] [-s SECONDS] [-z THETA]
 *            [-w PCT] [-t THREADS] [-f STATEFILE]
 *
 *   -p PORT     memcached's port (11211)
 *   -k KEYS     number of keys, ids 0..KEYS-1, named "k<id>" (100000)
 *   -v BYTES    value size (1024)
 *   -l          load phase: set every key once, each set must get STORED
 *   -s SECONDS  run phase, this long (after the load when -l is given too)
 *   -z THETA    Zipfian skew of the run phase, 0 <= THETA < 1 (0.99)
 *   -w PCT      percent of the run phase's requests that are sets (5)
 *   -t THREADS  threads, each with its own connection (2)
 *   -f FILE     keep the keys' versions in FILE across runs (see below)
 *
 * Keys of the run phase come from Gray et al.'s Zipfian generator ("Quickly
 * generating billion-record synthetic databases", SIGMOD 1994; YCSB's
 * ZipfianGenerator) over ranks 0..KEYS-1, and a rank becomes a key id
 * through a keyed Feistel permutation (cycle-walking on the next power of
 * two), so the hot keys are spread over the key space, hence over
 * memcached's memory (the load sets keys in id order), and every key is
 * used.
 *
 * Verification: a value is a function of (key id, version): pseudo-random
 * bytes seeded from both; the version travels in memcached's 32-bit flags.
 * Each key has two shared atomic counters: started (the latest version a
 * set was sent for) and completed (the latest one memcached answered
 * STORED to). A set claims its key by moving started from completed to
 * completed + 1 (so one set per key is in flight, and memcached holds the
 * versions in order), and publishes completed after STORED. A get reads
 * completed before sending (lo) and started after the answer (hi): the
 * version memcached returned must lie in [lo, hi], and the value must match
 * that version byte for byte. Version 0 means "not known": a key not set
 * by this process, without a state file. Its get only checks that the value
 * matches the version it carries. -f FILE makes every get exact across
 * processes (load in one, runs in others): the versions are read from FILE
 * at start, if it exists, and written back at the end.
 *
 * A get answered END alone is a miss (memcached evicted or lost the key:
 * give it a cache bigger than KEYS x BYTES). Anything else unexpected is
 * an error; a broken protocol stream ends that thread's phase.
 *
 * Output: '#' diagnostic lines, then exactly one line
 *   result ops=N secs=S.SS ops_per_s=N p50_us=N p99_us=N gets=N sets=N misses=N errors=N
 * for the run phase (for the load phase with -l alone). Latency is the
 * time from sending a request to the end of its answer (CLOCK_MONOTONIC),
 * percentiles from a log-scaled histogram (16 buckets per power of two,
 * within 3%). Exit 0 only when errors and misses are both 0; 2 on a bad
 * option.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define PROG "w-mcload"
#define MAX_KEYS (1u << 28)
#define MAX_VALUE 1000000
#define MAX_THREADS 64
#define MAX_ERROR_LINES 10
#define RECV_TIMEOUT_S 60
#define HBUCKETS 1024	/* 16 per power of two of nanoseconds */

static struct {
	int port, vsize, load, wpct, threads;
	uint32_t keys;
	double secs, theta;
	const char *state;
} opt = { .port = 11211, .keys = 100000, .vsize = 1024, .wpct = 5, .threads = 2,
	  .theta = 0.99 };

static _Atomic uint32_t *started, *completed;
static atomic_int error_lines, miss_lines;

/* ---- arithmetic without libm (the guest Makefile links no -lm) ---- */

static double m_log(double x)	/* x > 0 */
{
	union { double d; uint64_t u; } v = { .d = x };
	int e = (int)((v.u >> 52) & 0x7ff) - 1023;
	double m, s, s2, t, sum = 0;
	int k;

	v.u = (v.u & ((1ull << 52) - 1)) | (1023ull << 52);	/* m in [1, 2) */
	m = v.d;
	if (m > 1.4142135623730951) {
		m /= 2;
		e++;
	}
	s = (m - 1) / (m + 1);	/* |s| < 0.172: ln m = 2 atanh s */
	s2 = s * s;
	t = s;
	for (k = 1; k < 40; k += 2) {
		sum += t / k;
		t *= s2;
	}
	return 2 * sum + e * 0.6931471805599453;
}

static double m_exp(double x)
{
	union { double d; uint64_t u; } v;
	double r, t = 1, sum = 1;
	int k, n;

	if (x < -700)
		return 0;
	if (x > 700)
		x = 700;
	n = (int)(x / 0.6931471805599453 + (x < 0 ? -0.5 : 0.5));
	r = x - n * 0.6931471805599453;	/* |r| <= ln2 / 2 */
	for (k = 1; k < 20; k++) {
		t *= r / k;
		sum += t;
	}
	v.u = (uint64_t)(n + 1023) << 52;
	return sum * v.d;
}

static double m_pow(double b, double e)	/* b > 0 */
{
	return m_exp(e * m_log(b));
}

/* ---- randomness, values, the key permutation ---- */

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rnd(uint64_t *s)	/* splitmix64 */
{
	*s += 0x9e3779b97f4a7c15ull;
	return mix64(*s);
}

static double rnd01(uint64_t *s)
{
	return (rnd(s) >> 11) * (1.0 / 9007199254740992.0);
}

static void gen_value(uint8_t *out, int n, uint32_t key, uint32_t ver)
{
	uint64_t s = mix64(((uint64_t)key << 32 | ver) ^ 0x6877616765ull), z;
	int i;

	for (i = 0; i + 8 <= n; i += 8) {
		z = rnd(&s);
		memcpy(out + i, &z, 8);
	}
	if (i < n) {
		z = rnd(&s);
		memcpy(out + i, &z, n - i);
	}
}

static int fbits;	/* half the permutation's width */

static uint32_t feistel(uint32_t x)
{
	uint32_t mask = (1u << fbits) - 1, l = x >> fbits, r = x & mask, t;
	int round;

	for (round = 0; round < 4; round++) {
		t = l ^ ((uint32_t)mix64(r + 0x100000001ull * (round + 1)) & mask);
		l = r;
		r = t;
	}
	return l << fbits | r;
}

/* key_of(): the key id of a rank, a bijection of 0..keys-1 */
static uint32_t key_of(uint32_t rank)
{
	uint32_t x = rank;

	do
		x = feistel(x);
	while (x >= opt.keys);
	return x;
}

/* Gray et al.'s Zipfian generator over 0..n-1 */
static struct { double zetan, alpha, eta, half_pow; uint32_t n; } zipf;

static void zipf_init(uint32_t n, double theta)
{
	double zeta2 = 1 + m_pow(0.5, theta);
	uint32_t i;

	zipf.n = n;
	zipf.zetan = 0;
	for (i = 1; i <= n; i++)
		zipf.zetan += theta ? m_exp(-theta * m_log(i)) : 1;
	zipf.alpha = 1 / (1 - theta);
	zipf.half_pow = m_pow(0.5, theta);
	zipf.eta = n > 2 ? (1 - m_pow(2.0 / n, 1 - theta)) / (1 - zeta2 / zipf.zetan) : 1;
}

static uint32_t zipf_next(uint64_t *s)
{
	double u = rnd01(s), uz = u * zipf.zetan, r;

	if (zipf.n < 2 || uz < 1)
		return 0;
	if (uz < 1 + zipf.half_pow)
		return 1;
	r = zipf.n * m_pow(zipf.eta * u - zipf.eta + 1, zipf.alpha);
	return r >= zipf.n ? zipf.n - 1 : (uint32_t)r;
}

/* ---- latency histogram ---- */

static int hbucket(uint64_t ns)
{
	int e;

	if (ns < 16)
		return (int)ns;
	e = 63 - __builtin_clzll(ns);	/* >= 4 */
	e = (e - 3) * 16 + (int)((ns >> (e - 4)) & 15);
	return e < HBUCKETS ? e : HBUCKETS - 1;
}

static double hvalue(int b)	/* the middle of bucket b, in ns */
{
	int e;

	if (b < 16)
		return b;
	e = b / 16 + 3;
	return (double)((16ull + b % 16) << (e - 4)) + (double)(1ull << (e - 4)) / 2;
}

static double percentile(const uint64_t *h, uint64_t n, double p)
{
	uint64_t want = (uint64_t)(p * n + 0.999999), sum = 0;
	int b;

	if (!n)
		return 0;
	for (b = 0; b < HBUCKETS; b++) {
		sum += h[b];
		if (sum >= want)
			return hvalue(b);
	}
	return hvalue(HBUCKETS - 1);
}

/* ---- one connection ---- */

struct thread {
	pthread_t tid;
	int id, fd, broken;
	uint64_t rng;
	char in[65536];
	size_t pos, len;
	char *req;	/* request buffer: command line + value + CRLF */
	uint8_t *want, *got;
	uint64_t gets, sets, misses, errors;
	uint64_t hist[HBUCKETS];
};

static void error_line(struct thread *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void error_line(struct thread *t, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n = atomic_fetch_add(&error_lines, 1);

	t->errors++;
	if (n >= MAX_ERROR_LINES) {
		if (n == MAX_ERROR_LINES)
			fprintf(stderr, "# " PROG ": more errors, not shown\n");
		return;
	}
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "# " PROG ": thread %d: %s\n", t->id, line);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int conn_open(struct thread *t)
{
	struct timeval tv = { .tv_sec = RECV_TIMEOUT_S };
	struct sockaddr_in sa;
	int one = 1;

	t->pos = t->len = 0;
	t->fd = socket(AF_INET, SOCK_STREAM, 0);
	if (t->fd < 0) {
		error_line(t, "socket: %s", strerror(errno));
		return -1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(opt.port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(t->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		error_line(t, "connect 127.0.0.1:%d: %s", opt.port, strerror(errno));
		close(t->fd);
		t->fd = -1;
		return -1;
	}
	setsockopt(t->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(t->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(t->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return 0;
}

static void conn_close(struct thread *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}

/* broken(): the stream is out of step or gone; this thread's phase ends */
static int broken(struct thread *t, const char *what, const char *detail)
{
	error_line(t, "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
	t->broken = 1;
	return -1;
}

static int send_all(struct thread *t, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(t->fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return broken(t, "send", w < 0 ? strerror(errno) : "nothing sent");
		p += w;
		n -= w;
	}
	return 0;
}

static int fill(struct thread *t)
{
	ssize_t r;

	if (t->pos == t->len)
		t->pos = t->len = 0;
	if (t->len == sizeof(t->in)) {
		memmove(t->in, t->in + t->pos, t->len - t->pos);
		t->len -= t->pos;
		t->pos = 0;
	}
	do
		r = recv(t->fd, t->in + t->len, sizeof(t->in) - t->len, 0);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return broken(t, "recv", r < 0 ? strerror(errno) : "memcached closed the connection");
	t->len += r;
	return 0;
}

/* read_line(): the next line without its CRLF, NUL-terminated, or NULL */
static char *read_line(struct thread *t)
{
	for (;;) {
		char *nl = memchr(t->in + t->pos, '\n', t->len - t->pos);

		if (nl) {
			char *line = t->in + t->pos;

			t->pos = nl + 1 - t->in;
			*nl = '\0';
			if (nl > line && nl[-1] == '\r')
				nl[-1] = '\0';
			return line;
		}
		if (t->len - t->pos > 2048) {
			broken(t, "protocol", "answer line too long");
			return NULL;
		}
		if (t->pos) {	/* keep the partial line at the start */
			memmove(t->in, t->in + t->pos, t->len - t->pos);
			t->len -= t->pos;
			t->pos = 0;
		}
		if (fill(t))
			return NULL;
	}
}

static int read_bytes(struct thread *t, uint8_t *dst, size_t n)
{
	while (n) {
		size_t k = t->len - t->pos;

		if (!k) {
			if (fill(t))
				return -1;
			continue;
		}
		if (k > n)
			k = n;
		memcpy(dst, t->in + t->pos, k);
		t->pos += k;
		dst += k;
		n -= k;
	}
	return 0;
}

/* set_request(): a set of key to version v at p; its length */
static int set_request(char *p, uint32_t key, uint32_t v)
{
	int n = sprintf(p, "set k%u %u 0 %d\r\n", key, v, opt.vsize);

	gen_value((uint8_t *)p + n, opt.vsize, key, v);
	memcpy(p + n + opt.vsize, "\r\n", 2);
	return n + opt.vsize + 2;
}

/* set_answer(): read the answer to a set of key to version v */
static int set_answer(struct thread *t, uint32_t key, uint32_t v, uint64_t t0)
{
	char *line = read_line(t);

	if (!line)
		return -1;	/* started stays ahead: either version may be there */
	t->hist[hbucket(now_ns() - t0)]++;
	t->sets++;
	if (strcmp(line, "STORED")) {
		error_line(t, "set k%u version %u: answer \"%.80s\"", key, v, line);
		return -1;	/* likewise */
	}
	atomic_store(&completed[key], v);
	return 0;
}

/*
 * do_set(): set key to the next version. 1 when it was set (STORED), 0
 * when another thread's set of that key is in flight (nothing sent), -1 on
 * an error.
 */
static int do_set(struct thread *t, uint32_t key)
{
	uint32_t c = atomic_load(&completed[key]), v = c + 1;
	uint64_t t0;
	int n;

	if (!atomic_compare_exchange_strong(&started[key], &c, v))
		return 0;
	n = set_request(t->req, key, v);
	t0 = now_ns();
	if (send_all(t, t->req, n) || set_answer(t, key, v, t0))
		return -1;
	return 1;
}

/* do_get(): get key and verify it; 0 when it verified, -1 otherwise */
static int do_get(struct thread *t, uint32_t key)
{
	uint32_t lo = atomic_load(&completed[key]), hi, flags, bytes;
	char name[32], kname[256], *line;
	uint64_t t0;
	size_t i;
	int n;

	n = sprintf(t->req, "get k%u\r\n", key);
	t0 = now_ns();
	if (send_all(t, t->req, n) || !(line = read_line(t)))
		return -1;
	if (!strcmp(line, "END")) {
		t->hist[hbucket(now_ns() - t0)]++;
		t->gets++;
		t->misses++;
		if (atomic_fetch_add(&miss_lines, 1) < MAX_ERROR_LINES)
			fprintf(stderr, "# " PROG ": thread %d: miss on k%u\n", t->id, key);
		return -1;
	}
	if (sscanf(line, "VALUE %255s %u %u", kname, &flags, &bytes) != 3)
		return broken(t, "get answer", line);
	snprintf(name, sizeof(name), "k%u", key);
	if (bytes > (uint32_t)opt.vsize + 64)	/* can't be ours: resync is hopeless */
		return broken(t, "get answer", line);
	if (read_bytes(t, t->got, bytes + 2) || !(line = read_line(t)))
		return -1;
	if (strcmp(line, "END"))
		return broken(t, "get: no END after the value", line);
	t->hist[hbucket(now_ns() - t0)]++;
	t->gets++;
	hi = atomic_load(&started[key]);
	if (strcmp(kname, name)) {
		error_line(t, "get %s answered with key %s", name, kname);
		return -1;
	}
	if (bytes != (uint32_t)opt.vsize || memcmp(t->got + bytes, "\r\n", 2)) {
		error_line(t, "get %s: %u bytes, expected %d", name, bytes, opt.vsize);
		return -1;
	}
	if (flags == 0 || (lo && (flags < lo || flags > hi))) {
		error_line(t, "get %s: version %u, expected %u..%u", name, flags, lo, hi);
		return -1;
	}
	gen_value(t->want, opt.vsize, key, flags);
	if (memcmp(t->want, t->got, opt.vsize)) {
		for (i = 0; t->want[i] == t->got[i]; i++)
			;
		error_line(t, "get %s version %u: value differs from byte %zu on", name, flags, i);
		return -1;
	}
	return 0;
}

/* ---- phases ---- */

static pthread_barrier_t barrier;
static double phase_secs;	/* the run phase's length, 0 in the load phase */

/*
 * The load pipelines its sets, up to LOAD_BATCH (and LOAD_BATCH_BYTES) per
 * write, then reads their answers: under TCG one request per round trip
 * makes the load take most of a short test. A set's latency in the load is
 * from the write of its batch to its answer.
 */
#define LOAD_BATCH 32
#define LOAD_BATCH_BYTES (256 << 10)

static int load_batch(void)
{
	int b = LOAD_BATCH_BYTES / (opt.vsize + 64);

	return b < 1 ? 1 : b > LOAD_BATCH ? LOAD_BATCH : b;
}

static void *load_thread(void *arg)
{
	struct thread *t = arg;
	uint32_t k = t->id, keys[LOAD_BATCH], vers[LOAD_BATCH];
	int batch = load_batch(), n, b;
	size_t len;
	uint64_t t0;

	if (conn_open(t))
		t->broken = 1;
	pthread_barrier_wait(&barrier);
	while (!t->broken && k < opt.keys) {
		for (n = 0, len = 0; n < batch && k < opt.keys; k += opt.threads) {
			uint32_t c = atomic_load(&completed[k]);

			/* the load's threads own disjoint keys: the claim can't fail */
			if (!atomic_compare_exchange_strong(&started[k], &c, c + 1)) {
				error_line(t, "load: k%u has a set in flight", k);
				continue;
			}
			keys[n] = k;
			vers[n] = c + 1;
			len += set_request(t->req + len, k, c + 1);
			n++;
		}
		t0 = now_ns();
		if (send_all(t, t->req, len))
			break;
		for (b = 0; b < n && !t->broken; b++)
			set_answer(t, keys[b], vers[b], t0);
	}
	conn_close(t);
	return NULL;
}

static void *run_thread(void *arg)
{
	struct thread *t = arg;
	double deadline;
	int tries;

	if (conn_open(t))
		t->broken = 1;
	pthread_barrier_wait(&barrier);
	deadline = now() + phase_secs;
	while (!t->broken && now() < deadline) {
		uint32_t key = key_of(zipf_next(&t->rng));

		if ((int)(rnd(&t->rng) % 100) < opt.wpct) {
			/* another thread's set of this key in flight: draw again */
			for (tries = 0; tries < 8; tries++) {
				if (do_set(t, key))
					break;
				key = key_of(zipf_next(&t->rng));
			}
			if (tries < 8)
				continue;
		}
		do_get(t, key);
	}
	conn_close(t);
	return NULL;
}

struct totals {
	uint64_t gets, sets, misses, errors, hist[HBUCKETS];
	double secs;
};

static void phase(struct thread *th, void *(*fn)(void *), struct totals *s)
{
	double t0;
	int i, b;

	memset(s, 0, sizeof(*s));
	pthread_barrier_init(&barrier, NULL, opt.threads + 1);
	for (i = 0; i < opt.threads; i++) {
		struct thread *t = &th[i];

		t->gets = t->sets = t->misses = t->errors = 0;
		t->broken = 0;
		memset(t->hist, 0, sizeof(t->hist));
		if (pthread_create(&t->tid, NULL, fn, t)) {
			fprintf(stderr, PROG ": cannot create a thread\n");
			exit(1);
		}
	}
	pthread_barrier_wait(&barrier);
	t0 = now();
	for (i = 0; i < opt.threads; i++)
		pthread_join(th[i].tid, NULL);
	s->secs = now() - t0;
	pthread_barrier_destroy(&barrier);
	for (i = 0; i < opt.threads; i++) {
		s->gets += th[i].gets;
		s->sets += th[i].sets;
		s->misses += th[i].misses;
		s->errors += th[i].errors;
		for (b = 0; b < HBUCKETS; b++)
			s->hist[b] += th[i].hist[b];
	}
}

/* ---- the state file ---- */

#define STATE_MAGIC "hwage-mcload-state 1"

static void state_read(void)
{
	char head[128], want[128];
	FILE *f = fopen(opt.state, "rb");
	uint32_t *v, k;

	if (!f) {
		if (errno == ENOENT)
			return;
		fprintf(stderr, PROG ": -f %s: %s\n", opt.state, strerror(errno));
		exit(2);
	}
	snprintf(want, sizeof(want), STATE_MAGIC " keys=%u bytes=%d\n", opt.keys, opt.vsize);
	v = malloc(sizeof(*v) * opt.keys);
	if (!v || !fgets(head, sizeof(head), f) || strcmp(head, want) ||
	    fread(v, sizeof(*v), opt.keys, f) != opt.keys) {
		fprintf(stderr, PROG ": -f %s: not a state file for %u keys of %d bytes\n",
			opt.state, opt.keys, opt.vsize);
		exit(2);
	}
	fclose(f);
	for (k = 0; k < opt.keys; k++) {
		atomic_store(&started[k], v[k]);
		atomic_store(&completed[k], v[k]);
	}
	free(v);
}

static void state_write(void)
{
	char tmp[4200];
	uint32_t *v = malloc(sizeof(*v) * opt.keys), k;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", opt.state);
	f = fopen(tmp, "wb");
	if (!v || !f) {
		fprintf(stderr, "# " PROG ": cannot write %s: %s\n", tmp, strerror(errno));
		return;
	}
	/* a set without an answer leaves its key unknown (0) */
	for (k = 0; k < opt.keys; k++) {
		uint32_t c = atomic_load(&completed[k]);

		v[k] = atomic_load(&started[k]) == c ? c : 0;
	}
	fprintf(f, STATE_MAGIC " keys=%u bytes=%d\n", opt.keys, opt.vsize);
	if (fwrite(v, sizeof(*v), opt.keys, f) != opt.keys || fclose(f) ||
	    rename(tmp, opt.state))
		fprintf(stderr, "# " PROG ": cannot write %s: %s\n", opt.state, strerror(errno));
	free(v);
}

/* ---- options ---- */

static void usage(void)
{
	fprintf(stderr, "usage: " PROG " [-p PORT] [-k KEYS] [-v BYTES] [-l] [-s SECONDS] "
		"[-z THETA] [-w PCT] [-t THREADS] [-f STATEFILE]\n");
	exit(2);
}

static void bad(int o, const char *arg, const char *why)
{
	fprintf(stderr, PROG ": -%c %s: %s\n", o, arg, why);
	usage();
}

static long long int_arg(int o, const char *arg, long long min, long long max)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end)
		bad(o, arg, "not an integer");
	if (v < min || v > max) {
		char why[96];

		snprintf(why, sizeof(why), "out of range %lld..%lld", min, max);
		bad(o, arg, why);
	}
	return v;
}

static double real_arg(int o, const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || v != v)
		bad(o, arg, "not a number");
	return v;
}

static void options(int argc, char **argv)
{
	int o;

	opterr = 0;
	while ((o = getopt(argc, argv, ":p:k:v:ls:z:w:t:f:")) != -1) {
		switch (o) {
		case 'p':
			opt.port = int_arg(o, optarg, 1, 65535);
			break;
		case 'k':
			opt.keys = int_arg(o, optarg, 1, MAX_KEYS);
			break;
		case 'v':
			opt.vsize = int_arg(o, optarg, 1, MAX_VALUE);
			break;
		case 'l':
			opt.load = 1;
			break;
		case 's':
			opt.secs = real_arg(o, optarg);
			if (!(opt.secs > 0 && opt.secs <= 1e6))
				bad(o, optarg, "seconds must be > 0 and <= 1000000");
			break;
		case 'z':
			opt.theta = real_arg(o, optarg);
			if (!(opt.theta >= 0 && opt.theta < 1))
				bad(o, optarg, "theta must be >= 0 and < 1");
			break;
		case 'w':
			opt.wpct = int_arg(o, optarg, 0, 100);
			break;
		case 't':
			opt.threads = int_arg(o, optarg, 1, MAX_THREADS);
			break;
		case 'f':
			if (!*optarg)
				bad(o, "''", "empty file name");
			opt.state = optarg;
			break;
		case ':':
			fprintf(stderr, PROG ": -%c needs a value\n", optopt);
			usage();
			break;
		default:
			fprintf(stderr, PROG ": unknown option -%c\n", optopt);
			usage();
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		usage();
	}
	if (!opt.load && !opt.secs) {
		fprintf(stderr, PROG ": nothing to do: give -l (load), -s SECONDS (run) or both\n");
		usage();
	}
}

static void report(const char *what, const struct totals *s)
{
	uint64_t ops = s->gets + s->sets;

	printf("%s ops=%llu secs=%.2f ops_per_s=%.0f p50_us=%.0f p99_us=%.0f gets=%llu sets=%llu "
	       "misses=%llu errors=%llu\n", what, (unsigned long long)ops, s->secs,
	       s->secs > 0 ? ops / s->secs : 0.0, percentile(s->hist, ops, 0.50) / 1000,
	       percentile(s->hist, ops, 0.99) / 1000, (unsigned long long)s->gets,
	       (unsigned long long)s->sets, (unsigned long long)s->misses,
	       (unsigned long long)s->errors);
}

int main(int argc, char **argv)
{
	struct totals load = { 0 }, run = { 0 }, *last;
	struct thread *th;
	uint64_t seed;
	int i;

	options(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	started = calloc(opt.keys, sizeof(*started));
	completed = calloc(opt.keys, sizeof(*completed));
	th = calloc(opt.threads, sizeof(*th));
	if (!started || !completed || !th) {
		fprintf(stderr, PROG ": out of memory for %u keys\n", opt.keys);
		return 1;
	}
	for (i = 0; i < opt.threads; i++) {
		th[i].id = i;
		th[i].fd = -1;
		th[i].req = malloc((size_t)(opt.vsize + 64) * load_batch());
		th[i].want = malloc(opt.vsize);
		th[i].got = malloc(opt.vsize + 64 + 2);
		if (!th[i].req || !th[i].want || !th[i].got) {
			fprintf(stderr, PROG ": out of memory for the buffers\n");
			return 1;
		}
	}
	if (opt.state)
		state_read();
	fbits = 1;
	while ((1ull << (2 * fbits)) < opt.keys)
		fbits++;
	seed = (uint64_t)now_ns() ^ ((uint64_t)getpid() << 32);

	if (opt.load) {
		phase(th, load_thread, &load);
		printf("# " PROG ": load: %u keys of %d bytes, %d threads\n", opt.keys, opt.vsize,
		       opt.threads);
		report("# " PROG ": load:", &load);
		if (load.sets != opt.keys && !load.errors)
			load.errors++;
	}
	last = &load;
	if (opt.secs && !load.errors) {
		double t0 = now();

		zipf_init(opt.keys, opt.theta);
		printf("# " PROG ": run: %.2f s, %u keys of %d bytes, theta %.3f, %d%% sets, "
		       "%d threads (Zipfian set-up %.2f s)\n", opt.secs, opt.keys, opt.vsize,
		       opt.theta, opt.wpct, opt.threads, now() - t0);
		for (i = 0; i < opt.threads; i++)
			th[i].rng = mix64(seed + i);
		phase_secs = opt.secs;
		phase(th, run_thread, &run);
		last = &run;
	} else if (opt.secs) {
		printf("# " PROG ": the load failed, no run phase\n");
	}
	if (opt.state)
		state_write();
	report("result", last);
	return last->errors || last->misses ? 1 : 0;
}
