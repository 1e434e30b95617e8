// SPDX-License-Identifier: GPL-2.0
/*
 * t22: the kernel's own selftests as a peer's test suite. The programs
 * that /kselftest/list names (tools/testing/selftests/cgroup and a part of
 * selftests/mm, cross-built static from the kernel tree by
 * harness/kselftest-build.sh) run with an ext4 disk as their root (/dev/vda,
 * which the host attaches with HWAGE_DISK; see enter_disk()) and swap on
 * zram:
 *
 *   - with counter aging off, then on (the 0x0008 bit of lru_gen/enabled),
 *     when the series and its counter device are there;
 *   - once, as "stock", when they are not (the unpatched kernel of make
 *     kselftest, HWAGE_KERNEL=base, or a boot without the device).
 *
 * Each case's result (pass, fail, skip; a program that prints no KTAP is
 * one case, "exit") must be the same in every mode, and the same as the
 * unpatched kernel's, recorded in /kselftest/expect (guest/kselftest/
 * expect-ARCH, written from an unpatched boot by make kselftest). One
 * result per program; the results of every case that is not a pass
 * everywhere (of every case, when recording) are printed as
 *   # kselftest PROGRAM CASE MODE RESULT
 * lines, which harness/kselftest.sh collects. Of the programs' own output
 * only their failures are passed on (a serial console is slow). A case
 * the expectations give as "any" (a timing-dependent case, with the reason
 * in the file) is reported and not judged.
 *
 * hwage.kselftest_timeout=SECONDS bounds each program's run (default 900).
 * hwage.kselftest_only=PREFIX,... runs only the programs of the list whose
 * names start so (e.g. cgroup/test_memcontrol).
 * hwage.kselftest_record=1 (make kselftest's recording boot of the
 * unpatched kernel) compares the modes only, not the expectations.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cgroup.h"
#include "hca.h"
#include "ktap.h"
#include "runner.h"
#include "util.h"

#define KST_DIR "/kselftest"
#define KST_LIST KST_DIR "/list"
#define KST_EXPECT KST_DIR "/expect"
#define KST_MNT "/mnt/kselftest"
#define KST_DISK "/dev/vda"
#define MAX_PROGS 16
#define MAX_ARGS 8
#define MAX_CASES 2048
#define MAX_MODES 2

static const char *const result_name[] = { "none", "pass", "fail", "skip", "any" };
/* R_ANY: a case the expectations mark as timing-dependent (see expect-ARCH) */
enum { R_NONE, R_PASS, R_FAIL, R_SKIP, R_ANY };

struct kst_case {
	char name[96];
	int res[MAX_MODES];
	int expect;		/* the unpatched kernel's, R_NONE if unknown */
};

struct kst_prog {
	char path[128];		/* cgroup/test_memcontrol */
	char *argv[MAX_ARGS + 2];
	struct kst_case cases[MAX_CASES];
	int nr_cases;
	int mode;		/* the mode being run */
	int ktap_seen;		/* top-level results this run */
};

static struct kst_prog progs[MAX_PROGS];
static int nr_progs;
static const char *modes[MAX_MODES];
static int nr_modes;

static struct kst_case *kst_case(struct kst_prog *p, const char *name)
{
	int i;

	for (i = 0; i < p->nr_cases; i++)
		if (!strcmp(p->cases[i].name, name))
			return &p->cases[i];
	if (p->nr_cases == MAX_CASES)
		return NULL;
	snprintf(p->cases[i].name, sizeof(p->cases[i].name), "%s", name);
	p->nr_cases++;
	return &p->cases[i];
}

/*
 * A top-level KTAP result of the program: "ok N name", "not ok N name",
 * "ok N name # SKIP why", or kselftest's "ok N # SKIP name". The case is
 * "N:name" with spaces made '_': names alone repeat (mm/cow reports "No
 * leak from parent into child" for every kind of page it tries), the
 * numbers of a program that runs the same cases do not.
 */
