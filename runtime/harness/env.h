/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The harness's configuration and the two environments it composes (E1-E4).
 * Pure code: text and string lists in, string lists and messages out.
 *
 * Config file, one directive a line, '#' starts a comment:
 *   env NAME=VALUE      harness.env: given to the harness and to its programs
 *   secret NAME         a Held secret: a fresh Stand-in at each start
 *   protect DIR         one more protected dir for the confined programs
 *   read-only DIR       a read-only tree for the confined programs
 *   home DIR            HOME of the confined programs (default /home/jr2)
 *   tmpdir DIR          TMPDIR of the confined programs (default /tmp)
 *   sandbox-user UID    the user the programs run as (E4 warnings; 1000)
 */
#ifndef JR2_HARNESS_ENV_H
#define JR2_HARNESS_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "policy.h"

struct jr2_harness_config {
	struct jr2_strv env; /* harness.env */
	struct jr2_strv secrets; /* Held secret names */
	struct jr2_policy policy; /* its protect and read-only lines, read by
				     config.c as jr2-confine reads them */
	char *home; /* HOME of the confined programs */
	char *tmpdir; /* TMPDIR of the confined programs */
	uid_t sandbox_uid;
};

/* Names that jr2 keeps out of a confined program's inheritance. */
#define JR2_ENV_KEPT_JR2_NAME "JR2_CUSTODIAN_URL"

/*
 * An environment is a struct jr2_strv of "NAME=VALUE" entries in order, a
 * name once: setting a name that is there replaces its entry.
 */
void jr2_env_set(struct jr2_strv *env, const char *name, const char *value);
/* Copies a NULL-terminated environ array (entries without '=' skipped). */
void jr2_env_from_environ(struct jr2_strv *env, char *const *environ_);
/* A NULL-terminated array pointing into env (free only the array). */
char **jr2_env_array(const struct jr2_strv *env);

/* True for a name that makes some program load code from a path (E2). */
bool jr2_env_loads_code(const char *name);

void jr2_config_init(struct jr2_harness_config *cfg);
void jr2_config_free(struct jr2_harness_config *cfg);
/*
 * Parses a config file's text; `name` is used in messages (E3 refusals).
 * The text is checked as jr2-confine checks its config (config.h: no NUL
 * byte, no over-long line, text only); `len` is its length in bytes.
 * 0, or -1 with *err (always bad input).
 */
int jr2_config_parse(struct jr2_harness_config *cfg, const char *text,
		     size_t len, const char *name, struct jr2_err *err);

/*
 * E2: the harness's own environment: harness.env, then the proxy and trust
 * names and jr2's own JR2_ names of the start environment, then HOME (in the
 * protected dir) and a fixed PATH; never a name that loads code.  Each name
 * dropped for that reason is appended to *dropped (for the log).
 */
void jr2_env_compose_harness(const struct jr2_strv *start,
			     const struct jr2_harness_config *cfg,
			     const char *harness_home, struct jr2_strv *out,
			     struct jr2_strv *dropped);

/*
 * E1: the confined programs' environment without Stand-ins: the start
 * environment less every JR2_ name but JR2_CUSTODIAN_URL and less every Held
 * secret's name (its real value never reaches a program), each
 * JR2_ENVFROM_<KEY> under its KEY (E7: it wins over the start env's KEY),
 * harness.env, then HOME and TMPDIR.  The Stand-ins of the listed secrets are
 * added per request; a Held secret's name is in no other source, so each name
 * appears once.
 */
void jr2_env_compose_confined(const struct jr2_strv *start,
			      const struct jr2_harness_config *cfg,
			      struct jr2_strv *out);

/*
 * E7: kubectl exec sees each key of harness.envFrom as JR2_ENVFROM_<KEY>;
 * the programs and the Harness process see it as <KEY>.
 */
#define JR2_ENVFROM_PREFIX "JR2_ENVFROM_"
/* The name under which the Harness process finds the --root (its control
 * channel is <root>/run/jr2/control.sock, its bearer control.bearer). */
#define JR2_HARNESS_ROOT_NAME "JR2_HARNESS_ROOT"

/*
 * E7: each JR2_ENVFROM_<KEY> of the start environment names a KEY that is
 * an environment name, does not start with JR2_, is not HOME or TMPDIR (the
 * harness sets them for every program) and is no secret or env line of the
 * config.  0, or -1 with *err (bad input) naming the first that is not.
 */
int jr2_env_check_envfrom(const struct jr2_strv *start,
			  const struct jr2_harness_config *cfg,
			  struct jr2_err *err);

/*
 * The Harness process's environment (E2, E7): `own` (the harness's own,
 * jr2_env_compose_harness's) less each JR2_ENVFROM_ entry, which comes
 * under its KEY unless KEY loads code (appended to *dropped) or is PATH
 * (the harness's own stays), then JR2_HARNESS_ROOT=root.
 */
void jr2_env_compose_harness_process(const struct jr2_strv *own,
				     const char *root, struct jr2_strv *out,
				     struct jr2_strv *dropped);

/* E4: true when an absolute path lies where the sandbox writes: /work, /tmp,
 * /dev/shm, /home/jr2, and the programs' home and tmpdir of cfg (NULL: the
 * four alone). */
bool jr2_path_in_sandbox_area(const struct jr2_harness_config *cfg,
			      const char *path);
/* What a path named by a variable must be (E4). */
enum jr2_path_kind {
	JR2_PATH_FILE, /* a regular file */
	JR2_PATH_FOLDER, /* a folder */
	JR2_PATH_FILE_OR_FOLDER, /* either: its program looks which */
};

/* True for a name whose value names files or folders that the harness, its
 * programs or the Harness process read (E4), under its own name or as
 * JR2_ENVFROM_<NAME> (E7). */
bool jr2_env_names_read_file(const char *name);
/*
 * The paths of the value of `name` (one such name, or any other: then none)
 * one at a time: *cursor starts at the value and is moved past each path.
 * The next path into path[size] and what it must be into *kind; false when
 * none is left.  A name of one path gives the whole value (a ':' in it
 * included); a name of a list gives each path between ':' (an empty one
 * skipped, as its programs do).  A path of `size` bytes or more comes cut
 * to size - 1: with PATH_MAX no program opens it (ENAMETOOLONG).
 */
bool jr2_env_next_read_path(const char *name, const char **cursor, char *path,
			    size_t size, enum jr2_path_kind *kind);

#endif /* JR2_HARNESS_ENV_H */
