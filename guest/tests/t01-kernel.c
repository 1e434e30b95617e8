// SPDX-License-Identifier: GPL-2.0
/*
 * The booted kernel is the patched one, and MGLRU is on and visible.
 *
 * The host passes the release it built as hwage.release= on the kernel
 * command line; uname must report exactly that.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "ktap.h"
#include "util.h"

static char buf[1 << 20];

static void test_release(void)
{
	char cmdline[4096], want[128] = "";
	struct utsname u;
	const char *p;

	uname(&u);
	read_file("/proc/cmdline", cmdline, sizeof(cmdline));
	p = strstr(cmdline, "hwage.release=");
	if (p)
		sscanf(p + strlen("hwage.release="), "%127s", want);
	ktap_diag("uname -r: %s, built: %s", u.release, want[0] ? want : "(not passed)");
	ktap_result(want[0] && !strcmp(u.release, want) && strstr(u.release, "-hwage"),
		    "kernel_is_the_patched_build");
}

static void test_enabled(void)
{
	unsigned long caps = 0;

	if (read_file("/sys/kernel/mm/lru_gen/enabled", buf, sizeof(buf)) > 0)
		caps = strtoul(buf, NULL, 0);
	ktap_diag("/sys/kernel/mm/lru_gen/enabled: 0x%04lx", caps);
	ktap_result(caps & 1, "lru_gen_enabled");
}

/*
 * /sys/kernel/debug/lru_gen prints, per memcg and node, one line per
 * generation: "gen age_ms nr_anon nr_file". A live node has at least
 * MIN_NR_GENS (2) of them.
 */
static void test_debugfs(void)
{
	int memcgs = 0, nodes = 0, gens = 0, short_nodes = 0, node_gens = -1;
	char *line, *save = NULL;

	if (read_file("/sys/kernel/debug/lru_gen", buf, sizeof(buf)) <= 0) {
		ktap_result(0, "debugfs_lru_gen_lists_generations");
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		while (*line == ' ')
			line++;
		if (!strncmp(line, "memcg", 5)) {
			memcgs++;
		} else if (!strncmp(line, "node", 4)) {
			if (node_gens >= 0 && node_gens < 2)
				short_nodes++;
			nodes++;
			node_gens = 0;
		} else if (isdigit((unsigned char)*line)) {
			gens++;
			node_gens++;
		}
	}
	if (node_gens >= 0 && node_gens < 2)
		short_nodes++;
	ktap_diag("lru_gen: %d memcgs, %d nodes, %d generation lines", memcgs, nodes, gens);
	ktap_result(memcgs > 0 && nodes > 0 && !short_nodes,
		    "debugfs_lru_gen_lists_generations");
}

int main(void)
{
	ktap_begin("kernel", 3);
	test_release();
	test_enabled();
	test_debugfs();
	return ktap_end();
}
