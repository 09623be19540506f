// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the harness says of itself: the answer to `status` (text or JSON)
 * and the frozen folders its start lines name.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "abi.h"
#include "json.h"
#include "log.h"
#include "serve.h"

/*
 * The folders in which programs can create or remove nothing (the plan's
 * frozen folders, each with why), for the start lines and `status`.
 */
void frozen_folders(char *out, size_t size)
{
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < harness.plan.frozen.n && used + 1 < size; i++)
		used += (size_t)snprintf(
		    out + used, size - used, "%s%s (%s)", i ? "; " : "",
		    harness.plan.frozen.v[i], harness.plan.frozen_why.v[i]);
	if (!out[0])
		snprintf(out, size, "none");
}

struct status_buf {
	char text[8192];
	size_t used;
};

/* Appends for the JSON writer (runtime/json.h); too much sets used past
   the end, as the snprintf()s below do. */
static void status_emit(void *ctx, const char *s, size_t n)
{
	struct status_buf *b = ctx;

	if (b->used + n < sizeof(b->text))
		memcpy(b->text + b->used, s, n);
	b->used += n;
}

void status_reply(struct conn *c, bool json)
{
	struct status_buf sb = {.used = 0};
	char *const buf = sb.text;
	size_t used = 0;
	char abstract[sizeof(harness.abstract_name) + 1];
#define OUT(...)                                                              \
	do {                                                                  \
		if (used < sizeof(sb.text))                                   \
			used += (size_t)snprintf(                             \
			    buf + used, sizeof(sb.text) - used, __VA_ARGS__); \
	} while (0)
	/* The paths and names are bytes: the one JSON writer escapes them. */
#define OUT_STR(key, s)                                                \
	do {                                                           \
		sb.used = used;                                        \
		if (used < sizeof(sb.text))                            \
			jr2_json_member(status_emit, &sb, " ", key, s, \
					strlen(s));                    \
		used = sb.used;                                        \
	} while (0)
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
	{
		char frozen[1024];

		frozen_folders(frozen, sizeof(frozen));
		if (json) {
			OUT(",");
			OUT_STR("frozen_folders", frozen);
		} else {
			OUT("\nfrozen_folders: %s", frozen);
		}
	}
	OUT(json ? ", \"programs\": [" : "\nprograms:");
	for (size_t i = 0; i < harness.n_programs; i++)
		OUT(json ? "%s{\"pid\": %d, \"generation\": %u}" : "%s %d/%u",
		    json && i ? ", " : "", (int)harness.programs[i].pid,
		    harness.programs[i].generation);
	OUT(json ? "]}\n" : "\n");
#undef OUT
#undef OUT_STR
	if (used >= sizeof(sb.text))
		used = sizeof(sb.text) - 1;
	conn_reply(c, "status\n%.*s", (int)used, buf);
	conn_close(c);
}
