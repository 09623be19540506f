/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The independent check (ABI 7+): Landlock's own audit records
 * (AUDIT_LANDLOCK_ACCESS with blockers=, AUDIT_LANDLOCK_DOMAIN), read from
 * the audit netlink multicast group, so no audit daemon is displaced.
 * Audit is switched on for the run when it is off, and switched back.
 */
#ifndef JR2_TRACE_AUDIT_H
#define JR2_TRACE_AUDIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JR2_AUDIT_PENDING 64

struct jr2_audit_record {
	unsigned long long serial;
	int type;
	char text[1024];
};

struct jr2_audit {
	int fd;
	bool enabled_by_us; /* audit was off: switch it off again at close */
	struct jr2_audit_record pending[JR2_AUDIT_PENDING];
	int n_pending;
	unsigned long long records;
};

/* Returns 0, or -errno with a sentence in err. */
int jr2_audit_open(struct jr2_audit *audit, char *err, size_t size);
/* Reads what has arrived (waits at most timeout_ms); JSON lines to out. */
int jr2_audit_read(struct jr2_audit *audit, FILE *out, int timeout_ms);
/* Prints what waits for its SYSCALL record, restores audit, closes. */
void jr2_audit_close(struct jr2_audit *audit, FILE *out);

#endif /* JR2_TRACE_AUDIT_H */
