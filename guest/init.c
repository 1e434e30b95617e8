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
 * hwage.timeout=SECONDS bounds each test program (default 600).
 * hwage.only=t13,t14 runs only the tests whose names start with one of
 * the given prefixes (for a quick run while working on a test).
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

#include "util.h"

#define MAX_TESTS 64

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

/* whether hwage.only= (a comma-separated list of prefixes) selects name */
static int selected(const char *name, const char *only)
{
	size_t n;

	if (!only)
		return 1;
	for (; *only; only += n + (only[n] == ',')) {
		n = strcspn(only, ",");
		if (n && !strncmp(name, only, n))
			return 1;
	}
	return 0;
}

static int list_tests(char **names)
{
	DIR *d = opendir("/tests");
	const char *only = kparam("only", NULL);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < MAX_TESTS) {
		if (e->d_name[0] == '.' || !selected(e->d_name, only))
			continue;
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmpstr);
	return n;
}

/* run_test(): run one program, nest its KTAP; return its wait status. */
static int run_test(const char *name, int timeout, int *saw_fail)
{
	char path[300], buf[4096], line[4200];
	size_t len = 0;
	int pfd[2], status = 0;
	pid_t pid;
	FILE *in;

	snprintf(path, sizeof(path), "/tests/%s", name);
	if (pipe(pfd) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		setpgid(0, 0);
		alarm(timeout);
		execl(path, path, (char *)NULL);
		printf("# exec %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	in = fdopen(pfd[0], "r");
	while (fgets(buf, sizeof(buf), in)) {
		len = strcspn(buf, "\n");
		buf[len] = '\0';
		if (!strncmp(buf, "not ok ", 7))
			*saw_fail = 1;
		snprintf(line, sizeof(line), "    %s\n", buf);
		out("%s", line);
	}
	fclose(in);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

static int run_tests(void)
{
	int timeout = atoi(kparam("timeout", "600"));
	char *names[MAX_TESTS];
	int i, n, failed = 0;

	n = list_tests(names);
	out("KTAP version 1\n1..%d\n", n);
	for (i = 0; i < n; i++) {
		int saw_fail = 0, st = run_test(names[i], timeout, &saw_fail);
		int ok = st == 0 && !saw_fail;

		if (ok)
			out("ok %d %s\n", i + 1, names[i]);
		else if (WIFSIGNALED(st))
			out("not ok %d %s # killed by signal %d%s\n", i + 1, names[i],
			    WTERMSIG(st), WTERMSIG(st) == SIGALRM ? " (timeout)" : "");
		else
			out("not ok %d %s # exit status %d\n", i + 1, names[i],
			    WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		failed += !ok;
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