static void kst_line(const char *l, void *arg)
{
	struct kst_prog *p = arg;
	const char *d;
	char name[96];
	int res, n = 0, i, num;
	struct kst_case *c;

	/* the program's failures only: its full output would take minutes on
	 * a serial console */
	if (!strncmp(l, "not ok ", 7))
		printf("# | %s\n", l);
	if (!strncmp(l, "ok ", 3)) {
		res = R_PASS;
		d = l + 3;
	} else if (!strncmp(l, "not ok ", 7)) {
		res = R_FAIL;
		d = l + 7;
	} else {
		return;
	}
	if (sscanf(d, "%d %n", &num, &n) < 1 || !n)
		return;
	d += n;
	if (!strncasecmp(d, "# SKIP", 6)) {
		res = R_SKIP;
		d += 6;
		while (*d == ' ')
			d++;
	} else if (strstr(d, "# SKIP") || strstr(d, "# skip")) {
		res = R_SKIP;
	}
	n = snprintf(name, sizeof(name), "%d:", num);
	for (i = 0; d[i] && n < (int)sizeof(name) - 1; i++, n++) {
		if (d[i] == '#' && i)
			break;
		name[n] = d[i] == ' ' ? '_' : d[i];
	}
	while (n > 0 && name[n - 1] == '_')
		n--;
	name[n] = '\0';
	/*
	 * Numbers in a name vary from run to run (mrelease_test retries with
	 * twice the memory: "... with 1MB of ..." or "2MB"): N, after the
	 * case number.
	 */
	for (i = (int)(strchr(name, ':') - name) + 1, n = i; name[i]; i++) {
		if (isdigit((unsigned char)name[i])) {
			if (n && name[n - 1] == 'N' && i && isdigit((unsigned char)name[i - 1]))
				continue;
			name[n++] = 'N';
		} else {
			name[n++] = name[i];
		}
	}
	name[n] = '\0';
	c = kst_case(p, name);
	if (!c)
		return;
	/* a name twice in one run: the worse result stands */
	if (c->res[p->mode] == R_NONE || res == R_FAIL)
		c->res[p->mode] = res;
	p->ktap_seen++;
}

/* read /kselftest/list: "PROGRAM [ARGS...]" a line, # comments */
static int read_list(const char *only)
{
	FILE *f = fopen(KST_LIST, "r");
	char line[256];

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f) && nr_progs < MAX_PROGS) {
		struct kst_prog *p = &progs[nr_progs];
		char *tok, *save, *s = line;
		int argc = 0;

		s[strcspn(s, "#\n")] = '\0';
		tok = strtok_r(s, " \t", &save);
		if (!tok || !run_selected(tok, only))
			continue;
		snprintf(p->path, sizeof(p->path), "%s", tok);
		p->argv[argc++] = strdup(p->path);
		while ((tok = strtok_r(NULL, " \t", &save)) && argc <= MAX_ARGS)
			p->argv[argc++] = strdup(tok);
		p->argv[argc] = NULL;
		nr_progs++;
	}
	fclose(f);
	return nr_progs;
}

/* the program an expectation line names: its path, then its args joined by '_' */
static void prog_key(const struct kst_prog *p, char *key, size_t len)
{
	size_t n = snprintf(key, len, "%s", p->path);
	int i;

	for (i = 1; p->argv[i] && n < len; i++)
		n += snprintf(key + n, len - n, "_%s", p->argv[i]);
}

/* /kselftest/expect: "PROGRAM CASE RESULT" lines of the unpatched kernel */
static int read_expect(void)
{
	FILE *f = fopen(KST_EXPECT, "r");
	char line[512], prog[160], name[96], res[16], key[160];
	int n = 0, i, r;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || sscanf(line, "%159s %95s %15s", prog, name, res) != 3)
			continue;
		for (r = R_PASS; r <= R_ANY; r++)
			if (!strcmp(res, result_name[r]))
				break;
		if (r > R_ANY)
			continue;
		for (i = 0; i < nr_progs; i++) {
			struct kst_case *c;

			prog_key(&progs[i], key, sizeof(key));
			if (strcmp(key, prog))
				continue;
			c = kst_case(&progs[i], name);
			if (c)
				c->expect = r;
			n++;
		}
	}
	fclose(f);
	return n;
}

/*
 * Mount the ext4 disk the host attached and make it the root the selftests
 * see: the suite assumes a disk root filesystem (test_kmem's
 * alloc_dcache() fills the dentry cache with lookups of missing names
 * under "/", which the initramfs's tmpfs root does not keep; test_memcontrol
 * makes its page cache in the working directory). /proc, /sys (with the
 * cgroup and debugfs mounts under it), /dev and /kselftest are bound into
 * it, /tmp is a directory of the disk. 0 or -errno, with what failed in
 * step.
 */
static int enter_disk(const char **step)
{
	static const char *const binds[] = { "/proc", "/sys", "/dev", KST_DIR };
	char path[128];
	unsigned int i;

	mkdir("/mnt", 0755);
	mkdir(KST_MNT, 0755);
	*step = "mount " KST_DISK;
	if (mount(KST_DISK, KST_MNT, "ext4", 0, NULL) && errno != EBUSY)
		return -errno;
	for (i = 0; i < sizeof(binds) / sizeof(binds[0]); i++) {
		snprintf(path, sizeof(path), KST_MNT "%s", binds[i]);
		mkdir(path, 0755);
		*step = binds[i];
		if (mount(binds[i], path, NULL, MS_BIND | MS_REC, NULL))
			return -errno;
	}
	mkdir(KST_MNT "/tmp", 01777);
	chmod(KST_MNT "/tmp", 01777);
	mkdir(KST_MNT "/work", 0755);
	*step = "chroot";
	if (chroot(KST_MNT) || chdir("/work"))
		return -errno;
	return 0;
}

