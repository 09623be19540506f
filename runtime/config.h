/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The config files of jr2 (jr2-confine --config and jr2-harness serve
 * --config): one reader, one text check and one reader of the policy lines,
 * so that both programs accept and refuse the same files.
 *
 * Text: no NUL byte, no line longer than JR2_CONFIG_LINE_MAX bytes, and only
 * text: UTF-8 without control characters but tab, CR and LF.
 * Policy lines:
 *   protect PATH      a protected dir (nothing in it but list)
 *   read-only PATH    a read-only tree (read, execute, list)
 * PATH is the rest of the line (spaces kept, surrounding blanks dropped).
 */
#ifndef JR2_CONFIG_H
#define JR2_CONFIG_H

#include <stddef.h>

#include "policy.h"

#define JR2_CONFIG_MAX_SIZE (1 << 20)
/* A PATH_MAX path after the longest directive, with room to spare. */
#define JR2_CONFIG_LINE_MAX 4200

/* 0, or -1 with *err naming the file, the line, the byte and the fix. */
int jr2_config_check_text(const char *text, size_t len, const char *name,
			  struct jr2_err *err);

/*
 * Reads a config file (a regular file of at most JR2_CONFIG_MAX_SIZE bytes)
 * and checks its text.  Returns it NUL-terminated (free it), or NULL with
 * *err.  `input` names the flag in messages ("--config").
 */
char *jr2_config_read(const char *input, const char *file, struct jr2_err *err);

/*
 * One directive of a config line: `protect` and `read-only` add `arg` to
 * the policy (in normal form); `where` is "config 'FILE' line N".  Returns
 * 0 when added, 1 when `word` is not a policy directive (the caller's own,
 * or unknown), -1 with *err.
 */
int jr2_config_policy_line(struct jr2_policy *policy, const char *word,
			   const char *arg, const char *where,
			   struct jr2_err *err);

#endif /* JR2_CONFIG_H */
