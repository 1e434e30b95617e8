/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running one test program the way init does, and checked by t03:
 *
 * - in a process group of its own, so that everything it starts (a
 *   memcached, a workload) can be found and killed with it;
 * - under a deadline that the runner enforces itself: at the deadline the
 *   whole group gets SIGKILL (an alarm() in the program would only reach
 *   the program, and leave its children holding ports and memory for the
 *   tests that follow);
 * - when the program exits, whatever is left of its group (a daemon it
 *   forgot) is named and killed too, and the runner does not wait for
 *   those leftovers to close its output;
 * - its output is passed on line by line, and its top-level KTAP (plan
 *   and results) counted, so a program that prints no plan, or fewer
 *   results than planned, can be failed whatever its exit status.
 *
 * Orphans of the group are reaped by the caller: init is PID 1, a test
 * that runs programs this way makes itself a child subreaper.
 */
#ifndef HWAGE_RUNNER_H
#define HWAGE_RUNNER_H

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

/* seconds to wait for a killed group to die before giving up on it */
#define RUN_KILL_WAIT 10
/* seconds without output after which a gone program's output is given up */
#define RUN_DRAIN_WAIT 2

struct run_outcome {
	pid_t pgid;		/* the program's pid and process group */
	int status;		/* its wait status (-1: never reaped) */
	int timed_out;		/* killed at the deadline */
	double secs;		/* how long it ran */
	int plan;		/* its top-level plan "1..N", -1 if none */
	int results;		/* its top-level results */
	int not_ok;		/* of them "not ok" */
	int leftovers;		/* other processes of its group when it ended */
	char left[512];		/* their "comm[pid]" list */
	int survivors;		/* processes of the group alive after the kill */
};

/*
 * run_group_members(): the live processes (zombies aside) of process group
 * pgid, except pid skip; their "comm[pid]" list into names (may be NULL).
 */
static inline int run_group_members(pid_t pgid, pid_t skip, char *names, size_t len)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t used = 0;
	int n = 0;

	if (names && len)
		names[0] = '\0';
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[64], buf[512], *comm, *end, state;
		int ppid, pgrp;
		pid_t pid;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid = atoi(e->d_name);
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		if (pid == skip || read_file(path, buf, sizeof(buf)) <= 0)
			continue;
		/* "pid (comm) state ppid pgrp ...": comm may hold spaces and ')' */
		comm = strchr(buf, '(');
		end = strrchr(buf, ')');
		if (!comm || !end || sscanf(end + 1, " %c %d %d", &state, &ppid, &pgrp) != 3 ||
		    pgrp != pgid || state == 'Z' || state == 'X')
			continue;
		n++;
		*end = '\0';
		if (names && used < len)
			used += snprintf(names + used, len - used, "%s%s[%d]", used ? " " : "",
					 comm + 1, (int)pid);
	}
	closedir(d);
	return n;
}

/* reap the zombies of group pgid that are our children (orphans come to us) */
static inline void run_reap_group(pid_t pgid)
{
	int st;

	while (waitpid(-pgid, &st, WNOHANG) > 0)
		;
}

/*
 * Kill group pgid and wait up to RUN_KILL_WAIT seconds for it to be gone;
 * returns the processes still alive then.
 */
static inline int run_kill_group(pid_t pgid)
{
	double t0 = now_s();
	int left;

	kill(-pgid, SIGKILL);
	for (;;) {
		run_reap_group(pgid);
		left = run_group_members(pgid, 0, NULL, 0);
		if (left <= 0 || now_s() - t0 > RUN_KILL_WAIT)
			return left < 0 ? 0 : left;
		usleep(20000);
	}
}

/* count the top-level KTAP of one output line */
static inline void run_count_line(const char *l, struct run_outcome *o)
{
	int n;

	if (sscanf(l, "1..%d", &n) == 1 && o->plan < 0)
		o->plan = n;
	else if (!strncmp(l, "ok ", 3))
		o->results++;
	else if (!strncmp(l, "not ok ", 7)) {
		o->results++;
		/* a known failure (KTAP's TODO) does not fail the program */
		if (!strstr(l, " # TODO"))
			o->not_ok++;
	}
}

struct run_lines {
	char buf[4096];
	size_t have;
};

/* split data into lines; each goes to line() and is counted */
static inline void run_feed(struct run_lines *b, const char *data, size_t n, int eof,
			    void (*line)(const char *, void *), void *arg, struct run_outcome *o)
{
	while (n || (eof && b->have)) {
		size_t take = sizeof(b->buf) - 1 - b->have;
		char *nl;

		if (take > n)
			take = n;
		memcpy(b->buf + b->have, data, take);
		b->have += take;
		data += take;
		n -= take;
		b->buf[b->have] = '\0';
		while ((nl = strchr(b->buf, '\n')) || b->have == sizeof(b->buf) - 1 ||
		       (eof && !n && b->have)) {
			size_t len = nl ? (size_t)(nl - b->buf) : b->have;

			b->buf[len] = '\0';
			run_count_line(b->buf, o);
			line(b->buf, arg);
			len += nl != NULL;
			memmove(b->buf, b->buf + len, b->have - len + 1);
			b->have -= len;
		}
	}
}

/*
 * run_program(): run argv[0] with argv, its stdout and stderr to line()
 * line by line, under a deadline of timeout seconds; fills o. Returns 0,
 * or -errno if it could not be started.
 */
static inline int run_program(char *const argv[], int timeout,
			      void (*line)(const char *, void *), void *arg,
			      struct run_outcome *o)
{
	struct run_lines b = { .have = 0 };
	double t0 = now_s(), deadline = t0 + timeout, drain;
	int pfd[2], eof = 0, exited = 0;
	char data[4096];
	pid_t pid;