static void run_one(struct kst_prog *p, int mode, int timeout)
{
	char path[300], why[1024];
	struct run_outcome o;
	struct kst_case *c;
	int ret;

	snprintf(path, sizeof(path), KST_DIR "/%s", p->path);
	p->argv[0] = path;
	p->mode = mode;
	p->ktap_seen = 0;
	ktap_diag("%s: running %s (counter aging %s)", p->path, path, modes[mode]);
	ret = run_program(p->argv, timeout, kst_line, p, &o);
	c = kst_case(p, "exit");
	if (!c)
		return;
	if (ret) {
		c->res[mode] = R_FAIL;
		ktap_diag("%s: cannot start: %s", p->path, strerror(-ret));
		return;
	}
	run_verdict(&o, timeout, why, sizeof(why));
	/* kselftest's KSFT_SKIP (4): the whole program skipped */
	if (!o.timed_out && WIFEXITED(o.status) && WEXITSTATUS(o.status) == 4)
		c->res[mode] = R_SKIP;
	else if (!o.timed_out && WIFEXITED(o.status) && !WEXITSTATUS(o.status))
		c->res[mode] = R_PASS;
	else
		c->res[mode] = R_FAIL;
	ktap_diag("%s: %d results in %.0f s%s%s", p->path, p->ktap_seen, o.secs,
		  why[0] ? ", " : "", why);
}

/*
 * cgroup/test_kmem's test_percpu_basic fails on the unpatched kernel too
 * (guest/kselftest/expect-ARCH): it makes 1000 child memory cgroups and
 * wants the parent's memory.current within 256 KiB a CPU of its
 * memory.stat percpu, but creating a cgroup also charges slab objects to
 * the parent (kernfs nodes of the children's files; on 6.12 also each
 * memcg's vmstats and per-node lruvec stats, GFP_KERNEL_ACCOUNT). The
 * same check with memory.stat's slab counted as well (as a selftests patch
 * proposed upstream in 2026 does) tells whether that is all of the
 * difference: the case passes if it is.
 */
#define PCPU_PARENT CG_ROOT "/hwage-t22-percpu"
#define PCPU_CHILDREN 1000

static void percpu_with_slab(void)
{
	long long current, percpu, slab, err = 4096LL * 64 * sysconf(_SC_NPROCESSORS_ONLN);
	char child[128];
	int i, made = 0;

	if (cg_create(PCPU_PARENT, 0) || cg_write(PCPU_PARENT, "cgroup.subtree_control", "+memory")) {
		ktap_result(0, "test_percpu_basic_with_slab");
		rmdir(PCPU_PARENT);
		return;
	}
	for (; made < PCPU_CHILDREN; made++) {
		snprintf(child, sizeof(child), PCPU_PARENT "/child%d", made);
		if (mkdir(child, 0755))
			break;
	}
	current = cg_read(PCPU_PARENT, "memory.current");
	percpu = cg_stat(PCPU_PARENT, "memory.stat", "percpu");
	slab = cg_stat(PCPU_PARENT, "memory.stat", "slab");
	ktap_diag("%d children: memory.current %lld, percpu %lld (off by %lld), slab %lld: "
		  "current - percpu - slab = %lld, tolerance %lld",
		  made, current, percpu, current - percpu, slab, current - percpu - slab, err);
	for (i = 0; i < made; i++) {
		snprintf(child, sizeof(child), PCPU_PARENT "/child%d", i);
		rmdir(child);
	}
	rmdir(PCPU_PARENT);
	ktap_result(made == PCPU_CHILDREN && current > 0 && percpu > 0 && slab >= 0 &&
		    llabs(current - percpu - slab) < err, "test_percpu_basic_with_slab");
}

/* without the disk: every case after "ext4 disk" skipped */
static int skip_the_rest(void)
{
	int i;

	ktap_skip("expectations", "no disk");
	for (i = 0; i < nr_progs; i++)
		ktap_skip(progs[i].path, "no disk");
	ktap_skip("test_percpu_basic_with_slab", "no disk");
	return ktap_end();
}

