// SPDX-License-Identifier: GPL-2.0
/*
 * The booted kernel is the patched one, and MGLRU is on and visible.
 *
 * The host passes the release it built as hwage.release= on the kernel
 * command line; uname must report exactly that.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "ktap.h"
#include "lru_gen.h"
#include "util.h"

static void test_release(void)
{
	const char *want = kparam("release", "");
	struct utsname u;

	uname(&u);
	ktap_diag("uname -r: %s, built: %s", u.release, want[0] ? want : "(not passed)");
	ktap_result(want[0] && !strcmp(u.release, want) && strstr(u.release, "-hwage"),
		    "kernel_is_the_patched_build");
}

static void test_enabled(void)
{
	unsigned long caps = 0;
	char buf[64];

	if (read_file("/sys/kernel/mm/lru_gen/enabled", buf, sizeof(buf)) > 0)
		caps = strtoul(buf, NULL, 0);
	ktap_diag("/sys/kernel/mm/lru_gen/enabled: 0x%04lx", caps);
	ktap_result(caps & 1, "lru_gen_enabled");
}

/*
 * /sys/kernel/debug/lru_gen lists, per memcg and node, one line per
 * generation; a live node has at least MIN_NR_GENS (2) of them.
 */
static void test_debugfs(void)
{
	struct lru_gen_scan s;

	if (lru_gen_scan(LRU_GEN, NULL, -1, -1, &s)) {
		ktap_diag("cannot read " LRU_GEN);
		ktap_result(0, "debugfs_lru_gen_lists_generations");
		return;
	}
	ktap_diag("lru_gen: %d memcgs, %d nodes, %d generation lines, %d nodes with fewer than 2",
		  s.memcgs, s.nodes, s.gens, s.short_nodes);
	ktap_result(s.memcgs > 0 && s.nodes > 0 && !s.short_nodes,
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
