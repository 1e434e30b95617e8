// SPDX-License-Identifier: GPL-2.0
/*
 * Random input to every writable file of /sys/kernel/debug/hca/ (the
 * series' knobs, the pfn selector and, with a counter device, the
 * backend's entry, enabled and truth files): random bytes, lengths up to
 * a page, offsets, numbers just out of range, a buffer the kernel cannot
 * read, while a memory cgroup at three times its limit swaps and verifies
 * its pages (as t02), then from two writers at once.
 *
 * One writer at a time, a write the kernel refuses must fail with EINVAL
 * (EFAULT for the unreadable buffer; ERANGE or ENOSPC are taken too, and
 * ESPIPE for pwrite() at an offset to a file without positions) and
 * leave the file's value as it was; a write it takes (random input can be
 * valid) must be taken whole and is undone. With two writers only the
 * errors are checked, and every file is put back afterwards. The kernel
 * must report nothing: make test's debug kernels panic on a warning, and
 * the summary fails a boot with a lockdep, KASAN or VM report.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "hca.h"
#include "ktap.h"
#include "util.h"
#include "vload.h"

#define CG CG_ROOT "/hwage-t19"
#define LIMIT_MB 32
#define TOUCH_MB 96
#define MAX_FILES 32
/* random writes per file, one writer; per writer, two at once */
#define ROUNDS 400
#define CONCURRENT_ROUNDS 2000

struct file {
	char path[512];
	const char *name;
	char value[512];	/* what the file showed before the test */
	int comparable;		/* its value can be read back and compared */
};

static struct file files[MAX_FILES];
static int nr_files;
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	return xorshift64(&rng);
}

/* find_files(): the writable regular files under @dir, recursively */
static void find_files(const char *dir)
{
	struct dirent *d;
	struct stat st;
	char path[300];
	DIR *dp = opendir(dir);

	while (dp && (d = readdir(dp)) && nr_files < MAX_FILES) {
		if (d->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, d->d_name) >= (int)sizeof(path))
			continue;
		if (stat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			find_files(path);
		} else if (S_ISREG(st.st_mode) && (st.st_mode & 0200)) {
			snprintf(files[nr_files].path, sizeof(files[0].path), "%s", path);
			files[nr_files].name = strrchr(files[nr_files].path, '/') + 1;
			nr_files++;
		}
	}
	if (dp)
		closedir(dp);
}

/*
 * value(): the part of @f's contents a write sets: the pfn of "pfn"
 * ("pfn P hotness H gen_age A") and of "entry" ("P count prev age"), the
 * first line of a knob. "truth" shows the last request the plugin
 * answered, which moves on its own: not comparable.
 */
static int value(const struct file *f, char *buf, size_t size)
{
	char raw[512];
	unsigned long long pfn;

	if (read_file(f->path, raw, sizeof(raw)) <= 0)
		return -1;
	raw[strcspn(raw, "\n")] = '\0';
	if (!strcmp(f->name, "pfn") && sscanf(raw, "pfn %llu", &pfn) == 1)
		snprintf(buf, size, "%llu", pfn);
	else if (!strcmp(f->name, "entry") && sscanf(raw, "%llu", &pfn) == 1)
		snprintf(buf, size, "%llu", pfn);
	else
		snprintf(buf, size, "%s", raw);
	return 0;
}

/* one random input into @buf (a page); its length, or -1 for a bad buffer */
static ssize_t random_input(char *buf, size_t page)
{
	static const char *const edge[] = {
		"4294967296", "18446744073709551615", "18446744073709551616",
		"-1", "+1", "0x", "0x1g", "1 2", "1\n2", "", " ", "\n\n",
		"99999999999999999999999999999999", "0b1", "1e3", "1.0", "one",
	};
	static const char digits[] = "0123456789+-x \n\t.abcdefABCDEF";
	size_t len, i;

	switch (rnd() % 6) {
	case 0:		/* random bytes, up to a page */
		len = 1 + rnd() % (rnd() % 2 ? 16 : page);
		for (i = 0; i < len; i++)
			buf[i] = rnd();
		return len;
	case 1:		/* number-like junk */
		len = 1 + rnd() % 40;
		for (i = 0; i < len; i++)
			buf[i] = digits[rnd() % (sizeof(digits) - 1)];
		return len;
	case 2:		/* numbers at the edges of parsing */
		i = rnd() % (sizeof(edge) / sizeof(edge[0]));
		len = strlen(edge[i]);
		memcpy(buf, edge[i], len);
		return len;
	case 3:		/* a number, maybe in range, maybe with junk after it */
		len = snprintf(buf, page, "%llu%s", (unsigned long long)(rnd() % 5 ?
			       rnd() % 200000 : rnd()), rnd() % 3 ? "" : "\x01");
		return len;
	case 4:		/* a page of digits */
		memset(buf, '1', page);
		return page;
	default:	/* a buffer the kernel cannot read */
		return -1;
	}
}

/* an address no process can read: the kernel's copy must fail */
static const void *volatile unreadable = (const void *)16;

struct tally {
	long writes, refused, taken, bad_errno, partial, changed;
};

/*
 * fuzz(): @rounds random writes to @f; with @check, each refused write
 * must leave its value as it was, and a taken one is undone.
 */
