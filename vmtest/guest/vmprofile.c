// SPDX-License-Identifier: GPL-2.0-only
/*
 * jr2-vmprofile: where a guest's time goes while a command runs, for
 * `make vmprofile` (vmtest/README.md, PROFILING).  No perf binary in the
 * guest: it samples the cpu-clock software event on every online CPU at
 * 1 kHz (perf_event_open, system-wide), names each sample by the sampled
 * process's command (COMM and FORK records) and, in the kernel, by the
 * function of /proc/kallsyms it falls in, then prints the top entries:
 *
 *   total N samples (1 ms each), kernel K, lost L
 *   by command:           where user and kernel time go, per program name
 *   by kernel function:   the whole guest's kernel time
 *   by command and function
 *
 * A sample lands where interrupts come back on: time spent with them off
 * (a context switch, a spin_unlock_irqrestore) shows under the function that
 * turns them on.  Under TCG the guest's clock is the host's: a loaded host
 * makes everything look slower alike, so read the shares, not the seconds.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROG	     "jr2-vmprofile"
#define MAX_CPUS     64
#define RING_PAGES   1024 /* 4 MiB a CPU: a 20 ms poll never fills it */
#define PID_SLOTS    (1 << 22) /* pid_max's own limit */
#define COUNT_SLOTS  (1 << 17)
#define KEY_SIZE     96
#define KERNEL_SPACE 0xffff800000000000ULL

static const char usage[] =
    "usage: " PROG " [-n TOP] [-o FILE] -- COMMAND [ARG...]\n"
    "Samples every CPU at 1 kHz while COMMAND runs; prints the TOP (default\n"
    "40) commands, kernel functions and command/function pairs to FILE\n"
    "(default stdout).  Exits with COMMAND's status.\n";

struct symbol {
	uint64_t addr;
	char name[64];
};

struct count {
	char key[KEY_SIZE];
	long n;
};

static struct {
	struct symbol *symbols;
	size_t n_symbols;
	struct count *counts; /* open addressing, COUNT_SLOTS */
	size_t n_counts;
	char (*comm)[16]; /* by pid */
	long total, kernel, lost;
} P;

static void __attribute__((noreturn)) die(const char *what, const char *fix)
{
	fprintf(stderr, PROG ": %s: %s%s%s\n", what, strerror(errno),
		fix ? ": " : "", fix ? fix : "");
	exit(125);
}

static int by_addr(const void *a, const void *b)
{
	uint64_t x = ((const struct symbol *)a)->addr;
	uint64_t y = ((const struct symbol *)b)->addr;

	return x < y ? -1 : x > y;
}

/* The kernel's text symbols, sorted; none when kallsyms hides addresses. */
static void load_symbols(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], name[256], type;
	unsigned long long addr;
	size_t cap = 0;

	if (!f)
		die("cannot open /proc/kallsyms", "mount proc");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 ||
		    !addr || (type != 't' && type != 'T'))
			continue;
		if (P.n_symbols == cap) {
			cap = cap ? cap * 2 : 65536;
			P.symbols =
			    realloc(P.symbols, cap * sizeof(*P.symbols));
			if (!P.symbols)
				die("cannot hold the kernel's symbols", NULL);
		}
		P.symbols[P.n_symbols].addr = addr;
		snprintf(P.symbols[P.n_symbols].name, sizeof(P.symbols[0].name),
			 "%.63s", name);
		P.n_symbols++;
	}
	fclose(f);
	qsort(P.symbols, P.n_symbols, sizeof(*P.symbols), by_addr);
}

static const char *symbol_of(uint64_t ip)
{
	size_t lo = 0, hi = P.n_symbols;

	if (!hi || ip < P.symbols[0].addr)
		return "(unknown)";
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (P.symbols[mid].addr <= ip)
			lo = mid;
		else
			hi = mid;
	}
	return P.symbols[lo].name;
}

static void count(const char *key)
{
	size_t h = 5381;

	for (const char *k = key; *k; k++)
		h = h * 33 + (unsigned char)*k;
	for (h &= COUNT_SLOTS - 1; P.counts[h].n;
	     h = (h + 1) & (COUNT_SLOTS - 1))
		if (!strcmp(P.counts[h].key, key)) {
			P.counts[h].n++;
			return;
		}
	if (P.n_counts + 1 >= COUNT_SLOTS) /* full: the rest is uncounted */
		return;
	snprintf(P.counts[h].key, KEY_SIZE, "%s", key);
	P.counts[h].n = 1;
	P.n_counts++;
}

