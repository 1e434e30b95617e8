#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host test: make test's boot step (harness/boot-test.sh, which runs
# harness/run-guest.sh and scores the log) on boots that cannot start, in a
# private cache holding a previous boot's passing log, its link and its
# ground truth. Each must fail with a line naming its cause, and nothing of
# the previous boot may be scored. No kernel is needed: the kernel and the
# initramfs are empty files, the plugin build is broken by a bad header.
# Then a guest whose init stalls, played by a fake QEMU.
set -u
here=$(cd "$(dirname "$0")" && pwd)
H=$here/../../harness
. "$H/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ktap_plan 16
# the empty "kernel" below is a production one, whatever flavour the
# caller (make test: debug) boots
export HWAGE_KERNEL=prod

C=$tmp/cache
old=guest-x86_64-test-hca-on-20250101-000000.log
# fresh_cache: a cache with a "kernel", an "initramfs", a plugin header
# that cannot compile, and a previous boot that passed.
fresh_cache() {
	rm -rf "$C"
	mkdir -p "$C/build-x86_64/arch/x86/boot" "$C/guest-x86_64" "$C/emulator/include" "$C/logs"
	: >"$C/build-x86_64/arch/x86/boot/bzImage"
	: >"$C/guest-x86_64/initramfs.cpio"
	: >"$C/guest-x86_64/initramfs-test.cpio"
	echo '#error "the plugin header is broken on purpose (tests/host/boot-step.sh)"' \
		>"$C/emulator/include/qemu-plugin.h"
	cp "$here/fixtures/clean-run.log" "$C/logs/$old"
	printf '# hwage hca ground truth\n16 5\n' >"$C/logs/$old.truth.1"
	cp "$C/logs/$old.truth.1" "$C/logs/$old.truth.2"
	for l in -hca-on -hca-badmagic -hca-badsize ""; do
		ln -s "$old" "$C/logs/guest-x86_64-test$l.log"
	done
}

# boot SCENARIO [ARCH]: the boot step in the private cache, with none of
# the caller's settings; output in $out, exit status in $rc.
boot() {
	out=$(env -u HWAGE_LOG -u HWAGE_CMDLINE -u HWAGE_QEMU_ARGS -u HWAGE_HCA_OPTS \
		-u HWAGE_HCA_SAMPLE -u HWAGE_HCA_DECAY -u HWAGE_HCA_TRUTH \
		HWAGE_CACHE="$C" HWAGE_LOGS="$C/logs" HWAGE_TIMEOUT=30 \
		bash "$H/boot-test.sh" "${2:-x86_64}" "$1" 2>&1)
	rc=$?
}

# not_scored: nothing of the previous boot shows in $out.
not_scored() {
	! grep -q -e "$old" -e t10-hca -e t13-truth -e ' 13 passed' <<<"$out"
}

# 1. The plugin does not build (hca=on): the boot fails naming the plugin.
fresh_cache
boot on
[ "$rc" != 0 ]
ktap_ok plugin_build_failure_fails_the_boot $? "boot-test.sh exited with $rc" "$out"
grep -q '^  FAIL x86_64/hca=on: boot did not start: the counter plugin did not build' <<<"$out" &&
	[ "$(tail -n 1 <<<"$out")" = "x86_64/hca=on: 0 passed, 1 failed, 0 skipped" ] &&
	[ "$(grep -c '^x86_64/hca=on: [0-9]* passed' <<<"$out")" = 1 ]
ktap_ok plugin_build_failure_names_the_plugin $? "$out"
not_scored
ktap_ok plugin_build_failure_scores_no_earlier_log $? "$out"
# the compiler's complaint is in this boot's log, for whoever reads it
new=$(readlink "$C/logs/guest-x86_64-test-hca-on.log")
[ "$new" != "$old" ] && grep -q 'broken on purpose' "$C/logs/$new" && [ ! -e "$C/logs/$new.truth" ]
ktap_ok plugin_build_failure_log_says_why $? "link -> $new" "$(cat "$C/logs/$new" 2>&1)"

# 2. QEMU does not start (the "kernel" is an empty file), no plugin.
fresh_cache
if command -v qemu-system-x86_64 >/dev/null; then
	boot off
	[ "$rc" != 0 ] &&
		grep -q "^  FAIL guest never started (no 'hwage-init: mode' line): qemu exited with status 1" <<<"$out" &&
		grep -q '^x86_64/hca=off: [0-9]* passed, [1-9][0-9]* failed' <<<"$out"
	ktap_ok qemu_failure_names_qemu $? "boot-test.sh exited with $rc" "$out"
	not_scored
	ktap_ok qemu_failure_scores_no_earlier_log $? "$out"