	memset(o, 0, sizeof(*o));
	o->status = -1;
	o->plan = -1;
	if (pipe(pfd) < 0)
		return -errno;
	/* only the program's stdout and stderr hold the write end */
	fcntl(pfd[0], F_SETFD, FD_CLOEXEC);
	fcntl(pfd[1], F_SETFD, FD_CLOEXEC);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (pid == 0) {
		setpgid(0, 0);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		execv(argv[0], argv);
		printf("# exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	/* also here: kill(-pgid) must work even before the child ran */
	setpgid(pid, pid);
	o->pgid = pid;
	close(pfd[1]);

	while (!exited) {
		double left = deadline - now_s();
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };

		if (left <= 0) {
			o->timed_out = 1;
			o->leftovers = run_group_members(pid, pid, o->left, sizeof(o->left));
			kill(-pid, SIGKILL);
			break;
		}
		if (!eof && poll(&p, 1, left > 0.25 ? 250 : (int)(left * 1000) + 1) > 0) {
			ssize_t n = read(pfd[0], data, sizeof(data));

			if (n > 0)
				run_feed(&b, data, n, 0, line, arg, o);
			else if (n == 0 || errno != EINTR)
				eof = 1;
		} else if (eof) {
			usleep(50000);
		}
		if (waitpid(pid, &o->status, WNOHANG) == pid)
			exited = 1;
	}
	if (exited) {
		/* anything of its group still running was left behind */
		o->leftovers = run_group_members(pid, pid, o->left, sizeof(o->left));
		if (o->leftovers > 0)
			kill(-pid, SIGKILL);
	} else {
		double t1 = now_s();

		/* the deadline: the group had its SIGKILL; reap the program */
		while (waitpid(pid, &o->status, WNOHANG) != pid && now_s() - t1 < RUN_KILL_WAIT)
			usleep(20000);
	}
	o->survivors = run_kill_group(pid);
	o->secs = now_s() - t0;

	/*
	 * The rest of the output: the group is gone, so the pipe closes
	 * unless a process that left the group holds it; do not wait for that.
	 */
	for (drain = now_s(); !eof && now_s() - drain < RUN_DRAIN_WAIT &&
	     now_s() - t0 < timeout + RUN_KILL_WAIT + 60;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(pfd[0], data, sizeof(data));
		/*
		 * What the program wrote before it exited is still coming
		 * (a pipe's worth, which the caller may pass on to a slow
		 * serial console): wait RUN_DRAIN_WAIT from the last data.
		 */
		if (n > 0) {
			drain = now_s();
			run_feed(&b, data, n, 0, line, arg, o);
		}
		else if (n == 0 || errno != EINTR)
			eof = 1;
	}
	run_feed(&b, "", 0, 1, line, arg, o);
	close(pfd[0]);
	return 0;
}

/*
 * run_verdict(): why the program failed ("" if it passed) for the "# ..."
 * of its result line; returns 1 if it passed.
 */
static inline int run_verdict(const struct run_outcome *o, int timeout, char *why, size_t len)
{
	int st = o->status;
	size_t n = 0;

	why[0] = '\0';
	if (o->timed_out)
		n += snprintf(why + n, len - n, "timeout after %d s", timeout);
	else if (st == -1)
		n += snprintf(why + n, len - n, "never reaped");
	else if (WIFSIGNALED(st))
		n += snprintf(why + n, len - n, "killed by signal %d", WTERMSIG(st));
	else if (WEXITSTATUS(st))
		n += snprintf(why + n, len - n, "exit status %d", WEXITSTATUS(st));
	else if (o->plan < 0)
		n += snprintf(why + n, len - n, "no KTAP plan");
	else if (o->plan != o->results)
		n += snprintf(why + n, len - n, "planned %d, reported %d", o->plan, o->results);
	else if (o->not_ok)
		n += snprintf(why + n, len - n, "%d of %d failed", o->not_ok, o->results);
	if (o->leftovers > 0 && n < len)
		n += snprintf(why + n, len - n, "%s%s: %d process%s of its group killed (%s)",
			      n ? "; " : "", o->timed_out ? "at the deadline" : "left running",
			      o->leftovers, o->leftovers > 1 ? "es" : "", o->left);
	if (o->survivors && n < len)
		n += snprintf(why + n, len - n, "%s%d process%s of its group survived SIGKILL",
			      n ? "; " : "", o->survivors, o->survivors > 1 ? "es" : "");
	return n == 0;
}

/*
 * hwage.only=PREFIX,...: run_selected() says whether name starts with one
 * of the prefixes (NULL: every name does); run_unmatched() lists in out the
 * prefixes that match none of names (an empty list counts as one, "''"),
 * and returns their number.
 */
static inline int run_selected(const char *name, const char *only)
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

static inline int run_unmatched(const char *only, char *const names[], int nr, char *out,
				size_t len)
{
	size_t n, used = 0;
	int i, bad = 0, prefixes = 0;

	out[0] = '\0';
	if (!only)
		return 0;
	for (; *only; only += n + (only[n] == ',')) {
		n = strcspn(only, ",");
		if (!n)
			continue;
		prefixes++;
		for (i = 0; i < nr; i++)
			if (!strncmp(names[i], only, n))
				break;
		if (i < nr)
			continue;
		bad++;
		if (used < len)
			used += snprintf(out + used, len - used, "%s%.*s", bad > 1 ? "," : "",
					 (int)n, only);
	}
	if (!prefixes) {
		snprintf(out, len, "''");
		return 1;
	}
	return bad;
}

#endif