int main(void)
{
	int timeout = atoi(kparam("kselftest_timeout", "900"));
	int record = !strcmp(kparam("kselftest_record", "0"), "1");
	const char *step = "";
	struct utsname u;
	int saved = -1;
	int i, j, m, ret;

	uname(&u);
	ret = read_list(kparam("kselftest_only", NULL));
	if (ret <= 0) {
		ktap_begin("t22-kselftest", 1);
		ktap_skip("kselftests", ret ? "no /kselftest/list in this image" :
			  "/kselftest/list names no program");
		return ktap_end();
	}
	ktap_begin("t22-kselftest", 3 + nr_progs);
	/* no disk: a boot of another scenario (make test-full runs every test) */
	if (access(KST_DISK, F_OK)) {
		ktap_skip("ext4 disk", "no " KST_DISK ": the host attaches one for make kselftest "
			  "(HWAGE_DISK)");
		return skip_the_rest();
	}
	if (timeout <= 0)
		timeout = 900;
	ret = setup_zram_swap(512);
	if (ret)
		ktap_diag("no swap on zram: %s", strerror(-ret));
	ret = enter_disk(&step);
	if (ret) {
		ktap_diag("ext4 root on %s: %s: %s (boot with HWAGE_DISK, see harness/run-guest.sh)",
			  KST_DISK, step, strerror(-ret));
		ktap_result(0, "ext4 disk");
		return skip_the_rest();
	}
	ktap_result(1, "ext4 disk");
	if (record) {
		ktap_skip("expectations", "recording the unpatched kernel's (hwage.kselftest_record=1)");
	} else {
		ret = read_expect();
		ktap_diag("%d recorded results of the unpatched kernel in " KST_EXPECT,
			  ret < 0 ? 0 : ret);
		ktap_result(ret > 0, "expectations");
	}
	/* the programs' stray children are ours to reap */
	prctl(PR_SET_CHILD_SUBREAPER, 1);

	/* the modes: counter aging off and on, or stock without the series */
	if (!access(HCA_DIR, F_OK) && hca_on()) {
		saved = hca_counts_on();
		modes[nr_modes++] = "off";
		modes[nr_modes++] = "on";
	} else {
		modes[nr_modes++] = "stock";
	}
	for (m = 0; m < nr_modes; m++) {
		if (strcmp(modes[m], "stock")) {
			ret = hca_counts(!strcmp(modes[m], "on"));
			if (ret)
				ktap_diag("counter aging %s: %s", modes[m], strerror(-ret));
		}
		for (i = 0; i < nr_progs; i++)
			run_one(&progs[i], m, timeout);
	}
	if (saved >= 0)
		hca_counts(saved);

	for (i = 0; i < nr_progs; i++) {
		struct kst_prog *p = &progs[i];
		int same = 1, unknown = 0, pass = 0, fail = 0, skip = 0, any = 0;
		char key[160], name[240];

		prog_key(p, key, sizeof(key));
		for (j = 0; j < p->nr_cases; j++) {
			struct kst_case *c = &p->cases[j];
			int plain = c->expect == R_PASS || (record && c->expect == R_NONE);
			int ok = 1;

			for (m = 0; m < nr_modes; m++) {
				if (c->res[m] != c->res[0])
					ok = 0;
				plain = plain && c->res[m] == R_PASS;
			}
			/* every case when recording; else what is not a plain pass */
			for (m = 0; m < nr_modes && (record || !plain); m++)
				printf("# kselftest %s %s %s %s\n", key, c->name, modes[m],
				       result_name[c->res[m]]);
			if (c->expect == R_ANY) {
				/* reported, not judged */
				any++;
				ktap_diag("%s %s: timing-dependent (expect-ARCH says any): %s%s%s", key,
					  c->name, result_name[c->res[0]], nr_modes > 1 ? " off, " : "",
					  nr_modes > 1 ? result_name[c->res[1]] : "");
				continue;
			}
			/* recording: the modes only, there is no expectation yet */
			if (!record && c->expect == R_NONE)
				unknown++;
			else if (!record && c->res[0] != c->expect)
				ok = 0;
			if (!ok) {
				same = 0;
				ktap_diag("%s %s: unpatched %s, here %s%s%s", key, c->name,
					  result_name[c->expect], result_name[c->res[0]],
					  nr_modes > 1 ? " off, " : "",
					  nr_modes > 1 ? result_name[c->res[1]] : "");
			}
			pass += c->res[0] == R_PASS;
			fail += c->res[0] == R_FAIL;
			skip += c->res[0] == R_SKIP;
		}
		if (unknown)
			ktap_diag("%s: %d cases have no result of the unpatched kernel", key, unknown);
		snprintf(name, sizeof(name), "%s: %d pass, %d fail, %d skip, %d not judged", key, pass,
			 fail, skip, any);
		ktap_result(same && !unknown, name);
	}
	percpu_with_slab();
	ktap_diag("kernel %s %s", u.release, u.machine);
	return ktap_end();
}