else
	ktap_skip qemu_failure_names_qemu "qemu-system-x86_64 is not installed"
	ktap_skip qemu_failure_scores_no_earlier_log "qemu-system-x86_64 is not installed"
fi

# 3. No kernel at all.
fresh_cache
rm "$C/build-x86_64/arch/x86/boot/bzImage"
boot badmagic
[ "$rc" != 0 ] && grep -q '^  FAIL x86_64/hca=badmagic: boot did not start: no x86_64 kernel at' <<<"$out"
ktap_ok missing_kernel_names_it $? "$out"
not_scored
ktap_ok missing_kernel_scores_no_earlier_log $? "$out"

# 4. Harness-owned plugin options are refused before anything is built.
fresh_cache
out=$(HWAGE_CACHE="$C" HWAGE_LOGS="$C/logs" HWAGE_LOG="$C/logs/opts.log" HWAGE_HCA=on \
	HWAGE_HCA_OPTS=lines=off,truth=/elsewhere bash "$H/run-guest.sh" x86_64 test 2>&1)
rc=$?
[ "$rc" != 0 ] && grep -q '^hwage-host: boot did not start: HWAGE_HCA_OPTS: truth= is set by the harness' "$C/logs/opts.log"
ktap_ok harness_options_refused $? "$out" "$(cat "$C/logs/opts.log" 2>&1)"

# 5. What an earlier boot left at the log path given is removed first.
fresh_cache
printf 'hwage-init: mode test\nhwage-init: tests done, 0 failed\n' >"$C/logs/reused.log"
: >"$C/logs/reused.log.truth.1"
out=$(HWAGE_CACHE="$C" HWAGE_LOGS="$C/logs" HWAGE_LOG="$C/logs/reused.log" HWAGE_HCA=nosuch \
	bash "$H/run-guest.sh" x86_64 test 2>&1)
[ "$(cat "$C/logs/reused.log")" = "hwage-host: boot did not start: unknown HWAGE_HCA=nosuch (off, on, chaos, badmagic, badsize, badtable)" ] &&
	[ ! -e "$C/logs/reused.log.truth.1" ]
ktap_ok earlier_files_at_the_log_path_removed $? "$(ls "$C/logs")" "$(cat "$C/logs/reused.log")"

# 6. A bad disk size or DIMM size stops the boot naming the setting, and
# leaves no disk image or monitor FIFO behind.
fresh_cache
out=$(HWAGE_CACHE="$C" HWAGE_LOGS="$C/logs" HWAGE_LOG="$C/logs/disk.log" HWAGE_DISK=lots \
	bash "$H/run-guest.sh" x86_64 test 2>&1)
rc=$?
[ "$rc" != 0 ] && grep -q '^hwage-host: boot did not start: HWAGE_DISK=lots: want a size of at least 64M' "$C/logs/disk.log" &&
	! ls "$C"/disk-* >/dev/null 2>&1
ktap_ok bad_disk_size_refused $? "$out" "$(cat "$C/logs/disk.log" 2>&1)"
out=$(HWAGE_CACHE="$C" HWAGE_LOGS="$C/logs" HWAGE_LOG="$C/logs/hp.log" HWAGE_HOTPLUG=100M \
	bash "$H/run-guest.sh" x86_64 test 2>&1)
rc=$?
[ "$rc" != 0 ] && grep -q '^hwage-host: boot did not start: HWAGE_HOTPLUG=100M: want a multiple of 128M' "$C/logs/hp.log" &&
	! ls "$C/logs"/hp.log.mon* >/dev/null 2>&1
ktap_ok bad_dimm_size_refused $? "$out" "$(cat "$C/logs/hp.log" 2>&1)"

# 7. Init stalls: a fake qemu-system-x86_64 (first on PATH) whose "kernel"
# runs /init and then prints nothing, and which answers QMP as QEMU does
# and quits when told. run-guest.sh must stop it after HWAGE_INIT_STALL
# seconds, with the vCPUs' state in the log, and exit 125; boot-test.sh
# must boot once more and fail on the second stall, naming both logs.
fresh_cache
mkdir -p "$tmp/bin"
cat >"$tmp/bin/qemu-system-x86_64" <<'EOF'
#!/usr/bin/env python3
import json, os, socket, sys, time
if "-qmp" not in sys.argv:
    print("[    1.000000] Run /init as init process", flush=True)
    while True:
        time.sleep(1)