static void fuzz(struct file *f, int rounds, int check, struct tally *t)
{
	static char buf[65536];
	size_t page = sysconf(_SC_PAGESIZE);
	static const off_t offsets[] = { 0, 0, 0, 1, 7, 4095, 1 << 20 };
	char now[512];
	ssize_t len, ret;
	int fd, i, err;
	off_t off;

	for (i = 0; i < rounds; i++) {
		len = random_input(buf, page);
		fd = open(f->path, O_WRONLY);
		if (fd < 0) {
			t->bad_errno++;
			ktap_diag("%s: open: %s", f->path, strerror(errno));
			return;
		}
		errno = 0;
		off = offsets[rnd() % (sizeof(offsets) / sizeof(offsets[0]))];
		if (len < 0)
			ret = write(fd, unreadable, 8);
		else if (!off)
			ret = write(fd, buf, len);
		else
			ret = pwrite(fd, buf, len, off);
		err = errno;
		close(fd);
		t->writes++;
		if (ret < 0) {
			t->refused++;
			/* ESPIPE: a file without positions refuses pwrite() */
			if (err != EINVAL && err != EFAULT && err != ERANGE && err != ENOSPC &&
			    !(err == ESPIPE && off) && t->bad_errno++ < 5)
				ktap_diag("%s: a %zd-byte write failed with %s", f->name, len, strerror(err));
			if (len < 0 && err != EFAULT && err != EINVAL && t->bad_errno++ < 5)
				ktap_diag("%s: an unreadable buffer failed with %s", f->name, strerror(err));
		} else {
			t->taken++;
			if (len >= 0 && ret != len && t->partial++ < 5)
				ktap_diag("%s: %zd of %zd bytes taken", f->name, ret, len);
			if (len < 0 && t->partial++ < 5)
				ktap_diag("%s: an unreadable buffer was taken", f->name);
		}
		if (!check || !f->comparable)
			continue;
		if (ret >= 0) {
			/* taken: valid input; put the value back */
			write_file(f->path, f->value);
			continue;
		}
		if (value(f, now, sizeof(now)) || strcmp(now, f->value)) {
			if (t->changed++ < 5)
				ktap_diag("%s: a refused write (%s) changed \"%s\" to \"%s\"", f->name,
					  strerror(err), f->value, now);
			write_file(f->path, f->value);
		}
	}
}

int main(void)
{
	struct tally serial = { 0 }, conc = { 0 };
	int i, w, status, restored = 1, writers_ok = 1;
	pid_t loader, writer[2];
	char now[512];

	ktap_begin("knob_fuzz", 7);
	rng ^= (uint64_t)time(NULL);
	ktap_diag("seed %#llx", (unsigned long long)rng);
	find_files("/sys/kernel/debug/hca");
	for (i = 0; i < nr_files; i++) {
		files[i].comparable = strcmp(files[i].name, "truth") &&
				      !value(&files[i], files[i].value, sizeof(files[i].value));
		ktap_diag("%s: \"%s\"%s", files[i].path, files[i].value,
			  files[i].comparable ? "" : " (not compared)");
	}
	if (!ktap_result(nr_files > 0, "writable_files_found"))
		return ktap_end();

	if (setup_zram_swap(256) || cg_create(CG, (long long)LIMIT_MB << 20)) {
		ktap_result(0, "load_started");
		return ktap_end();
	}
	loader = vload_start(CG, TOUCH_MB);
	ktap_result(loader > 0, "load_started");

	/* one writer */
	for (i = 0; i < nr_files; i++)
		fuzz(&files[i], ROUNDS, 1, &serial);
	ktap_diag("one writer: %ld writes to %d files, %ld refused, %ld taken and undone",
		  serial.writes, nr_files, serial.refused, serial.taken);
	ktap_result(!serial.bad_errno, "refused_with_einval_or_efault");
	ktap_result(!serial.changed, "refused_writes_change_nothing");
	ktap_result(!serial.partial, "taken_writes_taken_whole");

	/* two writers on the same files at once */
	fflush(stdout);
	for (w = 0; w < 2; w++) {
		writer[w] = fork();
		if (writer[w] == 0) {
			rng += w + 1;
			for (i = 0; i < CONCURRENT_ROUNDS; i++)
				fuzz(&files[rnd() % nr_files], 1, 0, &conc);
			_exit(conc.bad_errno || conc.partial ? 1 : 0);
		}
	}
	for (w = 0; w < 2; w++)
		if (writer[w] < 0 || waitpid(writer[w], &status, 0) != writer[w] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			writers_ok = 0;
	ktap_diag("two writers: %d writes each", CONCURRENT_ROUNDS);
	for (i = 0; i < nr_files; i++) {
		if (!files[i].comparable)
			continue;
		write_file(files[i].path, files[i].value);
		if (value(&files[i], now, sizeof(now)) || strcmp(now, files[i].value)) {
			ktap_diag("%s: \"%s\" after the writers, was \"%s\"", files[i].name, now,
				  files[i].value);
			restored = 0;
		}
	}
	ktap_result(writers_ok && restored, "two_writers_refused_cleanly_and_values_restored");

	ktap_result(!vload_stop(loader), "load_pages_intact");
	rmdir(CG);
	return ktap_end();
}
