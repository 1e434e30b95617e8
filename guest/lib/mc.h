/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memcached in the guest: bring the loopback interface up, start Debian's
 * memcached (unpacked into the initramfs by harness/mkinitramfs.sh) in a
 * memory cgroup, wait until it listens, stop it.
 *
 * Messages go to stderr as '#' lines, so that they read as KTAP
 * diagnostics when a test prints them. memcached's own stdout and stderr
 * go to /dev/console.
 */
#ifndef HWAGE_MC_H
#define HWAGE_MC_H

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "util.h"

#define MC_BIN "/usr/bin/memcached"
/* seconds mc_start() waits for the port (TCG guests with the plugin are slow) */
#define MC_START_TIMEOUT 60
/* seconds mc_stop() waits after SIGTERM before SIGKILL */
#define MC_STOP_TIMEOUT 30

/* lo_up(): bring "lo" up (SIOCSIFFLAGS IFF_UP); 0 or -errno. */
static inline int lo_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = 0;

	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) {
		ret = -errno;
	} else if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
			ret = -errno;
	}
	close(fd);
	return ret;
}

/* mc__accepts(): does 127.0.0.1:port accept a TCP connection? */
static inline int mc__accepts(int port)
{
	struct sockaddr_in sa;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ok;

	if (fd < 0)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return ok;
}

/*
 * mc_start(): fork and exec
 *   memcached -u root -U 0 -l 127.0.0.1 -p PORT -m CACHE_MB -t 2
 * in cgroup_dir (the child writes "0" to its cgroup.procs before the exec;
 * NULL: stay in ours), and wait until the port accepts a connection.
 * Returns memcached's pid, or -1 with a message (the child is reaped).
 */
static inline pid_t mc_start(const char *cgroup_dir, int port, int cache_mb)
{
	char sport[16], smb[16];
	double t0 = now_s();
	int status;
	pid_t pid;

	snprintf(sport, sizeof(sport), "%d", port);
	snprintf(smb, sizeof(smb), "%d", cache_mb);
	if (mc__accepts(port)) {
		fprintf(stderr, "# mc_start: port %d is already taken\n", port);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "# mc_start: fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int fd, ret = cgroup_dir ? cg_enter(cgroup_dir) : 0;

		if (ret) {
			fprintf(stderr, "# mc_start: cannot join %s: %s\n", cgroup_dir,
				strerror(-ret));
			_exit(126);
		}
		fd = open("/dev/console", O_WRONLY);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
		execl(MC_BIN, MC_BIN, "-u", "root", "-U", "0", "-l", "127.0.0.1", "-p", sport,
		      "-m", smb, "-t", "2", (char *)NULL);
		fprintf(stderr, "# mc_start: exec %s: %s\n", MC_BIN, strerror(errno));
		_exit(127);
	}
	while (!mc__accepts(port)) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid) {
			if (WIFEXITED(status))
				fprintf(stderr, "# mc_start: memcached exited with status %d before "
					"listening on port %d\n", WEXITSTATUS(status), port);
			else
				fprintf(stderr, "# mc_start: memcached killed by signal %d before "
					"listening on port %d\n", WTERMSIG(status), port);
			return -1;
		}
		if (now_s() - t0 > MC_START_TIMEOUT) {
			fprintf(stderr, "# mc_start: memcached (pid %d) not listening on port %d "
				"after %d s, killing it\n", (int)pid, port, MC_START_TIMEOUT);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		usleep(50000);
	}
	return pid;
}

/* mc_stop(): SIGTERM, wait (SIGKILL after MC_STOP_TIMEOUT seconds). */
static inline void mc_stop(pid_t pid)
{
	double t0 = now_s();
	int status;

	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid || (r < 0 && errno != EINTR))
			return;
		if (now_s() - t0 > MC_STOP_TIMEOUT) {
			fprintf(stderr, "# mc_stop: memcached (pid %d) ignored SIGTERM for %d s, "
				"killing it\n", (int)pid, MC_STOP_TIMEOUT);
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			return;
		}
		usleep(20000);
	}
}

#endif
