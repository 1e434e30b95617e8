/*
 * Copyright (C) 2025 The hwage authors
 *
 * hca - an emulated Hot-Cold Affinity (HCA) page-access counter engine.
 *
 * Counts guest loads and stores per guest-physical page into a table in a
 * shared file, with the count/prev_count/age semantics of the POWER10 HCA
 * counters used by the "arch-specific page aging" RFC.  QEMU exposes the same
 * file to the guest as the BAR of an ivshmem-plain device, so a guest driver
 * can read the counters as if they came from hardware.  The layout of the
 * table is the kernel series' include/uapi/misc/hca_emu.h, the driver's
 * own header (see hca-table.h).
 *
 *   -object memory-backend-file,id=hca,share=on,mem-path=/dev/shm/t,size=S
 *   -device ivshmem-plain,memdev=hca
 *   -plugin libhca.so,table=/dev/shm/t,ram=1G[,page=4096][,sample=1]
 *           [,decay=100000000][,decay_clock=insns][,decay_mode=move]
 *           [,ifetch=off][,truth=PATH]
 *           [,lines=on][,cache=SIZE][,cache_ways=8][,format=plain]
 *           [,serial=off] -d plugin
 *
 * S is printed by "hca-size 1G 4096" (see hca_table_size()).
 *
 * Written for QEMU 10.0's plugin API (version 4).  What it sees, and what it
 * does not:
 *  - qemu_plugin_hwaddr_phys_addr() is the guest-physical address, read
 *    from the vCPU's TLB entry: entry N counts page N of guest-physical
 *    memory, whatever the memory backends and their order.  Accesses at or
 *    beyond ram= are dropped, and so are the ivshmem BAR holding this very
 *    table and ROMs, as long as they sit above ram= (the host test
 *    emulator/tests/truth.sh checks this for the BAR).
 *  - An x86 guest with more RAM than fits below its PCI hole (3 GiB on
 *    -M pc, 2 GiB on q35) has the rest above 4 GiB: those pages lie beyond
 *    ram= and are not counted.
 *  - Instruction fetches have no physical address in the API, so
 *    ifetch=on is refused rather than approximated.
 *  - Only CPU accesses are seen; device DMA is not.
 *  - When QEMU runs the vCPUs one at a time in one host thread (-icount,
 *    or -accel tcg,thread=single), QEMU 10.0 translates a block once for
 *    all vCPUs with the translating vCPU's index as a constant, so the
 *    vCPU index a callback or an inline operation gets is not the running
 *    vCPU's (and was seen to be 64 with 2 vCPUs on pseries).  serial=on is
 *    for that mode: one state for all vCPUs, no per-vCPU scoreboard, the
 *    clock advanced by a plain callback.  The plugin checks the mode
 *    against the threads its vCPUs start on and stops QEMU when it is
 *    wrong.
 *
 * License: GNU GPL, version 2 or later.
 *   See the COPYING file in the top-level directory.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <qemu-plugin.h>

#include "hca-table.h"
#include "parse-size.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/*
 * Configuration.  Set once by the option parser in qemu_plugin_install()
 * and read-only afterwards.
 */
static char *table_path;
static char *truth_path;
static uint64_t ram_size;
static uint64_t page_size = 4096;
static unsigned int page_shift = 12;
static uint64_t nr_pages;
static uint32_t sample = 1;
static uint64_t decay_period = 100000000;	/* decay=: insns or ns */
static bool decay_time;			/* decay_clock=time */
static enum hca_decay_mode decay_mode = HCA_DECAY_MOVE;
static uint64_t cache_size;		/* cache=, bytes; 0: no cache model */
static uint64_t cache_ways = 8;		/* cache_ways= */
static uint64_t cache_sets;		/* cache_size / 64 / cache_ways */
static bool p10;			/* format=p10: POWER10 entries */
/*
 * lines=on (the default): an access that continues a sweep through one
 * cache line, i.e. touches the same 64-byte line as the vCPU's previous
 * access but at another address, is not counted, in the table nor in the
 * ground truth.  A string instruction or a copy loop then counts once per
 * line, as a memory-side counter sees it, instead of once per byte (x86's
 * rep stosb zeroing a page counted 4096, more than most workloads give a
 * hot page), while repeated accesses to one address all count.  lines=off
 * counts every access.
 */
static bool lines = true;
#define HCA_LINE_SHIFT 6

/*
 * The table.  The header and entries live in the shared file, mapped
 * MAP_SHARED, so that the guest sees every update through the ivshmem BAR
 * and its control writes are seen here.  All accesses to shared fields are
 * atomic: vCPU threads count concurrently, one of them applies the decays,
 * and the guest writes the control area and clears entries.
 */
static struct hca_table_header *hdr;
static struct hca_entry *entries;	/* format=plain */
static uint64_t *p10_words;		/* format=p10: the same entries */
static uint64_t table_size;

/*
 * format=p10: a count field holds m * 4^e, so that fewer than 4^e accesses
 * added to it would not change it.  The accesses below the field's
 * precision wait in p10_rest[pfn] until they make a whole step, as the
 * engine's on-chip cache holds counts until it writes an entry back; they
 * are dropped when the field's exponent falls (a decay or a guest clear),
 * so that neither the page's next period nor its next owner inherits them.
 * An entry's count thus reads the accesses of its period floored to the
 * field's precision.  p10_rest[pfn] is the waiting accesses in its low
 * P10_REST_EXP_SHIFT bits and the exponent they waited at above them;
 * private to the plugin, changed atomically.
 */
#define P10_REST_EXP_SHIFT	58
#define P10_REST_MASK		((1ULL << P10_REST_EXP_SHIFT) - 1)
static uint64_t *p10_rest;
static uint64_t p10_count_max;

