// SPDX-License-Identifier: GPL-2.0
/*
 * init's test runner (lib/runner.h) and the KTAP plan check (lib/ktap.h),
 * on programs made to misbehave: this program, run again with a role.
 *
 *   hang    starts a child, then both sleep forever: at the deadline the
 *           runner must kill the whole group, not just the program;
 *   daemon  starts a child that sleeps forever (holding the output open)
 *           and exits 0: the runner must not wait for it, must kill it
 *           and must fail the program for it;
 *   short   plans 2 results and reports 1: ktap_end() must fail it;
 *   good    plans 1 and reports 1: it must pass;
 *   todo    reports one pass and one known failure (KTAP's "not ok ...
 *           # TODO"): it must pass, the TODO not counted as a failure.
 *
 * And hwage.only='s matching: a prefix that matches no test is named.
 *
 * Orphans of the groups come to this program (a child subreaper), as they
 * come to init, so that the runner can reap them as it does in init.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "ktap.h"
#include "runner.h"
#include "util.h"

#define HANG_TIMEOUT 2
/* slack over a deadline for the kill and the reaping (TCG guests are slow) */
#define SLACK 5

static char output[8192];
static size_t output_len;

static void collect(const char *line, void *arg)
{
	if (output_len < sizeof(output))
		output_len += snprintf(output + output_len, sizeof(output) - output_len, "%s\n",
				       line);
}

/* the roles */
static int role(const char *what)
{
	pid_t pid;

	if (!strcmp(what, "hang") || !strcmp(what, "daemon")) {
		pid = fork();
		if (pid == 0) {
			for (;;)
				pause();
		}
		printf("KTAP version 1\n1..1\nok 1 %s\n", what);
		fflush(stdout);
		if (!strcmp(what, "daemon"))
			return pid > 0 ? 0 : 1;
		for (;;)
			pause();
	}
	if (!strcmp(what, "short")) {
		ktap_begin("short", 2);
		ktap_result(1, "the_only_one");
		return ktap_end();
	}
	if (!strcmp(what, "good")) {
		ktap_begin("good", 1);
		ktap_result(1, "the_only_one");
		return ktap_end();
	}
	if (!strcmp(what, "todo")) {
		ktap_begin("todo", 2);
		ktap_result(1, "fine");
		ktap_todo("known", "a defect on file");
		return ktap_end();
	}
	return 2;
}

/* run ourselves in role what; prints what the runner saw */
static int run_role(const char *what, int timeout, struct run_outcome *o, char *why,
		    size_t len)
{
	char self[] = "/proc/self/exe", arg[16];
	char *argv[] = { self, arg, NULL };
	int ret, passed;

	snprintf(arg, sizeof(arg), "%s", what);
	output_len = 0;
	output[0] = '\0';
	ret = run_program(argv, timeout, collect, NULL, o);
	if (ret) {
		ktap_diag("%s: cannot run: %s", what, strerror(-ret));
		return -1;
	}
	passed = run_verdict(o, timeout, why, len);
	ktap_diag("%s: %.1f s, status %#x, plan %d, results %d, leftovers %d, survivors %d, "
		  "group now %d; verdict: %s", what, o->secs, o->status, o->plan, o->results,
		  o->leftovers, o->survivors, run_group_members(o->pgid, 0, NULL, 0),
		  passed ? "passed" : why);
	return passed;
}

static void show_output(void)
{
	char *line, *save = NULL;

	for (line = strtok_r(output, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		ktap_diag("  | %s", line);
}

static void only_matching(void)
{
	static const struct {
		const char *only, *unmatched;
		int nr;
	} cases[] = {
		{ NULL, "", 0 }, { "t1", "", 0 }, { "t01,,t14", "", 0 },
		{ "t01,t31", "t31", 1 }, { "x,y", "x,y", 2 }, { "", "''", 1 }, { ",", "''", 1 },
	};
	char *names[] = { "t01-kernel", "t10-hca", "t14-memcached" };
	char out[128];
	unsigned int i;
	int ok = 1, nr;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		nr = run_unmatched(cases[i].only, names, 3, out, sizeof(out));
		if (nr != cases[i].nr || strcmp(out, cases[i].unmatched)) {
			ktap_diag("hwage.only=%s: %d unmatched \"%s\", want %d \"%s\"",
				  cases[i].only ? cases[i].only : "(none)", nr, out, cases[i].nr,
				  cases[i].unmatched);
			ok = 0;
		}
	}
	ok &= run_selected("t10-hca", "t01,t1") && !run_selected("t10-hca", "t01,t14") &&
	      run_selected("t10-hca", NULL) && !run_selected("t10-hca", "");
	ktap_result(ok, "hwage_only_names_unmatched_prefixes");
}

int main(int argc, char **argv)
{
	struct run_outcome o;
	char why[1024];
	int passed;

	if (argc > 1)
		return role(argv[1]);

	ktap_begin("init_runner", 6);
	prctl(PR_SET_CHILD_SUBREAPER, 1);

	passed = run_role("hang", HANG_TIMEOUT, &o, why, sizeof(why));
	if (!ktap_result(passed == 0 && o.timed_out && WIFSIGNALED(o.status) &&
			 WTERMSIG(o.status) == SIGKILL && o.leftovers == 1 && !o.survivors &&
			 run_group_members(o.pgid, 0, NULL, 0) == 0 &&
			 o.secs >= HANG_TIMEOUT && o.secs < HANG_TIMEOUT + SLACK &&
			 strstr(why, "timeout after 2 s"),
			 "timeout_kills_the_whole_group"))
		show_output();

	passed = run_role("daemon", 60, &o, why, sizeof(why));
	if (!ktap_result(passed == 0 && !o.timed_out && WIFEXITED(o.status) &&
			 WEXITSTATUS(o.status) == 0 && o.leftovers == 1 && !o.survivors &&
			 run_group_members(o.pgid, 0, NULL, 0) == 0 && o.secs < SLACK &&
			 strstr(why, "left running"),
			 "leftover_of_a_finished_test_killed_and_failed"))
		show_output();

	passed = run_role("short", 60, &o, why, sizeof(why));
	if (!ktap_result(passed == 0 && WIFEXITED(o.status) && WEXITSTATUS(o.status) == 1 &&
			 o.plan == 2 && o.results == 1 && strstr(output, "# planned 2, reported 1"),
			 "plan_mismatch_fails"))
		show_output();

	passed = run_role("good", 60, &o, why, sizeof(why));
	if (!ktap_result(passed == 1 && o.plan == 1 && o.results == 1, "matching_plan_passes"))
		show_output();

	passed = run_role("todo", 60, &o, why, sizeof(why));
	if (!ktap_result(passed == 1 && o.plan == 2 && o.results == 2 && o.not_ok == 0 &&
			 strstr(output, "not ok 2 known # TODO"), "todo_is_not_a_failure"))
		show_output();

	only_matching();
	return ktap_end();
}