/* A pid not seen fork or exec: started before the profile; ask /proc. */
static const char *comm_of(uint32_t pid)
{
	char *comm = P.comm[pid % PID_SLOTS];
	char path[64];
	FILE *f;

	if (comm[0])
		return comm;
	snprintf(comm, 16, "%s", pid ? "?" : "(idle)");
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	if (pid && (f = fopen(path, "re"))) {
		if (fgets(comm, 16, f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	return comm;
}

/* The records of one CPU's ring since the last call. */
static void drain(struct perf_event_mmap_page *page)
{
	const size_t size = RING_PAGES * (size_t)getpagesize();
	const uint8_t *data = (const uint8_t *)page + getpagesize();
	uint64_t head = __atomic_load_n(&page->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = page->data_tail;
	char key[KEY_SIZE];

	while (tail < head) {
		union {
			struct perf_event_header h;
			uint8_t bytes[512];
		} r;
		size_t len;

		for (size_t i = 0; i < sizeof(r.h); i++)
			r.bytes[i] = data[(tail + i) % size];
		len = r.h.size < sizeof(r) ? r.h.size : sizeof(r);
		for (size_t i = sizeof(r.h); i < len; i++)
			r.bytes[i] = data[(tail + i) % size];
		tail += r.h.size;
		if (r.h.type == PERF_RECORD_SAMPLE) {
			/* PERF_SAMPLE_IP | PERF_SAMPLE_TID */
			uint64_t ip;
			uint32_t pid;
			const char *comm;

			memcpy(&ip, r.bytes + 8, sizeof(ip));
			memcpy(&pid, r.bytes + 16, sizeof(pid));
			comm = comm_of(pid);
			P.total++;
			if (ip >= KERNEL_SPACE) {
				P.kernel++;
				snprintf(key, sizeof(key), "K %s",
					 symbol_of(ip));
				count(key);
				snprintf(key, sizeof(key), "C %s [kernel]",
					 comm);
				count(key);
				snprintf(key, sizeof(key), "S %s %s", comm,
					 symbol_of(ip));
				count(key);
			} else {
				snprintf(key, sizeof(key), "C %s [user]", comm);
				count(key);
			}
		} else if (r.h.type == PERF_RECORD_COMM) {
			uint32_t pid;

			memcpy(&pid, r.bytes + 8, sizeof(pid));
			snprintf(P.comm[pid % PID_SLOTS], 16, "%.15s",
				 (const char *)r.bytes + 16);
		} else if (r.h.type == PERF_RECORD_FORK) {
			uint32_t pid, ppid;

			memcpy(&pid, r.bytes + 8, sizeof(pid));
			memcpy(&ppid, r.bytes + 12, sizeof(ppid));
			memcpy(P.comm[pid % PID_SLOTS], comm_of(ppid), 16);
		} else if (r.h.type == PERF_RECORD_LOST) {
			uint64_t lost;

			memcpy(&lost, r.bytes + 16, sizeof(lost));
			P.lost += (long)lost;
		}
	}
	__atomic_store_n(&page->data_tail, tail, __ATOMIC_RELEASE);
}

static int by_count(const void *a, const void *b)
{
	long x = ((const struct count *)a)->n, y = ((const struct count *)b)->n;

	return x < y ? 1 : x > y ? -1 : 0;
}

static void report(FILE *out, int top)
{
	static const struct {
		char kind;
		const char *title;
	} parts[] = {{'C', "by command"},
		     {'K', "by kernel function"},
		     {'S', "by command and kernel function"}};

	qsort(P.counts, COUNT_SLOTS, sizeof(*P.counts), by_count);
	fprintf(out, "total %ld samples (1 ms each), kernel %ld, lost %ld\n",
		P.total, P.kernel, P.lost);
	for (size_t p = 0; p < sizeof(parts) / sizeof(parts[0]); p++) {
		int shown = 0;

		fprintf(out, "%s:\n", parts[p].title);
		for (size_t i = 0; i < COUNT_SLOTS && P.counts[i].n; i++) {
			if (P.counts[i].key[0] != parts[p].kind ||
			    shown++ >= top)
				continue;
			fprintf(out, "%8ld %5.1f%% %s\n", P.counts[i].n,
				100.0 * (double)P.counts[i].n /
				    (double)(P.total ? P.total : 1),
				P.counts[i].key + 2);
		}
	}
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr = {
	    .type = PERF_TYPE_SOFTWARE,
	    .size = sizeof(attr),
	    .config = PERF_COUNT_SW_CPU_CLOCK,
	    .sample_period = 1000000, /* ns: 1 kHz */
	    .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
	    .disabled = 1,
	    .comm = 1,
	    .task = 1,
	};
	struct perf_event_mmap_page *rings[MAX_CPUS];
	int fds[MAX_CPUS], n_cpus = 0, top = 40, opt, status;
	const char *out_path = NULL;
	FILE *out = stdout;
	pid_t child;

	while ((opt = getopt(argc, argv, "+n:o:h")) != -1) {
		if (opt == 'n')
			top = atoi(optarg);
		else if (opt == 'o')
			out_path = optarg;
		else {
			fputs(usage, opt == 'h' ? stdout : stderr);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (optind >= argc) {
		fputs(usage, stderr);
		return 2;
	}
	if (out_path && !(out = fopen(out_path, "we")))
		die("cannot write the report", out_path);
	P.comm = calloc(PID_SLOTS, sizeof(*P.comm));
	P.counts = calloc(COUNT_SLOTS, sizeof(*P.counts));
	if (!P.comm || !P.counts)
		die("cannot hold the counts", NULL);
	load_symbols();
	for (long cpu = 0;
	     cpu < sysconf(_SC_NPROCESSORS_ONLN) && cpu < MAX_CPUS; cpu++) {
		size_t len = (RING_PAGES + 1) * (size_t)getpagesize();
		int fd = (int)syscall(SYS_perf_event_open, &attr, -1, (int)cpu,
				      -1, PERF_FLAG_FD_CLOEXEC);

		if (fd < 0)
			die("perf_event_open(cpu-clock, every process)",
			    "the kernel needs CONFIG_PERF_EVENTS, and root");
		rings[n_cpus] =
		    mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (rings[n_cpus] == MAP_FAILED)
			die("cannot map the sample ring", NULL);
		fds[n_cpus++] = fd;
	}
	child = fork();
	if (child < 0)
		die("fork", NULL);
	if (child == 0) {
		execvp(argv[optind], argv + optind);
		die("cannot run the command", "check its name and PATH");
	}
	for (int i = 0; i < n_cpus; i++)
		ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0);
	for (;;) {
		pid_t done = waitpid(child, &status, WNOHANG);

		for (int i = 0; i < n_cpus; i++)
			drain(rings[i]);
		if (done == child)
			break;
		poll(NULL, 0, 20);
	}
	report(out, top);
	if (out != stdout)
		fclose(out);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
