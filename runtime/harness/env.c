// SPDX-License-Identifier: GPL-2.0-only
/* Configuration and environment composition of the harness (see env.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "env.h"
#include "policy.h"
#include "policy_internal.h"
#include "request.h"

#define DEFAULT_HOME	    "/home/jr2"
#define DEFAULT_TMPDIR	    "/tmp"
#define DEFAULT_SANDBOX_UID 1000
#define HARNESS_PATH \
	"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

static size_t name_len(const char *entry)
{
	const char *eq = strchr(entry, '=');

	return eq ? (size_t)(eq - entry) : strlen(entry);
}

static bool same_name(const char *entry, const char *name)
{
	size_t len = strlen(name);

	return !strncmp(entry, name, len) && entry[len] == '=';
}

void jr2_env_set(struct jr2_strv *env, const char *name, const char *value)
{
	size_t len = strlen(name) + strlen(value) + 2;
	char *entry = jr2_xrealloc(NULL, len);

	snprintf(entry, len, "%s=%s", name, value);
	for (size_t i = 0; i < env->n; i++) {
		if (same_name(env->v[i], name)) {
			free(env->v[i]);
			env->v[i] = entry;
			return;
		}
	}
	env->v = jr2_xrealloc(env->v, (env->n + 1) * sizeof(*env->v));
	env->v[env->n++] = entry;
}

static const char *jr2_env_get(const struct jr2_strv *env, const char *name)
{
	for (size_t i = 0; i < env->n; i++)
		if (same_name(env->v[i], name))
			return env->v[i] + strlen(name) + 1;
	return NULL;
}

/* Sets an entry given as NAME=VALUE. */
static void set_entry(struct jr2_strv *env, const char *entry)
{
	size_t len = name_len(entry);
	char name[len + 1];

	memcpy(name, entry, len);
	name[len] = '\0';
	jr2_env_set(env, name, entry[len] ? entry + len + 1 : "");
}

void jr2_env_from_environ(struct jr2_strv *env, char *const *environ_)
{
	for (; environ_ && *environ_; environ_++) {
		const char *eq = strchr(*environ_, '=');

		if (eq && eq != *environ_)
			set_entry(env, *environ_);
	}
}

char **jr2_env_array(const struct jr2_strv *env)
{
	char **array = calloc(env->n + 1, sizeof(*array));

	if (array)
		memcpy(array, env->v, env->n * sizeof(*array));
	return array;
}

