// SPDX-License-Identifier: GPL-2.0
/*
 * hwage guest init: mounts the pseudo filesystems, then does what the
 * kernel command line asks with hwage.mode=:
 *
 *   test  run every program in /tests in name order; each prints a KTAP
 *         document, which init nests (indented) under its own, then
 *         powers off.
 *   demo  run /demo/run, then power off.
 *   bench run /bench/run (one benchmark boot, see bench/run.sh), then
 *         power off.
 *   shell start /bin/sh on the console (when the image has busybox) and
 *         power off when it exits.
 *
 * hwage.timeout=SECONDS bounds each test program (default 600): at the
 * deadline init kills the test's whole process group, and it kills what a
 * test left running when it exits (lib/runner.h); either fails the test.
 * hwage.only=t13,t14 runs only the tests whose names start with one of
 * the given prefixes (for a quick run while working on a test); a prefix
 * that matches no test fails the run.
 * Everything goes to /dev/console; each KTAP line is written with one
 * write() so kernel messages cannot split it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runner.h"
#include "util.h"

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...)
{
	char line[4200];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(line))
		n = sizeof(line) - 1;
	if (write(1, line, n) < 0)
		return;
}

static void mounts(void)
{
	mkdir("/proc", 0755);
	mkdir("/sys", 0755);
	mkdir("/dev", 0755);
	mkdir("/tmp", 01777);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	mount("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL);
	mount("tmpfs", "/tmp", "tmpfs", 0, "size=64m");
}

static void console(void)
{
	int fd = open("/dev/console", O_RDWR);

	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* list_tests(): every program in /tests, sorted; their number, or -errno */
static int list_tests(char ***names)
{
	DIR *d = opendir("/tests");
	struct dirent *e;
	int n = 0, size = 0;

	*names = NULL;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == size) {
			size = size ? 2 * size : 32;
			*names = realloc(*names, size * sizeof(**names));
			if (!*names)
				return -ENOMEM;
		}
		(*names)[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(*names, n, sizeof(**names), cmpstr);
	return n;
}

static void nest(const char *line, void *arg)
{
	out("    %s\n", line);
}

/*
 * run_tests(): run the tests hwage.only= selects (all by default), each in
 * its own process group under hwage.timeout= (see lib/runner.h), and nest
 * their KTAP under one document. A prefix of hwage.only= that matches no
 * test, an unreadable or empty /tests, are failures of their own: a typo
 * must not turn into a run of nothing that passes. Returns the failures.
 */
static int run_tests(void)
{
	const char *only = kparam("only", NULL), *tmo = kparam("timeout", "600");
	int timeout = atoi(tmo), i, n, nr = 0, failed = 0, selected = 0;
	char unmatched[512] = "", **names;

	if (timeout <= 0) {
		out("hwage-init: hwage.timeout=%s is not a number of seconds, using 600\n", tmo);
		timeout = 600;
	}
	n = list_tests(&names);
	if (n > 0) {
		for (i = 0; i < n; i++)
			selected += run_selected(names[i], only);
		run_unmatched(only, names, n, unmatched, sizeof(unmatched));
	}
	out("KTAP version 1\n1..%d\n", selected + (n <= 0) + !!unmatched[0]);
	if (n < 0) {
		out("not ok %d tests # cannot read /tests: %s\n", ++nr, strerror(-n));
		return 1;
	}
	if (n == 0) {
		out("not ok %d tests # /tests holds no test\n", ++nr);
		return 1;
	}
	if (unmatched[0]) {
		out("hwage-init: hwage.only=%s: %s matches no test in /tests\n", only, unmatched);
		out("not ok %d hwage.only # %s matches no test\n", ++nr, unmatched);
		failed++;
	}
	for (i = 0; i < n; i++) {
		char path[300], why[1024];
		char *argv[] = { path, NULL };
		struct run_outcome o;
		int ret;

		if (!run_selected(names[i], only))
			continue;
		snprintf(path, sizeof(path), "/tests/%s", names[i]);
		ret = run_program(argv, timeout, nest, NULL, &o);
		if (ret) {
			snprintf(why, sizeof(why), "cannot start: %s", strerror(-ret));
		} else if (run_verdict(&o, timeout, why, sizeof(why))) {
			out("ok %d %s\n", ++nr, names[i]);
			continue;
		}
		out("not ok %d %s # %s\n", ++nr, names[i], why);
		failed++;
	}
	return failed;
}

static void run_wait(const char *path, char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		setsid();
		ioctl(0, TIOCSCTTY, 1);
		execv(path, argv);
		out("hwage-init: exec %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

int main(void)
{
	const char *mode;
	int loglevel;

	mounts();
	console();
	mode = kparam("mode", "test");
	/*
	 * Keep the kernel's info chatter off the console while tests print,
	 * but let warnings (level 4) and worse through: the host fails any
	 * run whose log has one.
	 */
	loglevel = atoi(kparam("loglevel", "5"));
	klogctl(8 /* SYSLOG_ACTION_CONSOLE_LEVEL */, NULL, loglevel);
	out("hwage-init: mode %s\n", mode);

	if (!strcmp(mode, "test")) {
		int failed = run_tests();

		out("hwage-init: tests done, %d failed\n", failed);
	} else if (!strcmp(mode, "demo") || !strcmp(mode, "bench")) {
		char *argv[] = { NULL, NULL };

		argv[0] = !strcmp(mode, "demo") ? "/demo/run" : "/bench/run";
		run_wait(argv[0], argv);
	} else if (!strcmp(mode, "shell")) {
		char *argv[] = { "/bin/sh", "-l", NULL };
		char *inst[] = { "/bin/busybox", "--install", "-s", "/bin", NULL };

		if (!access(inst[0], X_OK))
			run_wait(inst[0], inst);
		if (access(argv[0], X_OK))
			out("hwage-init: no /bin/sh in this image\n");
		else
			run_wait(argv[0], argv);
	} else {
		out("hwage-init: unknown hwage.mode=%s (test, demo, bench, shell)\n", mode);
	}
	out("hwage-init: powering off\n");
	sync();
	reboot(RB_POWER_OFF);
	reboot(RB_AUTOBOOT);
	return 0;
}