/*
 * Ground truth (truth=PATH): exact 64-bit access counts per page since the
 * start of the run, private to the plugin and independent of sample=,
 * decays, @enabled and guest clears.  Each vCPU counts into its own array
 * (no locked instruction per access); a dump sums the arrays.  Written to
 * PATH at exit and whenever the guest increments @truth_req; the dump that
 * answers request N is also kept as PATH.N, so that the host can subtract
 * two snapshots the guest asked for and get the accesses between them.
 */
static bool truth;
static pthread_mutex_t truth_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t truth_served;

/*
 * The clock.  Decays are clocked on guest instructions, so that decay
 * periods do not depend on the speed or load of the host: each translated
 * block adds its length to its vCPU's count in a scoreboard, by an inline
 * operation (no call, and exact: each vCPU has its own count), and a
 * conditional callback on the same block flushes the count into the global
 * clock once it reaches clock_chunk; a vCPU going idle flushes too.  A
 * flush that finds the clock past next_decay applies the decays that are
 * due, and a flush also checks whether the guest asked for a ground-truth
 * dump.  With decay_clock=time the decays are not on this clock but on a
 * thread of their own (see decay_thread_fn()); the flushes still run.
 *
 * Per-vCPU state also carries the sampling countdown: with sample=N, the
 * next access counted is drawn uniformly in [1, 2N-1] accesses ahead (mean
 * N) from a per-vCPU xorshift generator, so strided loops cannot alias with
 * a fixed period; each counted access adds N to the entry.
 *
 * And it carries a few pending counts: consecutive counted accesses to the
 * same page add up in a per-vCPU slot, and reach the table with one atomic
 * update when another page takes the slot, at each clock flush (so within
 * clock_chunk instructions of the vCPU), when the vCPU goes idle, and at
 * exit.  This saves a locked instruction per access; the price is that an
 * entry the guest reads or clears may lag by those pending counts.
 */
#define HCA_PENDING		4	/* slots, direct-mapped by pfn */

struct hca_pending {
	uint64_t pfn;
	uint64_t n;
};

/*
 * cache=SIZE: memory-side counting.  Each vCPU (serial=on: all of them
 * together) has a modelled set-associative cache of SIZE bytes in 64-byte
 * lines (HCA_LINE_SHIFT), cache_ways lines a set, least recently used out,
 * indexed and tagged by guest-physical line; an access counts (sampled as
 * usual) only when it misses, as a counter at the memory sees the line
 * fills and not the hits.  Loads and stores alike allocate a line; write-
 * backs of dirty lines are not counted, nor is one vCPU's store seen by
 * another's cache.  The ground truth (truth=) still counts every access.
 */
struct hca_cache_line {
	uint64_t tag;		/* line address + 1; 0: empty */
	uint64_t used;		/* the vCPU's cache clock at the last use */
};

struct hca_vcpu {
	uint64_t rng;		/* xorshift64 state, never 0 */
	uint32_t countdown;	/* accesses until the next counted one */
	uint64_t last_vaddr[2];	/* lines=on: the last two accesses */
	uint64_t *truth;	/* exact counts of this vCPU, or NULL */
	struct hca_pending pending[HCA_PENDING];
	struct hca_cache_line *cache;	/* cache=: cache_sets * cache_ways */
	uint64_t cache_clock;
} __attribute__((aligned(64)));

static struct hca_vcpu *vcpus;
static unsigned int nr_vcpus;
static struct qemu_plugin_scoreboard *clock_sb;
static qemu_plugin_u64 vcpu_insns;	/* per vCPU, not yet in clock_insns */
static uint64_t clock_insns;
static uint64_t clock_chunk;
static uint64_t next_decay;
static uint64_t epoch;
static pthread_mutex_t decay_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * serial=on: the vCPUs run one at a time on one host thread, so they share
 * vcpus[0] and count their instructions into serial_insns with no atomics.
 */
static bool serial;
static uint64_t serial_insns;	/* not yet in clock_insns */

/* Guest instructions so far, flushed or not. */
static uint64_t clock_now(void)
{
	if (serial)
		return __atomic_load_n(&clock_insns, __ATOMIC_RELAXED) +
		       serial_insns;
	return __atomic_load_n(&clock_insns, __ATOMIC_RELAXED) +
	       qemu_plugin_u64_sum(vcpu_insns);
}

/*
 * Counting.  @count and @prev_count of an entry form one naturally aligned
 * 64-bit word (count in the low half: the table is little-endian), and
 * every update of either is a compare-and-swap of that word: an access
 * adds to count, saturating at HCA_COUNT_MAX, and no update is lost under
 * multi-threaded TCG; a decay moves count into prev_count in one step, so
 * that a guest reading the word with one load never sees a count moved
 * out and not yet moved in, and a guest clearing it with one store is
 * either before the decay or after it, never half of each.
 */
static inline uint64_t *entry_pair(struct hca_entry *e)
{
	return (uint64_t *)&e->count;
}

