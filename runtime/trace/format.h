/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pure half of jr2-trace: the table of traced points as strings, an
 * event to one JSON line, and the lookups the probe needs (kallsyms lines).
 * No system calls here, so it is unit-tested on any kernel.
 */
#ifndef JR2_TRACE_FORMAT_H
#define JR2_TRACE_FORMAT_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "denials.h"

struct jr2_point_info {
	const char *id; /* "file_open" */
	const char *hook; /* Landlock's function: "hook_file_open" */
	const char *security; /* the LSM entry point: "security_file_open" */
	const char *operation;
	enum jr2_target_kind kind;
};

extern const struct jr2_point_info jr2_points[JR2_POINT_COUNT];

/*
 * The traced path of an event: its components come leaf first.  Writes a
 * NUL-terminated absolute path; returns its length, or -1 when it does not
 * fit in size.
 */
int jr2_denial_path(const struct jr2_denial *event, char *out, size_t size);

/*
 * One JSON object for the event, with a newline.  realtime_offset_ns turns
 * the event's monotonic time into wall-clock time.  Returns the length, or
 * -1 when it does not fit in size.
 */
int jr2_denial_json(const struct jr2_denial *event, int64_t realtime_offset_ns,
		    char *out, size_t size);

/*
 * A line of /proc/kallsyms names function `func` when its symbol is `func`
 * or a compiler clone of it (`func.isra.0`); copies the symbol to sym.
 */
bool jr2_ksym_match(const char *line, const char *func, char *sym, size_t size);

/*
 * An audit record's text: "audit(1764503000.123:456): domain=...".  Sets
 * the serial and where the fields begin; false when it is not that shape.
 */
bool jr2_audit_split(const char *text, unsigned long long *serial,
		     const char **fields);

/* The value of `key=` in a record's fields (quotes dropped); false if none. */
bool jr2_audit_field(const char *fields, const char *key, char *value,
		     size_t size);

/*
 * One JSON line for a Landlock audit record (AUDIT_LANDLOCK_ACCESS or
 * AUDIT_LANDLOCK_DOMAIN), with the pid from its SYSCALL record (0: unknown).
 * Returns the length, or -1 when it does not fit.
 */
int jr2_audit_json(int type, unsigned long long serial, const char *fields,
		   int pid, char *out, size_t size);

#endif /* JR2_TRACE_FORMAT_H */