bool jr2_env_loads_code(const char *name)
{
	/* Each makes a loader, an interpreter or a library run a file. */
	static const char *const exact[] = {
	    "NODE_OPTIONS",
	    "NODE_PATH",
	    "NODE_REPL_EXTERNAL_MODULE",
	    "OPENSSL_CONF",
	    "OPENSSL_ENGINES",
	    "OPENSSL_MODULES",
	    "PYTHONPATH",
	    "PYTHONHOME",
	    "PYTHONSTARTUP",
	    "PYTHONUSERBASE",
	    "PERL5LIB",
	    "PERL5OPT",
	    "PERLLIB",
	    "RUBYLIB",
	    "RUBYOPT",
	    "GCONV_PATH",
	    "BASH_ENV",
	    "ENV",
	    "JAVA_TOOL_OPTIONS",
	    "JDK_JAVA_OPTIONS",
	    "_JAVA_OPTIONS",
	    "GLIBC_TUNABLES",
	    "GIT_EXEC_PATH",
	    "LOCPATH",
	    /* Node finds modules by the links' paths, not where E8 looked. */
	    "NODE_PRESERVE_SYMLINKS",
	    /* Node 22+ runs the compiled code it finds in that folder. */
	    "NODE_COMPILE_CACHE",
	    /* Node writes where it names: a file a program links elsewhere. */
	    "NODE_REDIRECT_WARNINGS",
	    "NODE_V8_COVERAGE",
	};
	/* LD_PRELOAD, LD_AUDIT, LD_LIBRARY_PATH and every other LD_ name. */
	static const char *const prefixes[] = {"LD_", "DYLD_"};

	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (!strcmp(name, exact[i]))
			return true;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* True for the proxy and trust names the harness takes from its start env. */
static bool jr2_env_is_proxy_or_trust(const char *name)
{
	static const char *const names[] = {
	    "HTTP_PROXY",     "HTTPS_PROXY",	     "NO_PROXY",
	    "ALL_PROXY",      "http_proxy",	     "https_proxy",
	    "no_proxy",	      "all_proxy",	     "SSL_CERT_FILE",
	    "SSL_CERT_DIR",   "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE",
	    "CURL_CA_BUNDLE", "GIT_SSL_CAINFO",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/*
 * E4: each name whose value names what some program reads, and what that
 * is, as the programs that read the name take it; where two of them differ,
 * what either takes (requests reads CURL_CA_BUNDLE as it reads
 * REQUESTS_CA_BUNDLE: a file or a folder).
 */
static const struct read_path_name {
	const char *name;
	bool list; /* paths between ':' (else the whole value) */
	enum jr2_path_kind kind;
} read_path_names[] = {
    /* The AWS SDKs and CLI: one file each (AWS_CA_BUNDLE: their PEM
     * bundle of trusted certificates). */
    {"AWS_CA_BUNDLE", false, JR2_PATH_FILE},
    {"AWS_CONFIG_FILE", false, JR2_PATH_FILE},
    {"AWS_SHARED_CREDENTIALS_FILE", false, JR2_PATH_FILE},
    {"AWS_WEB_IDENTITY_TOKEN_FILE", false, JR2_PATH_FILE},
    /* Google's Application Default Credentials: one JSON file. */
    {"GOOGLE_APPLICATION_CREDENTIALS", false, JR2_PATH_FILE},
    /* Azure workload identity: one token file. */
    {"AZURE_FEDERATED_TOKEN_FILE", false, JR2_PATH_FILE},
    /* kubectl and client-go merge a list of files (filepath.SplitList). */
    {"KUBECONFIG", true, JR2_PATH_FILE},
    /* OpenSSL (and Go's crypto/x509): one file of certificates, and a
     * list of folders of hashed certificates. */
    {"SSL_CERT_FILE", false, JR2_PATH_FILE},
    {"SSL_CERT_DIR", true, JR2_PATH_FOLDER},
    /* Node.js: one file of certificates. */
    {"NODE_EXTRA_CA_CERTS", false, JR2_PATH_FILE},
    /* Node.js hands it to ICU's u_setDataDirectory: a list of folders,
     * where an entry may also be the .dat file itself. */
    {"NODE_ICU_DATA", true, JR2_PATH_FILE_OR_FOLDER},
    /* glibc's resolver: aliases and its host.conf (getaddrinfo). */
    {"HOSTALIASES", false, JR2_PATH_FILE},
    {"RESOLV_HOST_CONF", false, JR2_PATH_FILE},
    /* Python requests: a CA bundle file or a folder of hashed ones. */
    {"REQUESTS_CA_BUNDLE", false, JR2_PATH_FILE_OR_FOLDER},
    /* curl: one file; requests also reads it, as the name above. */
    {"CURL_CA_BUNDLE", false, JR2_PATH_FILE_OR_FOLDER},
    /* git's http.sslCAInfo: one file; http.sslCAPath, curl's --capath:
     * folders, ':' between with OpenSSL. */
    {"GIT_SSL_CAINFO", false, JR2_PATH_FILE},
    {"GIT_SSL_CAPATH", true, JR2_PATH_FOLDER},
    /* glibc's time zone files (localtime, strftime), and ICU's: Node
     * reads zoneinfo64.res there, and its bytes drive Intl's time zones. */
    {"TZDIR", false, JR2_PATH_FOLDER},
    {"ICU_TIMEZONE_FILES_DIR", false, JR2_PATH_FOLDER},
};

static const struct read_path_name *read_path_name(const char *name)
{
	const size_t plen = strlen(JR2_ENVFROM_PREFIX);

	/* E7: JR2_ENVFROM_<KEY> reaches the programs and the Harness
	 * process as KEY. */
	if (!strncmp(name, JR2_ENVFROM_PREFIX, plen))
		name += plen;
	for (size_t i = 0;
	     i < sizeof(read_path_names) / sizeof(*read_path_names); i++)
		if (!strcmp(name, read_path_names[i].name))
			return &read_path_names[i];
	return NULL;
}

bool jr2_env_names_read_file(const char *name)
{
	return read_path_name(name) != NULL;
}

bool jr2_env_next_read_path(const char *name, const char **cursor, char *path,
			    size_t size, enum jr2_path_kind *kind)
{
	const struct read_path_name *row = read_path_name(name);
	const char *v = *cursor;

	if (!row || !size)
		return false;
	for (;;) {
		size_t len = row->list ? strcspn(v, ":") : strlen(v);

		if (!len && !*v) {
			*cursor = v;
			return false;
		}
		*cursor = v + len + (v[len] == ':');
		if (!len) {
			v = *cursor;
			continue;
		}
		snprintf(path, size, "%.*s", (int)len, v);
		*kind = row->kind;
		return true;
	}
}

/* True when path is `area` or lies below it. */
static bool path_in_area(const char *path, const char *area)
{
	size_t len = strlen(area);

	while (len > 1 && area[len - 1] == '/')
		len--;
	return !strncmp(path, area, len) &&
	       (path[len] == '\0' || path[len] == '/');
}

bool jr2_path_in_sandbox_area(const struct jr2_harness_config *cfg,
			      const char *path)
{
	static const char *const areas[] = {"/work", "/tmp", "/dev/shm",
					    "/home/jr2"};

	for (size_t i = 0; i < sizeof(areas) / sizeof(areas[0]); i++)
		if (path_in_area(path, areas[i]))
			return true;
	return cfg && ((cfg->home && path_in_area(path, cfg->home)) ||
		       (cfg->tmpdir && path_in_area(path, cfg->tmpdir)));
}

void jr2_config_init(struct jr2_harness_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->sandbox_uid = DEFAULT_SANDBOX_UID;
}

void jr2_config_free(struct jr2_harness_config *cfg)
{
	jr2_strv_free(&cfg->env);
	jr2_strv_free(&cfg->secrets);
	jr2_policy_free(&cfg->policy);
	free(cfg->home);
	free(cfg->tmpdir);
	memset(cfg, 0, sizeof(*cfg));
}

static bool jr2_config_has_secret(const struct jr2_harness_config *cfg,
				  const char *name)
{
	for (size_t i = 0; i < cfg->secrets.n; i++)
		if (!strcmp(cfg->secrets.v[i], name))
			return true;
	return false;
}

/* One directive; `where` is "FILE line N" for messages. */
static int parse_directive(struct jr2_harness_config *cfg, char *word,
			   char *arg, const char *where, struct jr2_err *err)
{
	int ret = jr2_config_policy_line(&cfg->policy, word, arg, where, err);

	if (ret != 1)
		return ret; /* protect, read-only: jr2-confine's own code */
	if (!strcmp(word, "env")) {
		size_t len = name_len(arg);

		if (!arg[len] || !jr2_env_name(arg, len))
			return jr2_fail(
			    err, EINVAL, true,
			    "%s: env '%s' is not NAME=VALUE with NAME "
			    "of [A-Za-z0-9_]; fix the line",
			    where, arg);
		if (!strncmp(arg, "JR2_", 4))
			return jr2_fail(
			    err, EINVAL, true,
			    "%s: environment name '%.*s' starts with "
			    "JR2_, which jr2 keeps for its own names; "
			    "rename or remove it",
			    where, (int)len, arg);
		/* E1: a Held secret's real value never reaches a program. */
		for (size_t i = 0; i < cfg->secrets.n; i++)
			if (strlen(cfg->secrets.v[i]) == len &&
			    !strncmp(arg, cfg->secrets.v[i], len))
				return jr2_fail(
				    err, EINVAL, true,
				    "%s: env '%.*s' is a Held secret "
				    "(secret %.*s); its programs get "
				    "only its Stand-in: remove the env "
				    "line",
				    where, (int)len, arg, (int)len, arg);
		set_entry(&cfg->env, arg);
		return 0;
	}
	if (!strcmp(word, "secret")) {
		if (!jr2_env_name(arg, strlen(arg)))
			return jr2_fail(
			    err, EINVAL, true,
			    "%s: secret name '%s' is not an environment name "
			    "of [A-Za-z0-9_]; fix the line",
			    where, arg);
		if (!strncmp(arg, "JR2_", 4))
			return jr2_fail(
			    err, EINVAL, true,
			    "%s: secret name '%s' starts with JR2_, which jr2 "
			    "keeps for its own names; rename it",
			    where, arg);
		if (!strcmp(arg, "control") || !strcmp(arg, "fetch"))
			return jr2_fail(err, EINVAL, true,
					"%s: secret name '%s' is the name of a "
					"Stand-in of jr2's own; rename it",
					where, arg);
		/* Every program gets these, set by the harness (E5). */
		if (!strcmp(arg, "HOME") || !strcmp(arg, "TMPDIR"))
			return jr2_fail(
			    err, EINVAL, true,
			    "%s: secret '%s' is a name the harness "
			    "sets for every program (home, tmpdir); "
			    "rename the secret",
			    where, arg);
		if (jr2_env_get(&cfg->env, arg))
			return jr2_fail(err, EINVAL, true,
					"%s: secret '%s' is also set by an env "
					"line; its programs get only its "
					"Stand-in: remove the env line",
					where, arg);
		if (jr2_config_has_secret(cfg, arg))
			return jr2_fail(
			    err, EINVAL, true,
			    "%s: secret '%s' is declared twice; keep one line",
			    where, arg);
		jr2_strv_add(&cfg->secrets, arg);
		return 0;
	}
	if (!strcmp(word, "home") || !strcmp(word, "tmpdir")) {
		if (arg[0] != '/')
			return jr2_fail(
			    err, EINVAL, true,
			    "%s: %s '%s' is relative; give an absolute path",
			    where, word, arg);
		char **slot = !strcmp(word, "home") ? &cfg->home : &cfg->tmpdir;

		free(*slot);
		*slot = jr2_xstrdup(arg);
		return 0;
	}
	if (!strcmp(word, "sandbox-user")) {
		long uid;

		if (jr2_parse_number(arg, 0, 0xfffffffeL, &uid))
			return jr2_fail(
			    err, EINVAL, true,
			    "%s: sandbox-user '%s' is not a numeric "
			    "uid; give one such as 1000",
			    where, arg);
		cfg->sandbox_uid = (uid_t)uid;
		return 0;
	}
	return jr2_fail(err, EINVAL, true,
			"%s: unknown directive '%s'; use env, secret, protect, "
			"read-only, home, tmpdir or sandbox-user",
			where, word);
}

int jr2_config_parse(struct jr2_harness_config *cfg, const char *text,
		     size_t len, const char *name, struct jr2_err *err)
{
	char *copy, *line, *next;
	unsigned int lineno = 0;
	int ret = 0;

	/* NUL bytes, over-long lines, non-text: as jr2-confine --config. */
	if (jr2_config_check_text(text, len, name, err))
		return -1;
	copy = strndup(text, len);
	if (!copy)
		return jr2_fail(err, EINVAL, true, "config '%s': out of memory",
				name);
	for (line = copy; line && !ret; line = next) {
		char where[512], *word, *arg;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		/* A long name is shortened in its middle: the fix stays. */
		if (strlen(name) > 160)
			snprintf(where, sizeof(where),
				 "config '%.78s...%s' line %u", name,
				 name + strlen(name) - 79, lineno);
		else
			snprintf(where, sizeof(where), "config '%s' line %u",
				 name, lineno);
		while (*line == ' ' || *line == '\t')
			line++;
		if (!*line || *line == '#')
			continue;
		word = line;
		arg = strpbrk(line, " \t");
		if (arg)
			*arg++ = '\0';
		else
			arg = word + strlen(word);
		while (*arg == ' ' || *arg == '\t')
			arg++;
		for (char *end = arg + strlen(arg);
		     end > arg &&
		     (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r');)
			*--end = '\0';
		for (char *end = word + strlen(word);
		     end > word && end[-1] == '\r';)
			*--end = '\0';
		if (!*arg && strcmp(word, "protect") &&
		    strcmp(word, "read-only")) {
			ret = jr2_fail(
			    err, EINVAL, true,
			    "%s: directive '%s' has no argument; write "
			    "'%s VALUE'",
			    where, word, word);
			break;
		}
		ret = parse_directive(cfg, word, arg, where, err);
	}
	free(copy);
	return ret ? -1 : 0;
}

void jr2_env_compose_harness(const struct jr2_strv *start,
			     const struct jr2_harness_config *cfg,
			     const char *harness_home, struct jr2_strv *out,
			     struct jr2_strv *dropped)
{
	struct jr2_strv all = {0};

	/* The sources in order; a later one wins a name. */
	for (size_t i = 0; i < cfg->env.n; i++)
		set_entry(&all, cfg->env.v[i]);
	for (size_t i = 0; i < start->n; i++) {
		const char *entry = start->v[i];
		size_t len = name_len(entry);
		char name[len + 1];

		memcpy(name, entry, len);
		name[len] = '\0';
		if (jr2_env_is_proxy_or_trust(name) ||
		    !strncmp(name, "JR2_", 4))
			set_entry(&all, entry);
		else if (jr2_env_loads_code(name))
			jr2_strv_add(dropped, name);
	}
	jr2_env_set(&all, "HOME", harness_home);
	jr2_env_set(&all, "PATH", HARNESS_PATH);
	for (size_t i = 0; i < all.n; i++) {
		size_t len = name_len(all.v[i]);
		char name[len + 1];

		memcpy(name, all.v[i], len);
		name[len] = '\0';
		if (jr2_env_loads_code(name))
			jr2_strv_add(dropped, name);
		else
			set_entry(out, all.v[i]);
	}
	jr2_strv_free(&all);
}

void jr2_env_compose_confined(const struct jr2_strv *start,
			      const struct jr2_harness_config *cfg,
			      struct jr2_strv *out)
{
	for (size_t i = 0; i < start->n; i++) {
		const char *entry = start->v[i];
		size_t len = name_len(entry);
		char name[len + 1];

		if (!strncmp(entry, "JR2_", 4) &&
		    !same_name(entry, JR2_ENV_KEPT_JR2_NAME))
			continue;
		/* E1: a Held secret's real value, whatever the start env. */
		memcpy(name, entry, len);
		name[len] = '\0';
		if (jr2_config_has_secret(cfg, name))
			continue;
		if (same_name(entry, "HOME") || same_name(entry, "TMPDIR"))
			continue;
		set_entry(out, entry);
	}
	/* E7: checked by jr2_env_check_envfrom, so no secret comes in. */
	for (size_t i = 0; i < start->n; i++)
		if (!strncmp(start->v[i], JR2_ENVFROM_PREFIX,
			     strlen(JR2_ENVFROM_PREFIX)))
			set_entry(out,
				  start->v[i] + strlen(JR2_ENVFROM_PREFIX));
	for (size_t i = 0; i < cfg->env.n; i++)
		set_entry(out, cfg->env.v[i]);
	jr2_env_set(out, "HOME", cfg->home ? cfg->home : DEFAULT_HOME);
	jr2_env_set(out, "TMPDIR", cfg->tmpdir ? cfg->tmpdir : DEFAULT_TMPDIR);
}

int jr2_env_check_envfrom(const struct jr2_strv *start,
			  const struct jr2_harness_config *cfg,
			  struct jr2_err *err)
{
	const size_t plen = strlen(JR2_ENVFROM_PREFIX);

	for (size_t i = 0; i < start->n; i++) {
		const char *entry = start->v[i], *key = entry + plen;
		size_t len = name_len(entry);
		int klen = (int)(len - plen);

		if (strncmp(entry, JR2_ENVFROM_PREFIX, plen))
			continue;
		if (len == plen || !jr2_env_name(key, len - plen))
			return jr2_fail(err, EINVAL, true,
					"start environment name '%.*s' has no "
					"key after %s; give harness.envFrom "
					"keys that are environment names",
					(int)len, entry, JR2_ENVFROM_PREFIX);
		if (!strncmp(key, "JR2_", 4))
			return jr2_fail(
			    err, EINVAL, true,
			    "start environment name '%.*s' gives the key "
			    "'%.*s', which starts with JR2_, kept for jr2's "
			    "own names; rename the key in harness.envFrom",
			    (int)len, entry, klen, key);
		if ((klen == 4 && !strncmp(key, "HOME", 4)) ||
		    (klen == 6 && !strncmp(key, "TMPDIR", 6)))
			return jr2_fail(
			    err, EINVAL, true,
			    "start environment name '%.*s' gives the key "
			    "'%.*s', which the harness sets for every program "
			    "(config home, tmpdir); remove the key from "
			    "harness.envFrom",
			    (int)len, entry, klen, key);
		for (size_t j = 0; j < cfg->secrets.n; j++)
			if (strlen(cfg->secrets.v[j]) == (size_t)klen &&
			    !strncmp(cfg->secrets.v[j], key, (size_t)klen))
				return jr2_fail(
				    err, EINVAL, true,
				    "start environment name '%.*s' gives the "
				    "key '%.*s', a Held secret of the config "
				    "(secret %.*s), whose programs get only "
				    "its Stand-in; remove one of the two",
				    (int)len, entry, klen, key, klen, key);
		for (size_t j = 0; j < cfg->env.n; j++)
			if (name_len(cfg->env.v[j]) == (size_t)klen &&
			    !strncmp(cfg->env.v[j], key, (size_t)klen))
				return jr2_fail(
				    err, EINVAL, true,
				    "start environment name '%.*s' gives the "
				    "key '%.*s', which an env line of the "
				    "config sets too; remove one of the two",
				    (int)len, entry, klen, key);
	}
	return 0;
}

void jr2_env_compose_harness_process(const struct jr2_strv *own,
				     const char *root, struct jr2_strv *out,
				     struct jr2_strv *dropped)
{
	const size_t plen = strlen(JR2_ENVFROM_PREFIX);

	for (size_t i = 0; i < own->n; i++)
		if (strncmp(own->v[i], JR2_ENVFROM_PREFIX, plen))
			set_entry(out, own->v[i]);
	for (size_t i = 0; i < own->n; i++) {
		const char *key = own->v[i] + plen;
		size_t len = name_len(key);
		char name[len + 1];

		if (strncmp(own->v[i], JR2_ENVFROM_PREFIX, plen))
			continue;
		memcpy(name, key, len);
		name[len] = '\0';
		/* E2: whatever its source; PATH: the harness's own finds
		 * its programs. */
		if (jr2_env_loads_code(name))
			jr2_strv_add(dropped, name);
		else if (strcmp(name, "PATH"))
			set_entry(out, key);
	}
	jr2_env_set(out, JR2_HARNESS_ROOT_NAME, root);
}
