// SPDX-License-Identifier: GPL-2.0
/*
 * The counter device taken away while counter aging runs: a memory cgroup
 * at three times its limit swaps and verifies its pages with counter aging
 * on, and the hca-emu driver is unbound from its device (what PCI
 * hot-unplug does to a driver) and bound again, three times. After each
 * unbind the backend is gone (the multi-gen LRU goes on without counts),
 * after each bind it is back; every page reads back intact and reclaim
 * went on throughout. A bind that the driver refuses is tried again, up to
 * 40 times: under hwage.hca=chaos the table's header is being overwritten
 * part of the time, and the driver rightly refuses it then.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "hca.h"
#include "ktap.h"
#include "util.h"
#include "vload.h"

#define DRV "/sys/bus/pci/drivers/hca-emu/"
#define CG CG_ROOT "/hwage-t20"
#define LIMIT_MB 32
#define TOUCH_MB 96
#define ROUNDS 3
#define BIND_TRIES 40

/* the PCI address of the device hca-emu is bound to, or -1 */
static int bound_device(char *dev, size_t size)
{
	struct dirent *d;
	DIR *dp = opendir(DRV);
	int ret = -1;

	while (dp && (d = readdir(dp)))
		if (!strncmp(d->d_name, "0000:", 5) && ret) {
			snprintf(dev, size, "%s", d->d_name);
			ret = 0;
		}
	if (dp)
		closedir(dp);
	return ret;
}

int main(void)
{
	int i, tries, gone = 0, back = 0;
	long long out0;
	char dev[256];
	pid_t load;

	ktap_begin("unbind", 5);
	if (bound_device(dev, sizeof(dev)) || access(HCA_BACKEND, F_OK)) {
		ktap_skip("device_bound", "no counter device bound to hca-emu");
		ktap_skip("unbind_removes_the_backend", "no counter device");
		ktap_skip("bind_brings_it_back", "no counter device");
		ktap_skip("every_page_intact", "no counter device");
		ktap_skip("reclaim_went_on", "no counter device");
		return ktap_end();
	}
	ktap_diag("hca-emu is bound to %s", dev);
	ktap_result(1, "device_bound");

	if (setup_zram_swap(256) || cg_create(CG, (long long)LIMIT_MB << 20) ||
	    hca_counts(1)) {
		ktap_diag("no swap, cgroup or counter aging switch");
		return ktap_end();
	}
	out0 = vmstat("pswpout");
	load = vload_start(CG, TOUCH_MB);
	for (i = 0; i < ROUNDS && load > 0; i++) {
		sleep(1);
		if (!write_file(DRV "unbind", dev) && access(HCA_BACKEND, F_OK))
			gone++;
		sleep(1);
		/* under hwage.hca=chaos the probe may meet a header being overwritten */
		for (tries = 0; tries < BIND_TRIES && access(HCA_BACKEND, F_OK); tries++) {
			if (tries)
				usleep(50000);
			write_file(DRV "bind", dev);
		}
		if (!access(HCA_BACKEND, F_OK))
			back++;
		if (tries > 1)
			ktap_diag("bind %d: %d tries", i + 1, tries);
	}
	ktap_diag("%d unbinds removed the backend, %d binds brought it back, of %d",
		  gone, back, ROUNDS);
	ktap_result(gone == ROUNDS, "unbind_removes_the_backend");
	ktap_result(back == ROUNDS, "bind_brings_it_back");
	ktap_result(!vload_stop(load), "every_page_intact");
	ktap_diag("pswpout +%lld", vmstat("pswpout") - out0);
	ktap_result(vmstat("pswpout") > out0, "reclaim_went_on");
	rmdir(CG);
	return ktap_end();
}
