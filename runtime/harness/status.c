// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the harness says of itself: the answer to `status` (text or JSON)
 * and the frozen folders its start lines name.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abi.h"
#include "json.h"
#include "log.h"
#include "policy_internal.h"
#include "serve.h"

/*
 * The folders in which programs can create or remove nothing (the plan's
 * frozen folders, each with why), for the start lines.  What does not fit
 * is cut at a folder's end and said: "and N more".
 */
void frozen_folders(char *out, size_t size)
{
	size_t used = 0, n = harness.plan.frozen.n;

	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		char more[64];
		int len = snprintf(out + used, size - used, "%s%s (%s)",
				   i ? "; " : "", harness.plan.frozen.v[i],
				   harness.plan.frozen_why.v[i]);

		snprintf(more, sizeof(more), "; and %zu more (see status)",
			 n - i);
		/* Room for this one, and for the note on those after it. */
		if (len >= 0 &&
		    used + (size_t)len + (i + 1 < n ? strlen(more) : 0) <
			size) {
			used += (size_t)len;
			continue;
		}
		out[used] = '\0';
		if (used + strlen(more) < size)
			snprintf(out + used, size - used, "%s",
				 i ? more : more + 2);
		break;
	}
	if (!out[0])
		snprintf(out, size, "none");
}

/* The answer, grown as it needs: nothing in it is cut. */
struct status_buf {
	char *text;
	size_t used, cap;
};

static void status_emit(void *ctx, const char *s, size_t n)
{
	struct status_buf *b = ctx;

	if (b->used + n + 1 > b->cap) {
		while (b->used + n + 1 > b->cap)
			b->cap = b->cap ? b->cap * 2 : 4096;
		b->text = jr2_xrealloc(b->text, b->cap);
	}
	memcpy(b->text + b->used, s, n);
	b->used += n;
	b->text[b->used] = '\0';
}

static void status_printf(struct status_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void status_printf(struct status_buf *b, const char *fmt, ...)
{
	char small[512], *big = NULL;
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (len < 0)
		return;
	if ((size_t)len < sizeof(small)) {
		status_emit(b, small, (size_t)len);
		return;
	}
	va_start(ap, fmt);
	len = vasprintf(&big, fmt, ap);
	va_end(ap);
	if (len < 0)
		jr2_xrealloc(NULL, SIZE_MAX); /* out of memory: the one line */
	status_emit(b, big, (size_t)len);
	free(big);
}

char *status_answer(bool json, size_t *len)
{
	struct status_buf sb = {0};
	char abstract[sizeof(harness.abstract_name) + 1];
#define OUT(...) status_printf(&sb, __VA_ARGS__)
	/* The paths and names are bytes: the one JSON writer escapes them. */
#define OUT_STR(key, s) \
	jr2_json_member(status_emit, &sb, " ", key, s, strlen(s))
	snprintf(abstract, sizeof(abstract), "@%s", harness.abstract_name);
	if (json) {
		OUT("{\"harness_pid\": %d, ", (int)getpid());
		OUT_STR("protected_dir", harness.protected_dir);
		OUT(", \"abi\": %d, \"spawner_pid\": %d, \"spawner_ready\": "
		    "%s, \"generation\": %u, \"log_lines_dropped\": %lu, ",
		    harness.abi.in_force, (int)harness.spawner_pid,
		    harness.spawner_ready ? "true" : "false",
		    harness.generation, jr2_log_dropped());
		OUT("\"harness_process_pid\": %d, ", (int)harness.process_pid);
		OUT_STR("abstract_socket", abstract);
	} else {
		OUT("harness_pid: %d\nprotected_dir: %s\nabi: %d\nspawner_pid: "
		    "%d\nspawner_ready: %s\ngeneration: %u\nlog_lines_dropped: "
		    "%lu\nharness_process_pid: %d\nabstract_socket: %s",
		    (int)getpid(), harness.protected_dir, harness.abi.in_force,
		    (int)harness.spawner_pid,
		    harness.spawner_ready ? "true" : "false",
		    harness.generation, jr2_log_dropped(),
		    (int)harness.process_pid, abstract);
	}
	for (int pass = 0; pass < 2; pass++) {
		bool first = true;

		OUT(json ? ", \"%s\": [" : "\n%s:",
		    pass ? "unavailable" : "enforced");
		for (int f = 0; f < JR2_FEAT_COUNT; f++) {
			if (jr2_abi_has(&harness.abi, f) == (pass == 1))
				continue;
			OUT(json ? "%s\"%s\"" : " %s%s",
			    json && !first ? ", " : "", jr2_features[f].name);
			first = false;
		}
		OUT(json ? "]" : "");
	}
	/* Every frozen folder, whole (the start lines may cut the list). */
	{
		struct status_buf fb = {0};

		for (size_t i = 0; i < harness.plan.frozen.n; i++)
			status_printf(&fb, "%s%s (%s)", i ? "; " : "",
				      harness.plan.frozen.v[i],
				      harness.plan.frozen_why.v[i]);
		if (!fb.used)
			status_printf(&fb, "none");
		if (json) {
			OUT(",");
			OUT_STR("frozen_folders", fb.text);
		} else {
			OUT("\nfrozen_folders: %s", fb.text);
		}
		free(fb.text);
	}
	OUT(json ? ", \"programs\": [" : "\nprograms:");
	for (size_t i = 0; i < harness.n_programs; i++)
		OUT(json ? "%s{\"pid\": %d, \"generation\": %u, \"id\": %lu}"
			 : "%s %d/%u",
		    json && i ? ", " : "", (int)harness.programs[i].pid,
		    harness.programs[i].generation, harness.programs[i].id);
	OUT(json ? "]}\n" : "\n");
#undef OUT
#undef OUT_STR
	{
		struct status_buf answer = {0};

		status_printf(&answer, "status\n");
		status_emit(&answer, sb.text, sb.used);
		free(sb.text);
		*len = answer.used;
		return answer.text;
	}
}