path = sys.argv[sys.argv.index("-qmp") + 1][len("unix:"):].split(",")[0]
srv = socket.socket(socket.AF_UNIX)
srv.bind(path)
srv.listen(1)
print("[    1.000000] Run /init as init process", flush=True)
while True:
    c, _ = srv.accept()
    f = c.makefile("rw")
    f.write('{"QMP": {"version": {}, "capabilities": []}}\n')
    f.flush()
    for line in f:
        req = json.loads(line)
        cmd = req.get("arguments", {}).get("command-line", "")
        if req["execute"] == "quit" or cmd == "quit":
            print("fake qemu: quit", flush=True)
            os._exit(0)
        f.write(json.dumps({"return": "fake answer to " + cmd + "\r\n"}) + "\n")
        f.flush()
    c.close()
EOF
chmod +x "$tmp/bin/qemu-system-x86_64"
t0=$SECONDS
out=$(PATH="$tmp/bin:$PATH" HWAGE_CACHE="$C" HWAGE_LOGS="$C/logs" HWAGE_LOG="$C/logs/stall.log" \
	HWAGE_INIT_STALL=1 bash "$H/run-guest.sh" x86_64 test 2>&1)
rc=$?
log=$(cat "$C/logs/stall.log" 2>&1)
[ "$rc" = 125 ] && [ $((SECONDS - t0)) -lt 25 ] &&
	grep -q '^hwage-host: init stalled: the kernel ran /init 1s ago and init has printed nothing$' <<<"$log" &&
	grep -q '^hwage-qmp: fake answer to info registers -a' <<<"$log" &&
	grep -q '^fake qemu: quit' <<<"$log" &&
	[ "$(tail -n 1 <<<"$log")" = "hwage-host: init stalled: it printed nothing in 1s after the kernel ran it; QEMU stopped after $(sed -n 's/.*QEMU stopped after \([0-9]*s\).*/\1/p' <<<"$log" | tail -n 1) (the guest's state is in the log above)" ] &&
	[ ! -e "$C/logs/stall.log.stalled" ] && [ ! -e "$C/logs/stall.log.ended" ]
ktap_ok init_stall_stops_qemu_with_its_state $? "exit $rc after $((SECONDS - t0))s" "$out" "$log"
res=$(awk -v label=x86_64/hca=off -v rc="$rc" -f "$H/ktap-summary.awk" "$C/logs/stall.log")
grep -q "^  FAIL guest never started (no 'hwage-init: mode' line): init stalled: the kernel ran /init" <<<"$res"
ktap_ok init_stall_scored_as_a_stall $? "$res"
fresh_cache
PATH="$tmp/bin:$PATH" HWAGE_INIT_STALL=1 boot off
first=$(sed -n 's/.*init stalled right after the kernel ran it (cause unknown; log with the guest.s state kept: \(.*\)): booting again (1 of 2)$/\1/p' <<<"$out")
[ "$rc" != 0 ] && [ -n "$first" ] && grep -q '^hwage-host: init stalled' "$first" &&
	grep -q "^  note: an earlier boot of x86_64/hca=off stalled after the kernel ran /init and was tried again; its log: $first$" <<<"$out" &&
	grep -q "^  FAIL guest never started (no 'hwage-init: mode' line): init stalled" <<<"$out" &&
	[ "$(grep -c 'booting again' <<<"$out")" = 1 ] &&
	grep -q '^x86_64/hca=off: [0-9]* passed, [1-9][0-9]* failed' <<<"$out"
ktap_ok init_stall_booted_again_once $? "exit $rc" "$out"
# with the check off, the same guest runs into the timeout
fresh_cache
out=$(PATH="$tmp/bin:$PATH" HWAGE_CACHE="$C" HWAGE_LOGS="$C/logs" HWAGE_LOG="$C/logs/off.log" \
	HWAGE_INIT_STALL=0 HWAGE_TIMEOUT=4 bash "$H/run-guest.sh" x86_64 test 2>&1)
rc=$?
[ "$rc" = 124 ] && ! grep -q 'init stalled' "$C/logs/off.log" &&
	! grep -q -- '-qmp' "$C/logs/off.log.cmd"
ktap_ok init_stall_check_off $? "exit $rc" "$out" "$(cat "$C/logs/off.log" 2>&1)"
ktap_done