static inline void entry_count_add(struct hca_entry *e, uint32_t n)
{
	uint64_t *pair = entry_pair(e);
	uint64_t old = __atomic_load_n(pair, __ATOMIC_RELAXED), new;
	uint32_t c;

	do {
		c = (uint32_t)old;
		if (c == HCA_COUNT_MAX)
			return;
		c = c > HCA_COUNT_MAX - n ? HCA_COUNT_MAX : c + n;
		new = (old & ~0xffffffffULL) | c;
	} while (!__atomic_compare_exchange_n(pair, &old, new, true,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
}

/* The exponent of a POWER10 entry's count field. */
static inline uint64_t p10_count_exp(uint64_t word)
{
	return HCA_P10_FIELD(word, HCA_P10_COUNT) >> HCA_P10_COUNT_MANT_BITS;
}

/*
 * format=p10: add @n accesses to the count of entry @pfn, with those that
 * waited in p10_rest[pfn] (see there), in one compare-and-swap of the
 * entry's word; what the new field cannot hold waits again.
 */
static void p10_count_add(uint64_t pfn, uint64_t n)
{
	uint64_t *w = &p10_words[pfn];
	uint64_t old = __atomic_load_n(w, __ATOMIC_RELAXED), new, want, left;
	uint64_t rest = __atomic_load_n(&p10_rest[pfn], __ATOMIC_RELAXED);
	uint64_t cur, merged, e, fe, tag;

	/* most entries have nothing waiting: no atomic write for them */
	if (rest)
		rest = __atomic_exchange_n(&p10_rest[pfn], 0, __ATOMIC_RELAXED);

	do {
		want = hca_p10_count(old) + n;
		/* waited at an exponent no higher than the field's: still ours */
		if (rest >> P10_REST_EXP_SHIFT <= p10_count_exp(old))
			want += rest & P10_REST_MASK;
		if (want > p10_count_max)
			want = p10_count_max;
		new = hca_p10_set_count(old, want);
	} while (!__atomic_compare_exchange_n(w, &old, new, true,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	left = want - hca_p10_count(new);
	if (!left)
		return;
	e = p10_count_exp(new);
	cur = __atomic_load_n(&p10_rest[pfn], __ATOMIC_RELAXED);
	do {
		/*
		 * Ours and another vCPU's waiting accesses add up, as long as
		 * the field has not fallen below the exponent they waited at
		 * (another vCPU's may carry a higher one than ours: its
		 * update came after ours).
		 */
		fe = p10_count_exp(__atomic_load_n(w, __ATOMIC_RELAXED));
		merged = 0;
		tag = 0;
		if (e <= fe) {
			merged = left;
			tag = e;
		}
		if (cur && cur >> P10_REST_EXP_SHIFT <= fe) {
			merged += cur & P10_REST_MASK;
			if (cur >> P10_REST_EXP_SHIFT > tag)
				tag = cur >> P10_REST_EXP_SHIFT;
		}
		if (merged)
			merged |= tag << P10_REST_EXP_SHIFT;
	} while (!__atomic_compare_exchange_n(&p10_rest[pfn], &cur, merged, true,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
}

/* Add @n counted accesses to the entry of @pfn, in the table's layout. */
static inline void table_count_add(uint64_t pfn, uint64_t n)
{
	if (p10)
		p10_count_add(pfn, n);
	else
		entry_count_add(&entries[pfn], n > HCA_COUNT_MAX ? HCA_COUNT_MAX : n);
}

static void pending_flush(struct hca_vcpu *v)
{
	unsigned int i;

	for (i = 0; i < HCA_PENDING; i++) {
		struct hca_pending *p = &v->pending[i];

		if (p->n)
			table_count_add(p->pfn, p->n);
		p->n = 0;
	}
}

static inline void pending_add(struct hca_vcpu *v, uint64_t pfn)
{
	struct hca_pending *p = &v->pending[pfn % HCA_PENDING];

	if (p->pfn != pfn) {
		if (p->n)
			table_count_add(p->pfn, p->n);
		p->pfn = pfn;
		p->n = 0;
	}
	p->n += sample;
}

/* Accesses until the next counted one: uniform in [1, 2 * sample - 1]. */
static inline uint32_t sample_draw(struct hca_vcpu *v)
{
	uint64_t x = v->rng;

	if (sample == 1)
		return 1;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	v->rng = x;
	return 1 + (uint32_t)(((x >> 32) * (2ULL * sample - 1)) >> 32);
}

/*
 * Decay.  Moves count into prev_count (decay_mode=move) or halves their sum
 * into it (decay_mode=shift; see hca_decay_pair()) and ages every entry,
 * then publishes the new epoch.  The count pair is replaced with a
 * compare-and-swap (see entry_count_add()), so that counts added by running vCPUs land either in
 * this period or in the next one, and a guest clear is never undone.  The
 * age is a word of its own, incremented after the pair: a reader that
 * loads the age before the pair may see a decay's new counts with the age
 * from before it (the entry looks younger than it is), never the reverse.
 */
static void table_decay(void)
{
	uint64_t i;

	/*
	 * format=p10: the counts, the age and the generation bit are one
	 * word, replaced in one compare-and-swap (hca_p10_decay()); a guest
	 * clear or carry meanwhile is decayed, never undone.
	 */
	for (i = 0; p10 && i < nr_pages; i++) {
		uint64_t *w = &p10_words[i];
		uint64_t old = __atomic_load_n(w, __ATOMIC_RELAXED);

		while (!__atomic_compare_exchange_n(w, &old, hca_p10_decay(old, decay_mode),
						    true, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
			;
	}
	for (i = 0; !p10 && i < nr_pages; i++) {
		struct hca_entry *e = &entries[i];
		uint64_t *pair = entry_pair(e);
		uint64_t old = __atomic_load_n(pair, __ATOMIC_RELAXED);
		uint32_t a;

		while (old && !__atomic_compare_exchange_n(pair, &old,
							   hca_decay_pair(old, decay_mode),
							   true, __ATOMIC_RELAXED,
							   __ATOMIC_RELAXED))
			;
		/*
		 * A compare-and-swap, so that an age the guest stores
		 * meanwhile (a clear, or counts carried to a moved page)
		 * wins over this decay's increment.
		 */
		a = __atomic_load_n(&e->age, __ATOMIC_RELAXED);
		if (a < HCA_AGE_MAX)
			__atomic_compare_exchange_n(&e->age, &a, a + 1, false,
						    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	}
	epoch++;
	__atomic_store_n(&hdr->epoch, epoch, __ATOMIC_RELEASE);
}

/* Apply the decays due at clock value @now; one vCPU at a time. */
static void engine_decay(uint64_t now)
{
	uint64_t next;

	if (pthread_mutex_trylock(&decay_lock))
		return;		/* another vCPU is on it */
	next = __atomic_load_n(&next_decay, __ATOMIC_RELAXED);
	while (now >= next) {
		if (__atomic_load_n(&hdr->enabled, __ATOMIC_ACQUIRE))
			table_decay();
		next += decay_period;
	}
	__atomic_store_n(&next_decay, next, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&decay_lock);
}

/*
 * decay_clock=time: a decay every decay_period nanoseconds of guest time,
 * applied by a thread of the plugin's own, so that the counts of an idle
 * guest age too.  QEMU's plugin API does not give the guest's clock (the
 * virtual clock); without -icount that clock is the host's monotonic clock
 * while the VM runs, which is what the thread sleeps on.  Two differences
 * remain: the thread does not stop while the VM is paused (no plugin
 * callback tells), and it starts when the plugin is installed, a little
 * before the guest.  Under -icount the virtual clock follows instructions:
 * decay_clock=insns is then the guest's time, in other units, but for the
 * idle stretches the virtual clock jumps over (-icount sleep=off).
 *
 * The thread holds decay_lock except while it sleeps.  A decay it applies
 * late, on a busy host, is followed at once by the one that fell due
 * meanwhile, as with the instruction clock; if it finds itself more than a
 * period behind after that (QEMU was stopped, or a decay of a large table
 * takes longer than a period), it skips the periods that passed, counted
 * in decays_skipped (printed at exit), rather than decay the table many
 * times in a burst.
 */
static pthread_t decay_thread;
static pthread_cond_t decay_cond;
static bool decay_stop;			/* under decay_lock */
static uint64_t decays_skipped;		/* under decay_lock */
#define DECAY_NS_MIN		1000000	/* 1 ms */
#define NSEC_PER_SEC		1000000000ULL

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void *decay_thread_fn(void *arg)
{
	uint64_t next = monotonic_ns(), now;
	struct timespec ts;
	int err = 0;

	pthread_mutex_lock(&decay_lock);
	while (!decay_stop) {
		next += decay_period;
		ts.tv_sec = next / NSEC_PER_SEC;
		ts.tv_nsec = next % NSEC_PER_SEC;
		/* 0: signalled (to stop) or woken early: wait on */
		while (!decay_stop &&
		       !(err = pthread_cond_timedwait(&decay_cond, &decay_lock, &ts)))
			;
		if (decay_stop)
			break;
		if (err != ETIMEDOUT) {
			fprintf(stderr, "hca: decay_clock=time: the decay thread "
				"stops: %s\n", strerror(err));
			break;
		}
		if (__atomic_load_n(&hdr->enabled, __ATOMIC_ACQUIRE))
			table_decay();
		now = monotonic_ns();
		if (now >= next + decay_period) {
			decays_skipped += (now - next) / decay_period;
			next = now;
		}
	}
	pthread_mutex_unlock(&decay_lock);
	return NULL;
}

static int decay_thread_start(void)
{
	pthread_condattr_t attr;
	int err;

	err = pthread_condattr_init(&attr);
	if (!err) {
		err = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
		if (!err)
			err = pthread_cond_init(&decay_cond, &attr);
		pthread_condattr_destroy(&attr);
	}
	if (!err)
		err = pthread_create(&decay_thread, NULL, decay_thread_fn, NULL);
	if (err)
		fprintf(stderr, "hca: decay_clock=time: cannot start the decay "
			"thread: %s\n", strerror(err));
	return err ? -1 : 0;
}

static void decay_thread_stop(void)
{
	pthread_mutex_lock(&decay_lock);
	decay_stop = true;
	pthread_cond_signal(&decay_cond);
	pthread_mutex_unlock(&decay_lock);
	pthread_join(decay_thread, NULL);
}

/*
 * Ground-truth file: "pfn count" lines for the pages with a nonzero count,
 * in pfn order, after a comment header.  Written to PATH.tmp and renamed so
 * that a reader never sees a partial file; for a guest request (@req not 0)
 * linked as PATH.@req first.  Called under truth_lock.
 */
static int truth_write(uint64_t insns, uint32_t req)
{
	char tmp[PATH_MAX], snap[PATH_MAX];
	static char buf[1 << 16];
	FILE *f;
	uint64_t pfn;
	int err;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", truth_path) >= (int)sizeof(tmp) ||
	    snprintf(snap, sizeof(snap), "%s.%" PRIu32, truth_path, req) >= (int)sizeof(snap))
		return -ENAMETOOLONG;
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	setvbuf(f, buf, _IOFBF, sizeof(buf));
	fprintf(f, "# hwage hca ground truth: exact CPU accesses per page\n");
	fprintf(f, "# ram=%" PRIu64 " page=%" PRIu64 " insns=%" PRIu64
		" epoch=%" PRIu64 " sample=%" PRIu32 " request=%" PRIu32 "\n",
		ram_size, page_size, insns,
		(uint64_t)__atomic_load_n(&hdr->epoch, __ATOMIC_RELAXED), sample,
		req);
	fprintf(f, "# pfn count\n");
	for (pfn = 0; pfn < nr_pages; pfn++) {
		uint64_t c = 0;
		unsigned int i;

		for (i = 0; i < nr_vcpus; i++)
			c += __atomic_load_n(&vcpus[i].truth[pfn],
					     __ATOMIC_RELAXED);
		if (c)
			fprintf(f, "%" PRIu64 " %" PRIu64 "\n", pfn, c);
	}
	err = ferror(f);
	if (fclose(f) || err) {
		unlink(tmp);
		return -EIO;
	}
	if (req) {
		unlink(snap);
		if (link(tmp, snap)) {
			err = -errno;
			unlink(tmp);
			return err;
		}
	}
	if (rename(tmp, truth_path))
		return -errno;
	return 0;
}

static void truth_report_error(int err)
{
	char msg[PATH_MAX + 64];

	snprintf(msg, sizeof(msg), "hca: cannot write %s: %s\n", truth_path,
		 strerror(-err));
	qemu_plugin_outs(msg);
}

/* Answer a guest request (truth_req != last answered), from a vCPU. */
static void truth_request(uint32_t req)
{
	int err;

	if (pthread_mutex_trylock(&truth_lock))
		return;
	if (req != truth_served) {
		err = truth_write(clock_now(), req);
		if (err)
			truth_report_error(err);
		truth_served = req;
		__atomic_store_n(&hdr->truth_done, req, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&truth_lock);
}

/*
 * Add a vCPU's instructions to the clock; run what is due.  Runs on that
 * vCPU's thread, so its scoreboard count does not move meanwhile.
 */
static void clock_run(void)
{
	uint64_t now;
	uint32_t req;

	now = clock_now();
	if (!decay_time && now >= __atomic_load_n(&next_decay, __ATOMIC_RELAXED))
		engine_decay(now);
	if (truth) {
		req = __atomic_load_n(&hdr->truth_req, __ATOMIC_ACQUIRE);
		if (req != __atomic_load_n(&truth_served, __ATOMIC_RELAXED))
			truth_request(req);
	}
}

static void clock_flush(unsigned int cpu_index)
{
	uint64_t n;

	if (serial) {
		pending_flush(&vcpus[0]);
		n = serial_insns;
		serial_insns = 0;
	} else {
		pending_flush(&vcpus[cpu_index]);
		n = qemu_plugin_u64_get(vcpu_insns, cpu_index);
		qemu_plugin_u64_set(vcpu_insns, cpu_index, 0);
	}
	if (n)
		__atomic_add_fetch(&clock_insns, n, __ATOMIC_RELAXED);
	clock_run();
}

/*
 * Callbacks for a vCPU index the plugin did not size for: dropped and
 * counted (printed at exit).  None are expected; they were seen, with index
 * 64, when the vCPUs ran in one thread without serial=on (see the top).
 */
static uint64_t foreign;

static inline bool vcpu_foreign(unsigned int cpu_index)
{
	if (likely(cpu_index < nr_vcpus))
		return false;
	__atomic_add_fetch(&foreign, 1, __ATOMIC_RELAXED);
	return true;
}

/* The state a callback works on: its vCPU's, or the shared one. */
static inline struct hca_vcpu *vcpu_state(unsigned int cpu_index)
{
	if (serial)
		return &vcpus[0];
	if (unlikely(vcpu_foreign(cpu_index)))
		return NULL;
	return &vcpus[cpu_index];
}

/*
 * Execution callbacks.  The block's conditional callback runs the clock;
 * the memory callback runs for every load and store and only resolves the
 * physical address of the accesses it counts, which is what makes sampling
 * cheap.  With truth= every access is resolved.
 */
static void vcpu_tb_clock(unsigned int cpu_index, void *udata)
{
	if (!vcpu_foreign(cpu_index))
		clock_flush(cpu_index);
}

/* serial=on: a plain callback per block, its length in udata. */
static void vcpu_tb_serial(unsigned int cpu_index, void *udata)
{
	serial_insns += (uintptr_t)udata;
	if (serial_insns >= clock_chunk)
		clock_flush(0);
}

static void vcpu_idle(qemu_plugin_id_t id, unsigned int cpu_index)
{
	if (serial || !vcpu_foreign(cpu_index))
		clock_flush(cpu_index);
}

/*
 * cache=: whether guest-physical line @line is in @v's cache; a miss
 * brings it in, in place of the set's least recently used line.
 */
static inline bool cache_hit(struct hca_vcpu *v, uint64_t line)
{
	struct hca_cache_line *set = &v->cache[(line & (cache_sets - 1)) * cache_ways];
	struct hca_cache_line *victim = set;
	uint64_t i;

	v->cache_clock++;
	for (i = 0; i < cache_ways; i++) {
		if (set[i].tag == line + 1) {
			set[i].used = v->cache_clock;
			return true;
		}
		if (set[i].used < victim->used)
			victim = &set[i];
	}
	victim->tag = line + 1;
	victim->used = v->cache_clock;
	return false;
}

/*
 * A counted access, or any access with truth= or cache=: resolve and count
 * it.  With cache=, the callers pass @counted false: only a miss is an
 * access the engine sees, and the sampling countdown runs on misses.
 */
static void __attribute__((noinline))
vcpu_mem_resolve(struct hca_vcpu *v, bool counted, qemu_plugin_meminfo_t info,
		 uint64_t vaddr)
{
	struct qemu_plugin_hwaddr *hw;
	uint64_t addr, pfn;

	hw = qemu_plugin_get_hwaddr(info, vaddr);
	if (!hw || qemu_plugin_hwaddr_is_io(hw))
		goto out;
	addr = qemu_plugin_hwaddr_phys_addr(hw);
	pfn = addr >> page_shift;
	if (pfn >= nr_pages)
		goto out;
	if (truth)
		__atomic_store_n(&v->truth[pfn], v->truth[pfn] + 1,
				 __ATOMIC_RELAXED);
	if (cache_size) {
		if (cache_hit(v, addr >> HCA_LINE_SHIFT))
			return;
		counted = !--v->countdown;
	}
	if (counted && __atomic_load_n(&hdr->enabled, __ATOMIC_RELAXED))
		pending_add(v, pfn);
out:
	if (counted)
		v->countdown = sample_draw(v);
}

static inline bool same_line_elsewhere(uint64_t a, uint64_t b)
{
	return a != b && !((a ^ b) >> HCA_LINE_SHIFT);
}

/*
 * lines=on: whether this access continues a sweep through one line.  The
 * last two accesses are remembered so that a copy, which alternates between
 * a source and a destination line, counts once per line too.
 */
static inline bool line_sweep(struct hca_vcpu *v, uint64_t vaddr)
{
	bool sweep = same_line_elsewhere(vaddr, v->last_vaddr[0]) ||
		     same_line_elsewhere(vaddr, v->last_vaddr[1]);

	v->last_vaddr[1] = v->last_vaddr[0];
	v->last_vaddr[0] = vaddr;
	return lines && sweep;
}

/* Without truth=: most accesses only decrement the countdown. */
static void vcpu_mem(unsigned int cpu_index, qemu_plugin_meminfo_t info,
		     uint64_t vaddr, void *udata)
{
	struct hca_vcpu *v = vcpu_state(cpu_index);

	if (unlikely(!v) || line_sweep(v, vaddr))
		return;
	if (likely(--v->countdown))
		return;
	vcpu_mem_resolve(v, true, info, vaddr);
}

/* cache=: every access is resolved, to look its line up in the cache. */
static void vcpu_mem_cached(unsigned int cpu_index, qemu_plugin_meminfo_t info,
			    uint64_t vaddr, void *udata)
{
	struct hca_vcpu *v = vcpu_state(cpu_index);

	if (unlikely(!v) || line_sweep(v, vaddr))
		return;
	vcpu_mem_resolve(v, false, info, vaddr);
}

static void vcpu_mem_truth(unsigned int cpu_index, qemu_plugin_meminfo_t info,
			   uint64_t vaddr, void *udata)
{
	struct hca_vcpu *v = vcpu_state(cpu_index);

	if (unlikely(!v) || line_sweep(v, vaddr))
		return;
	vcpu_mem_resolve(v, --v->countdown == 0, info, vaddr);
}

/*
 * A vCPU starts: check serial= against the threads QEMU runs the vCPUs on
 * (this callback runs on the vCPU's thread).  A wrong mode would attribute
 * counts and instructions to the wrong vCPU, or race, so QEMU stops.
 */
static void vcpu_init(qemu_plugin_id_t id, unsigned int cpu_index)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static pthread_t first;
	static bool seen;
	bool same;

	pthread_mutex_lock(&lock);
	if (!seen) {
		first = pthread_self();
		seen = true;
		pthread_mutex_unlock(&lock);
		return;
	}
	same = pthread_equal(first, pthread_self());
	pthread_mutex_unlock(&lock);
	if (same && !serial) {
		fprintf(stderr, "hca: the vCPUs run one at a time in one host "
			"thread (-icount or -accel tcg,thread=single): this "
			"needs the option serial=on\n");
		_exit(1);
	}
	if (!same && serial) {
		fprintf(stderr, "hca: serial=on, but the vCPUs run in threads "
			"of their own (multi-threaded TCG): drop serial=on\n");
		_exit(1);
	}
}

/*
 * Translation: per block, an inline add of its length to the vCPU's count
 * and a callback when that count reaches clock_chunk (serial=on: a plain
 * callback instead); per instruction, a memory callback (it only fires for
 * instructions that access memory).
 */
static void vcpu_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	size_t i;

	if (serial) {
		qemu_plugin_register_vcpu_tb_exec_cb(tb, vcpu_tb_serial,
			QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)n);
	} else {
		qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb,
			QEMU_PLUGIN_INLINE_ADD_U64, vcpu_insns, n);
		qemu_plugin_register_vcpu_tb_exec_cond_cb(tb, vcpu_tb_clock,
			QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_COND_GE,
			vcpu_insns, clock_chunk, NULL);
	}
	for (i = 0; i < n; i++)
		qemu_plugin_register_vcpu_mem_cb(qemu_plugin_tb_get_insn(tb, i),
						 cache_size ? vcpu_mem_cached :
						 truth ? vcpu_mem_truth : vcpu_mem,
						 QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, NULL);
}

static void plugin_exit(qemu_plugin_id_t id, void *p)
{
	char msg[256];
	uint64_t insns;
	unsigned int i;
	int err;

	/*
	 * Fold the vCPUs' pending counts in.  They are stopped, except when a
	 * vCPU exits QEMU itself (isa-debug-exit): then the others may still
	 * run, and a count they make meanwhile may be missed or added twice.
	 */
	if (decay_time)
		decay_thread_stop();
	for (i = 0; i < nr_vcpus; i++)
		pending_flush(&vcpus[i]);
	insns = clock_now();
	if (truth) {
		pthread_mutex_lock(&truth_lock);
		err = truth_write(insns, 0);
		pthread_mutex_unlock(&truth_lock);
		if (err)
			truth_report_error(err);
	}
	snprintf(msg, sizeof(msg), "hca: exit: insns=%" PRIu64 " epoch=%"
		 PRIu64 " foreign=%" PRIu64 " decays_skipped=%" PRIu64 "\n", insns,
		 (uint64_t)__atomic_load_n(&hdr->epoch, __ATOMIC_RELAXED),
		 (uint64_t)__atomic_load_n(&foreign, __ATOMIC_RELAXED),
		 decays_skipped);
	qemu_plugin_outs(msg);
}

/*
 * Table setup.  QEMU may have created and mapped the file already (memory
 * backends may be created before plugins are installed) or not: open it
 * with O_CREAT, grow it if it is smaller than needed (never shrink it, QEMU
 * may have it mapped), map it shared and initialise it.  The guest has not
 * run yet, so entries and control start from zero, counting enabled.
 */
static int table_setup(void)
{
	struct stat st;
	int fd;

	uint32_t flags = (decay_mode == HCA_DECAY_SHIFT ? HCA_TABLE_FLAG_DECAY_SHIFT : 0) |
			 (cache_size ? HCA_TABLE_FLAG_MEMORY_SIDE : 0) |
			 (p10 ? HCA_TABLE_FLAG_FORMAT_P10 : 0);

	table_size = hca_table_size(nr_pages, hca_entry_size(flags));
	fd = open(table_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "hca: table=%s: %s\n", table_path,
			strerror(errno));
		return -1;
	}
	if ((uint64_t)st.st_size < table_size) {
		if (st.st_size)
			fprintf(stderr, "hca: table=%s: growing it from %lld "
				"to %" PRIu64 " bytes; a device mapping it "
				"must be given size=%" PRIu64 "\n", table_path,
				(long long)st.st_size, table_size, table_size);
		if (ftruncate(fd, table_size)) {
			fprintf(stderr, "hca: table=%s: %s\n", table_path,
				strerror(errno));
			close(fd);
			return -1;
		}
	}
	hdr = mmap(NULL, table_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (hdr == MAP_FAILED) {
		fprintf(stderr, "hca: table=%s: mmap: %s\n", table_path,
			strerror(errno));
		return -1;
	}
	memset(hdr, 0, table_size);
	hca_header_init(hdr, nr_pages, page_shift, decay_time ? 0 : decay_period,
			decay_time ? decay_period : 0, sample, flags);
	entries = (struct hca_entry *)((char *)hdr + hdr->entries_offset);
	p10_words = (uint64_t *)entries;
	if (p10) {
		p10_count_max = hca_p10_max(HCA_P10_COUNT_MANT_BITS);
		p10_rest = calloc(nr_pages, sizeof(*p10_rest));
		if (!p10_rest) {
			fprintf(stderr, "hca: format=p10: out of memory\n");
			return -1;
		}
	}
	return 0;
}

/*
 * Options, key=value; an unknown key or a bad value is an error naming it.
 * Sizes take an optional K, M, G or T suffix (powers of 1024; see
 * parse-size.h, shared with hca-size).
 *
 *   table=PATH      the shared table file (required); created or grown
 *   ram=SIZE        guest RAM size (required), a multiple of page
 *   page=SIZE       bytes per entry, a power of two, 4096 to 1G (4096)
 *   sample=N        count 1 access in N on average, adding N (1: exact)
 *   decay=N         guest instructions between decays (100000000), or
 *                   nanoseconds of guest time with decay_clock=time (at
 *                   least 1000000)
 *   decay_clock=insns|time  what clocks the decays (insns): guest
 *                   instructions, summed over the vCPUs, which makes runs
 *                   repeatable but stops while the guest idles; or guest
 *                   time, which runs on (see decay_thread_fn())
 *   decay_mode=move|shift  what a decay does to the counts (move):
 *                   move: prev_count = count; shift: prev_count = (prev_count
 *                   + count) / 2; count = 0 in both (hca_decay_pair())
 *   ifetch=off      instruction fetches are not counted (on is refused)
 *   truth=PATH      write exact per-page counts there at exit and on request
 *                   (request N is also kept as PATH.N)
 *   lines=on|off    a sweep through one cache line counts once (on)
 *   cache=SIZE      count only the accesses that miss a modelled cache of
 *                   SIZE bytes per vCPU (0, the default: every access; see
 *                   struct hca_cache_line); a power of two, at least one
 *                   set of cache_ways 64-byte lines, at most 1G
 *   cache_ways=N    lines per set of that cache, 1 to 64 (8)
 *   format=plain|p10  the entries' layout (plain): plain, struct hca_entry
 *                   (32-bit counts, a 32-bit age); p10, the POWER10 engine's
 *                   8-byte entries, counts in a floating form with its loss
 *                   of precision and saturation, a 3-bit age (see
 *                   HCA_TABLE_FLAG_FORMAT_P10 in the table's header)
 */
static bool parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return !errno && !*end;
}

static int bad_value(const char *key, const char *val, const char *want)
{
	fprintf(stderr, "hca: bad value for %s: '%s' (%s)\n", key, val, want);
	return -1;
}

static int parse_option(const char *opt)
{
	const char *eq = strchr(opt, '=');
	const char *val;
	char key[32];
	uint64_t v;
	bool on;

	if (!eq || eq == opt || (size_t)(eq - opt) >= sizeof(key)) {
		fprintf(stderr, "hca: option '%s' is not key=value\n", opt);
		return -1;
	}
	memcpy(key, opt, eq - opt);
	key[eq - opt] = '\0';
	val = eq + 1;

	if (!strcmp(key, "table")) {
		if (!*val)
			return bad_value(key, val, "want a file path");
		free(table_path);
		table_path = strdup(val);	/* argv is freed */
	} else if (!strcmp(key, "truth")) {
		if (!*val)
			return bad_value(key, val, "want a file path");
		free(truth_path);
		truth_path = strdup(val);
	} else if (!strcmp(key, "ram")) {
		if (!parse_size(val, &v) || v > (1ULL << 40))
			return bad_value(key, val, "want a size up to 1T, "
					 "e.g. 1G");
		ram_size = v;
	} else if (!strcmp(key, "page")) {
		if (!parse_size(val, &v) || v < 4096 || v > (1ULL << 30) ||
		    (v & (v - 1)))
			return bad_value(key, val, "want a power of two from "
					 "4096 to 1G");
		page_size = v;
	} else if (!strcmp(key, "sample")) {
		if (!parse_u64(val, &v) || !v || v > (1U << 20))
			return bad_value(key, val, "want N from 1 to 1048576, "
					 "counting 1 access in N");
		sample = v;
	} else if (!strcmp(key, "decay")) {
		if (!parse_u64(val, &v) || !v)
			return bad_value(key, val, "want a number > 0 of guest "
					 "instructions (or of ns with "
					 "decay_clock=time)");
		decay_period = v;
	} else if (!strcmp(key, "decay_clock")) {
		if (!strcmp(val, "insns"))
			decay_time = false;
		else if (!strcmp(val, "time"))
			decay_time = true;
		else
			return bad_value(key, val, "want insns or time");
	} else if (!strcmp(key, "decay_mode")) {
		if (!strcmp(val, "move"))
			decay_mode = HCA_DECAY_MOVE;
		else if (!strcmp(val, "shift"))
			decay_mode = HCA_DECAY_SHIFT;
		else
			return bad_value(key, val, "want move or shift");
	} else if (!strcmp(key, "cache")) {
		if (!parse_size(val, &v) || (v & (v - 1)) || v > (1ULL << 30))
			return bad_value(key, val, "want 0 or a power of two "
					 "up to 1G, e.g. 1M");
		cache_size = v;
	} else if (!strcmp(key, "cache_ways")) {
		if (!parse_u64(val, &v) || !v || v > 64)
			return bad_value(key, val, "want N from 1 to 64");
		cache_ways = v;
	} else if (!strcmp(key, "format")) {
		if (!strcmp(val, "plain"))
			p10 = false;
		else if (!strcmp(val, "p10"))
			p10 = true;
		else
			return bad_value(key, val, "want plain or p10");
	} else if (!strcmp(key, "ifetch")) {
		if (!qemu_plugin_bool_parse(key, val, &on))
			return bad_value(key, val, "want on or off");
		if (on) {
			fprintf(stderr, "hca: ifetch=on is not supported: "
				"QEMU's plugin API gives no physical "
				"address for instruction fetches\n");
			return -1;
		}
	} else if (!strcmp(key, "lines")) {
		if (!qemu_plugin_bool_parse(key, val, &lines))
			return bad_value(key, val, "want on or off");
	} else if (!strcmp(key, "serial")) {
		if (!qemu_plugin_bool_parse(key, val, &serial))
			return bad_value(key, val, "want on or off");
	} else {
		fprintf(stderr, "hca: unknown option '%s'\n", opt);
		return -1;
	}
	return 0;
}

QEMU_PLUGIN_EXPORT
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			int argc, char **argv)
{
	char msg[PATH_MAX + 256];
	unsigned int i;

	for (i = 0; i < (unsigned int)argc; i++)
		if (parse_option(argv[i]))
			return -1;
	if (!table_path) {
		fprintf(stderr, "hca: missing option table=PATH\n");
		return -1;
	}
	if (!ram_size) {
		fprintf(stderr, "hca: missing option ram=SIZE\n");
		return -1;
	}
	if (ram_size % page_size) {
		fprintf(stderr, "hca: bad value for ram: %" PRIu64 " is not a "
			"multiple of page=%" PRIu64 "\n", ram_size, page_size);
		return -1;
	}
	if (!info->system_emulation) {
		fprintf(stderr, "hca: needs system emulation\n");
		return -1;
	}
	if (cache_size && cache_size < (cache_ways << HCA_LINE_SHIFT)) {
		fprintf(stderr, "hca: bad value for cache: '%" PRIu64 "' (want "
			"at least one set: cache_ways=%" PRIu64 " lines of 64 "
			"bytes)\n", cache_size, cache_ways);
		return -1;
	}
	cache_sets = cache_size >> HCA_LINE_SHIFT;
	cache_sets /= cache_ways;
	if (cache_sets & (cache_sets - 1)) {
		fprintf(stderr, "hca: bad value for cache_ways: '%" PRIu64 "' (want "
			"a number of ways that divides cache=%" PRIu64 " into a "
			"power of two of sets)\n", cache_ways, cache_size);
		return -1;
	}
	if (decay_time && decay_period < DECAY_NS_MIN) {
		fprintf(stderr, "hca: bad value for decay: '%" PRIu64 "' (want at "
			"least %u ns with decay_clock=time: a decay walks the "
			"whole table)\n", decay_period, DECAY_NS_MIN);
		return -1;
	}
	page_shift = __builtin_ctzll(page_size);
	nr_pages = ram_size >> page_shift;
	if (table_setup())
		return -1;

	nr_vcpus = info->system.max_vcpus > info->system.smp_vcpus ?
		   info->system.max_vcpus : info->system.smp_vcpus;
	if (!nr_vcpus)
		nr_vcpus = 1;
	vcpus = aligned_alloc(64, nr_vcpus * sizeof(*vcpus));
	if (!vcpus) {
		fprintf(stderr, "hca: out of memory\n");
		return -1;
	}
	memset(vcpus, 0, nr_vcpus * sizeof(*vcpus));
	for (i = 0; i < nr_vcpus; i++) {
		/* Fixed seeds: a single-vCPU run is repeatable. */
		vcpus[i].rng = 0x9e3779b97f4a7c15ULL * (i + 1);
		vcpus[i].countdown = sample_draw(&vcpus[i]);
		if (cache_size) {
			vcpus[i].cache = calloc(cache_sets * cache_ways,
						sizeof(*vcpus[i].cache));
			if (!vcpus[i].cache) {
				fprintf(stderr, "hca: cache=%" PRIu64 ": out of "
					"memory\n", cache_size);
				return -1;
			}
		}
		if (truth_path) {
			vcpus[i].truth = calloc(nr_pages, sizeof(uint64_t));
			if (!vcpus[i].truth) {
				fprintf(stderr, "hca: truth=%s: out of "
					"memory\n", truth_path);
				return -1;
			}
		}
	}
	truth = truth_path;
	clock_sb = qemu_plugin_scoreboard_new(sizeof(uint64_t));
	vcpu_insns = qemu_plugin_scoreboard_u64(clock_sb);
	clock_chunk = !decay_time && decay_period < 65536 ? decay_period : 65536;
	next_decay = decay_period;

	snprintf(msg, sizeof(msg), "hca: table=%s size=%" PRIu64 " pages=%"
		 PRIu64 " page=%" PRIu64 " sample=%" PRIu32 " decay=%" PRIu64
		 " decay_clock=%s decay_mode=%s cache=%" PRIu64 " cache_ways=%"
		 PRIu64 " format=%s lines=%s serial=%s%s%s\n", table_path,
		 table_size, nr_pages, page_size, sample, decay_period,
		 decay_time ? "time" : "insns",
		 decay_mode == HCA_DECAY_SHIFT ? "shift" : "move",
		 cache_size, cache_ways, p10 ? "p10" : "plain",
		 lines ? "on" : "off", serial ? "on" : "off",
		 truth_path ? " truth=" : "", truth_path ? truth_path : "");
	qemu_plugin_outs(msg);

	if (decay_time && decay_thread_start())
		return -1;

	qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, vcpu_tb_trans);
	qemu_plugin_register_vcpu_idle_cb(id, vcpu_idle);
	qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
	return 0;
}
