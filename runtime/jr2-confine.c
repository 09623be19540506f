// SPDX-License-Identifier: GPL-2.0-only
/*
 * jr2-confine: the preflight (check), the confiner (run), the rules for
 * review (rules) and the ABI table for other tools (abi-table).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "abi.h"
#include "confine_step.h"
#include "die.h"
#include "json.h"
#include "landlock_uapi.h"
#include "policy.h"

#define PROG "jr2-confine"

static const char usage_text[] =
    "Usage: " PROG " COMMAND [OPTIONS]\n"
    "Confine programs with Landlock under jr2's policy: protected dirs\n"
    "(nothing but list), read-only trees (read, execute, list), the rest\n"
    "full.\n"
    "\n"
    "Commands:\n"
    "  check [--json] [--max-abi N]\n"
    "      Preflight: kernel release, Landlock ABI, errata, each feature\n"
    "      enforced or unavailable, the verdict and a hint; the frozen\n"
    "      folders of the defaults.\n"
    "      Exit 0 accepted, 1 refused, 2 usage error.\n"
    "  run [POLICY] [--max-abi N] [--quiet] [--pass-fd N]... -- CMD "
    "[ARG]...\n"
    "      Confine this process, then exec CMD.  Exit 125 when confinement\n"
    "      cannot be done (CMD never runs), 126 when CMD cannot be run,\n"
    "      127 when it is not found, 2 on bad input, else CMD's status.\n"
    "      --pass-fd N passes descriptor N too; one into a protected dir\n"
    "      or that hands out descriptors (a listening unix socket or one\n"
    "      with some queued, io_uring, fanotify, a pidfd) is refused (125).\n"
    "  rules [POLICY] [--max-abi N] [--json]\n"
    "      Print the compiled rules (path, rights, why), notes, the frozen\n"
    "      folders (nothing can be made or removed in them) and why.\n"
    "  abi-table [--json]\n"
    "      The table of rights, scopes, flags and features per ABI.\n"
    "\n"
    "POLICY (with none of these, jr2's defaults apply: protect /run/jr2;\n"
    "read-only /repos, /opt/jr2 and the CA bundles that SSL_CERT_FILE,\n"
    "NODE_EXTRA_CA_CERTS, REQUESTS_CA_BUNDLE, GIT_SSL_CAINFO and\n"
    "CURL_CA_BUNDLE name, where they exist).  In every policy /proc and\n"
    "/sys are read-only, only /dev's allow-list opens, and no device node\n"
    "can be made:\n"
    "  --protect DIR      a protected dir (repeatable)\n"
    "  --read-only DIR    a read-only tree (repeatable)\n"
    "  --config FILE      directives 'protect PATH', 'read-only PATH'\n"
    "\n"
    "  --max-abi N        behave as on a kernel of Landlock ABI N (1-11);\n"
    "                     else the environment's JR2_MAX_ABI; the flag wins\n"
    "  --help, --version\n"
    "\n"
    "See jr2-confine(1).\n";

/* A library error: bad input (2), or confinement impossible (125). */
#define die_err(err)                                                        \
	jr2_die((err)->bad_input ? JR2_EXIT_USAGE : JR2_EXIT_REFUSED, "%s", \
		(err)->msg)

struct options {
	const char *command;
	struct jr2_policy policy;
	bool policy_given;
	const char *max_abi;
	bool json;
	bool quiet;
	bool verbose;
	bool keep_session;
	int pass_fds[JR2_STEP_MAX_FDS];
	size_t n_pass_fds;
	char **cmd; /* after "--" */
};

/* "--flag VALUE" or "--flag=VALUE"; NULL when argv[*i] is not --flag. */
static const char *flag_value(char **argv, int argc, int *i, const char *flag)
{
	size_t len = strlen(flag);

	if (strncmp(argv[*i], flag, len))
		return NULL;
	if (argv[*i][len] == '=')
		return argv[*i] + len + 1;
	if (argv[*i][len])
		return NULL;
	if (*i + 1 >= argc)
		jr2_die(JR2_EXIT_USAGE, "%s needs a value: write '%s VALUE'",
			flag, flag);
	return argv[++*i];
}

static void parse(int argc, char **argv, struct options *o)
{
	const bool takes_policy =
	    !strcmp(o->command, "run") || !strcmp(o->command, "rules");
	const bool takes_json = strcmp(o->command, "run");
	const bool takes_abi = strcmp(o->command, "abi-table");
	struct jr2_err err;

	for (int i = 2; i < argc; i++) {
		const char *arg = argv[i], *v;

		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			fputs(usage_text, stdout);
			exit(0);
		}
		if (!strcmp(arg, "--")) {
			if (strcmp(o->command, "run"))
				jr2_die(JR2_EXIT_USAGE,
					"'%s' takes no command after '--': "
					"see '" PROG " --help'",
					o->command);
			if (i + 1 >= argc)
				jr2_die(JR2_EXIT_USAGE,
					"run: no command after '--': write "
					"'" PROG " run [OPTIONS] -- CMD "
					"[ARG]...'");
			o->cmd = &argv[i + 1];
			return;
		}
		if (takes_policy &&
		    (v = flag_value(argv, argc, &i, "--protect"))) {
			o->policy_given = true;
			if (jr2_policy_add_protected(&o->policy, v, &err))
				die_err(&err);
		} else if (takes_policy &&
			   (v = flag_value(argv, argc, &i, "--read-only"))) {
			o->policy_given = true;
			if (jr2_policy_add_read_only(&o->policy, v, &err))
				die_err(&err);
		} else if (takes_policy &&
			   (v = flag_value(argv, argc, &i, "--config"))) {
			o->policy_given = true;
			if (jr2_policy_load_config(&o->policy, v, &err))
				die_err(&err);
		} else if (takes_abi &&
			   (v = flag_value(argv, argc, &i, "--max-abi"))) {
			o->max_abi = v;
		} else if (takes_json && !strcmp(arg, "--json")) {
			o->json = true;
		} else if (!takes_json && !strcmp(arg, "--quiet")) {
			o->quiet = true;
		} else if (!takes_json && !strcmp(arg, "--verbose")) {
			o->verbose = true;
		} else if (!takes_json && !strcmp(arg, "--keep-session")) {
			o->keep_session = true;
		} else if (!takes_json &&
			   (v = flag_value(argv, argc, &i, "--pass-fd"))) {
			long fd;

			if (jr2_parse_number(v, 3, 65535, &fd))
				jr2_die(
				    JR2_EXIT_USAGE,
				    "--pass-fd '%s': give a descriptor number "
				    "from 3 to 65535 (0-2 always pass)",
				    v);
			if (o->n_pass_fds >= JR2_STEP_MAX_FDS)
				jr2_die(
				    JR2_EXIT_USAGE,
				    "--pass-fd %s: more than %d descriptors; "
				    "pass fewer",
				    v, JR2_STEP_MAX_FDS);
			o->pass_fds[o->n_pass_fds++] = (int)fd;
		} else if (arg[0] == '-') {
			jr2_die(JR2_EXIT_USAGE,
				"unknown flag '%s' for '%s': see '" PROG
				" --help'",
				arg, o->command);
		} else if (!strcmp(o->command, "run")) {
			jr2_die(JR2_EXIT_USAGE,
				"run: missing '--' before '%s': write '" PROG
				" run [OPTIONS] -- CMD [ARG]...'",
				arg);
		} else {
			jr2_die(JR2_EXIT_USAGE,
				"'%s' takes no argument '%s': see '" PROG
				" --help'",
				o->command, arg);
		}
	}
	if (!strcmp(o->command, "run"))
		jr2_die(JR2_EXIT_USAGE,
			"run: missing '--' and the command: write '" PROG
			" run [OPTIONS] -- CMD [ARG]...'");
}

static void probe(const struct options *o, struct jr2_abi *abi)
{
	char msg[300];
	int cap = jr2_abi_cap(o->max_abi, msg, sizeof(msg));

	if (cap < 0)
		jr2_die(JR2_EXIT_USAGE, "%s", msg);
	jr2_abi_probe(abi, cap);
}

/* JSON string, by the one writer (json.h): false when s is not UTF-8. */
static bool json_str(const char *s)
{
	return jr2_json_string(jr2_json_emit_file, stdout, s, strlen(s));
}

/* "key": "s", and "key_hex" when s is not UTF-8 (json.h). */
static void json_member(const char *key, const char *s)
{
	jr2_json_member(jr2_json_emit_file, stdout, " ", key, s, strlen(s));
}

static void json_bits(enum jr2_bit_kind kind, uint64_t bits)
{
	const char *sep = "";

	putchar('[');
	for (unsigned int bit = 0; bit < 64; bit++) {
		if (!(bits & (1ULL << bit)))
			continue;
		fputs(sep, stdout);
		json_str(jr2_bit_name(kind, bit) ? jr2_bit_name(kind, bit)
						 : "unknown");
		sep = ", ";
	}
	putchar(']');
}

static const char *landlock_state(const struct jr2_abi *abi)
{
	if (!abi->probe_errno)
		return "ok";
	if (abi->probe_errno == ENOSYS)
		return "ENOSYS";
	if (abi->probe_errno == EOPNOTSUPP)
		return "EOPNOTSUPP";
	return strerrorname_np(abi->probe_errno)
		   ? strerrorname_np(abi->probe_errno)
		   : "unknown";
}

static const char *hint(const struct jr2_abi *abi)
{
	switch (jr2_abi_verdict(abi)) {
	case JR2_VERDICT_ACCEPT:
		if (abi->in_force < JR2_ABI_NEWEST)
			return abi->cap && abi->cap < abi->kernel
				   ? "the ABI is capped: drop --max-abi "
				     "and JR2_MAX_ABI to use every "
				     "feature of the kernel"
				   : "a newer kernel enforces the features "
				     "listed as unavailable";
		return "none: every feature this runtime knows is enforced";
	case JR2_VERDICT_NO_LANDLOCK:
		return "boot Linux 6.2 or newer with "
		       "CONFIG_SECURITY_LANDLOCK=y";
	case JR2_VERDICT_NOT_ENABLED:
		return "add 'landlock' to the lsm= kernel boot parameter";
	case JR2_VERDICT_ABI_TOO_OLD:
		return abi->cap && abi->cap < abi->kernel
			   ? "raise or drop the ABI cap (--max-abi, "
			     "JR2_MAX_ABI) to 3 or more"
			   : "boot Linux 6.2 or newer (Landlock ABI 3)";
	case JR2_VERDICT_PROBE_FAILED:
		break;
	}
	return "check the kernel's seccomp filter and LSM setup";
}

/*
 * The frozen folders (nothing can be made, removed or renamed directly in
 * them) with why, and the warnings a start message must give.
 */
static void json_frozen(const struct jr2_ruleset_plan *plan)
{
	printf("\"frozen\": [");
	for (size_t i = 0; i < plan->frozen.n; i++) {
		printf("%s{", i ? ", " : "");
		json_member("path", plan->frozen.v[i]);
		printf(", \"why\": ");
		json_str(plan->frozen_why.v[i]);
		printf("}");
	}
	printf("], \"warnings\": [");
	for (size_t i = 0; i < plan->warnings.n; i++) {
		printf("%s", i ? ", " : "");
		json_str(plan->warnings.v[i]);
	}
	printf("]");
}

static void text_frozen(const struct jr2_ruleset_plan *plan, const char *prefix)
{
	for (size_t i = 0; i < plan->frozen.n; i++)
		printf("%sfrozen: %s: %s\n", prefix, plan->frozen.v[i],
		       plan->frozen_why.v[i]);
	for (size_t i = 0; i < plan->warnings.n; i++)
		printf("%swarning: %s\n", prefix, plan->warnings.v[i]);
}

static int compile_abi(const struct jr2_abi *abi);

/* check: the defaults' frozen folders; a policy that cannot compile here is
   said, not fatal (the preflight is about the kernel). */
static void check_frozen(const struct jr2_abi *abi, bool json)
{
	struct jr2_policy policy;
	struct jr2_ruleset_plan plan;
	struct jr2_err err;

	jr2_policy_init(&policy);
	jr2_policy_set_defaults(&policy);
	if (jr2_policy_compile(&policy, compile_abi(abi), &plan, &err)) {
		if (json) {
			printf(", \"frozen\": null, \"policy_error\": ");
			json_str(err.msg);
		} else {
			printf("frozen: unknown: the defaults do not compile "
			       "here: %s\n",
			       err.msg);
		}
		jr2_policy_free(&policy);
		return;
	}
	if (json) {
		printf(", ");
		json_frozen(&plan);
	} else {
		text_frozen(&plan, "");
	}
	jr2_plan_free(&plan);
	jr2_policy_free(&policy);
}

static const char *yama_meaning(int scope)
{
	switch (scope) {
	case -1:
		return "no Yama: programs of one user may trace each other";
	case 0:
		return "classic: programs of one user may trace each other";
	case 1:
		return "restricted: a program traces only its descendants "
		       "(or who named it with PR_SET_PTRACER)";
	case 2:
		return "admin-only: tracing needs CAP_SYS_PTRACE";
	default:
		return "no attach: no program may trace another";
	}
}

static int cmd_check(const struct options *o)
{
	int yama = jr2_yama_ptrace_scope();
	struct jr2_abi abi;
	struct utsname uts;
	enum jr2_verdict verdict;
	char reason[600];

	probe(o, &abi);
	verdict = jr2_abi_verdict(&abi);
	jr2_verdict_reason(&abi, reason, sizeof(reason));
	if (uname(&uts))
		strcpy(uts.release, "unknown");
	if (o->json) {
		putchar('{');
		json_member("release", uts.release);
		printf(", \"landlock\": ");
		json_str(landlock_state(&abi));
		printf(", \"abi\": {\"kernel\": %d, \"in_force\": %d, "
		       "\"cap\": ",
		       abi.kernel, abi.in_force);
		if (abi.cap)
			printf("%d", abi.cap);
		else
			printf("null");
		printf(", \"newest_known\": %d, \"required\": %d}, "
		       "\"errata\": ",
		       JR2_ABI_NEWEST, JR2_ABI_REQUIRED);
		if (abi.errata_known)
			printf("%u", abi.errata);
		else
			printf("null");
		printf(", \"yama_ptrace_scope\": ");
		if (yama >= 0)
			printf("%d", yama);
		else
			printf("null");
		printf(", \"features\": {");
		for (int f = 0; f < JR2_FEAT_COUNT; f++) {
			printf("%s", f ? ", " : "");
			json_str(jr2_features[f].name);
			printf(": {\"status\": \"%s\", \"min_abi\": %d}",
			       jr2_abi_has(&abi, f) ? "enforced"
						    : "unavailable",
			       jr2_features[f].min_abi);
		}
		printf("}, \"verdict\": \"%s\", \"verdict_code\": \"%s\", "
		       "\"reason\": ",
		       verdict == JR2_VERDICT_ACCEPT ? "accepted" : "refused",
		       jr2_verdict_name(verdict));
		json_str(reason);
		printf(", \"hint\": ");
		json_str(hint(&abi));
		jr2_step_helpers_line(reason, sizeof(reason));
		printf(", \"kernel_helpers\": ");
		json_str(reason);
		/* What this confiner's privileges hold of the metadata (a
		   container's profile), and the fix: the text's own line. */
		jr2_step_metadata_forecast(reason, sizeof(reason));
		printf(", \"metadata\": ");
		json_str(reason);
		check_frozen(&abi, true);
		printf("}\n");
	} else {
		printf("release: %s\n", uts.release);
		printf("landlock: %s\n", landlock_state(&abi));
		printf("abi: kernel %d, in force %d, cap ", abi.kernel,
		       abi.in_force);
		if (abi.cap)
			printf("%d", abi.cap);
		else
			printf("none");
		printf(", required %d, newest known %d\n", JR2_ABI_REQUIRED,
		       JR2_ABI_NEWEST);
		if (abi.errata_known)
			printf("errata: 0x%x\n", abi.errata);
		else
			printf("errata: unknown (the kernel has no errata "
			       "query)\n");
		if (yama >= 0)
			printf("yama ptrace_scope: %d (%s)\n", yama,
			       yama_meaning(yama));
		else
			printf("yama ptrace_scope: none (%s)\n",
			       yama_meaning(yama));
		for (int f = 0; f < JR2_FEAT_COUNT; f++)
			printf(
			    "feature %-20s %-11s (ABI %d+): %s\n",
			    jr2_features[f].name,
			    jr2_abi_has(&abi, f) ? "enforced" : "unavailable",
			    jr2_features[f].min_abi, jr2_features[f].protects);
		jr2_step_metadata_forecast(reason, sizeof(reason));
		printf("%s\n", reason);
		jr2_step_helpers_line(reason, sizeof(reason));
		printf("%s\n", reason);
		jr2_verdict_reason(&abi, reason, sizeof(reason));
		printf("verdict: %s: %s\n",
		       verdict == JR2_VERDICT_ACCEPT ? "accepted" : "refused",
		       reason);
		printf("hint: %s\n", hint(&abi));
		check_frozen(&abi, false);
	}
	return verdict == JR2_VERDICT_ACCEPT ? 0 : 1;
}

static int cmd_abi_table(void)
{
	printf("{\"newest_known\": %d, \"required\": %d, \"features\": [",
	       JR2_ABI_NEWEST, JR2_ABI_REQUIRED);
	for (int f = 0; f < JR2_FEAT_COUNT; f++) {
		printf("%s{\"name\": ", f ? ", " : "");
		json_str(jr2_features[f].name);
		printf(", \"min_abi\": %d, \"protects\": ",
		       jr2_features[f].min_abi);
		json_str(jr2_features[f].protects);
		printf("}");
	}
	printf("], \"abis\": [");
	for (int abi = 1; abi <= JR2_ABI_NEWEST; abi++) {
		printf(
		    "%s\n {\"abi\": %d, \"verdict\": \"%s\", \"fs_rights\": ",
		    abi > 1 ? "," : "", abi,
		    abi >= JR2_ABI_REQUIRED ? "accepted" : "refused");
		json_bits(JR2_BITS_FS, jr2_abi_fs_rights(abi));
		printf(", \"fs_rights_mask\": %llu, \"scopes\": ",
		       (unsigned long long)jr2_abi_fs_rights(abi));
		json_bits(JR2_BITS_SCOPE, jr2_abi_scopes(abi));
		printf(", \"log_flags\": ");
		json_bits(JR2_BITS_RESTRICT, jr2_abi_log_flags(abi));
		printf(", \"restrict_flags\": ");
		json_bits(JR2_BITS_RESTRICT, jr2_abi_restrict_flags(abi));
		printf(", \"features\": {");
		for (int f = 0; f < JR2_FEAT_COUNT; f++) {
			printf("%s", f ? ", " : "");
			json_str(jr2_features[f].name);
			printf(": %s", abi >= jr2_features[f].min_abi
					   ? "true"
					   : "false");
		}
		printf("}}");
	}
	printf("\n]}\n");
	return 0;
}

/* The ABI the rules are compiled for: the one in force, else (refused)
   the required one, so bad input is found on any kernel. */
static int compile_abi(const struct jr2_abi *abi)
{
	return abi->in_force >= JR2_ABI_REQUIRED ? abi->in_force
						 : JR2_ABI_REQUIRED;
}

static int cmd_rules(const struct options *o)
{
	struct jr2_ruleset_plan plan;
	struct jr2_abi abi;
	struct jr2_err err;
	char buf[512];
	bool notes_utf8 = true;

	probe(o, &abi);
	if (jr2_policy_compile(&o->policy, compile_abi(&abi), &plan, &err))
		die_err(&err);
	if (o->json) {
		printf("{\"abi\": %d, \"handled_fs\": ", plan.abi);
		json_bits(JR2_BITS_FS, plan.handled_fs);
		printf(", \"scoped\": ");
		json_bits(JR2_BITS_SCOPE, plan.scoped);
		printf(", \"restrict_flags\": ");
		json_bits(JR2_BITS_RESTRICT, plan.restrict_flags);
		printf(", \"rules\": [");
		for (size_t i = 0; i < plan.n_rules; i++) {
			printf("%s\n {", i ? "," : "");
			json_member("path", plan.rules[i].path);
			printf(", \"access\": ");
			json_bits(JR2_BITS_FS, plan.rules[i].access);
			printf(", ");
			json_member("why", plan.rules[i].why);
			printf("}");
		}
		printf("], \"notes\": [");
		for (size_t i = 0; i < plan.notes.n; i++) {
			printf("%s", i ? ", " : "");
			if (!json_str(plan.notes.v[i]))
				notes_utf8 = false;
		}
		printf("]");
		/* The bytes of each note, where one is not UTF-8 (json.h). */
		for (size_t i = 0; !notes_utf8 && i < plan.notes.n; i++) {
			printf("%s", i ? ", " : ", \"notes_hex\": [");
			jr2_json_hex(jr2_json_emit_file, stdout,
				     plan.notes.v[i], strlen(plan.notes.v[i]));
		}
		printf("%s, ", notes_utf8 ? "" : "]");
		json_frozen(&plan);
		printf("}\n");
	} else {
		printf("# ABI %d (%s)\n", plan.abi,
		       jr2_abi_verdict(&abi) == JR2_VERDICT_ACCEPT
			   ? "in force"
			   : "required; this kernel is refused");
		printf("# handled: %s\n",
		       jr2_format_bits(JR2_BITS_FS, plan.handled_fs, ",", buf,
				       sizeof(buf)));
		printf("# scoped: %s\n",
		       jr2_format_bits(JR2_BITS_SCOPE, plan.scoped, ",", buf,
				       sizeof(buf)));
		printf("# restrict flags: %s\n",
		       jr2_format_bits(JR2_BITS_RESTRICT, plan.restrict_flags,
				       ",", buf, sizeof(buf)));
		for (size_t i = 0; i < plan.n_rules; i++)
			printf("%s\t%s\t%s\n", plan.rules[i].path,
			       jr2_format_bits(JR2_BITS_FS,
					       plan.rules[i].access, ",", buf,
					       sizeof(buf)),
			       plan.rules[i].why);
		for (size_t i = 0; i < plan.notes.n; i++)
			printf("# note: %s\n", plan.notes.v[i]);
		text_frozen(&plan, "# ");
		printf("# %zu rules\n", plan.n_rules);
	}
	jr2_plan_free(&plan);
	return 0;
}

/* G6: a protection the ABI in force cannot give is named, never silent. */
static void warn_unavailable(const struct jr2_abi *abi)
{
	char buf[300];

	if (*jr2_abi_unavailable(abi, buf, sizeof(buf)))
		fprintf(stderr,
			PROG
			": warning: Landlock ABI %d in force: unavailable: "
			"%s\n",
			abi->in_force, buf);
}

static int cmd_run(const struct options *o)
{
	struct jr2_ruleset_plan plan;
	struct jr2_step step = {.keep_session = o->keep_session,
				.may_fork = true,
				.close_others = true};
	struct jr2_abi abi;
	struct jr2_err err;
	struct stat st;
	char reason[400];
	int exec_errno;

	memcpy(step.keep_fds, o->pass_fds, sizeof(step.keep_fds));
	step.n_keep_fds = o->n_pass_fds;
	probe(o, &abi);
	/* Bad input is found (exit 2) before the kernel is judged (125). */
	if (jr2_policy_compile(&o->policy, compile_abi(&abi), &plan, &err))
		die_err(&err);
	if (jr2_abi_verdict(&abi) != JR2_VERDICT_ACCEPT)
		jr2_die(JR2_EXIT_REFUSED, "refusing to confine: %s",
			jr2_verdict_reason(&abi, reason, sizeof(reason)));
	/* Fail closed: the default protected dir must be a real dir. */
	if (o->policy.defaults) {
		const char *state = NULL;

		if (lstat(JR2_DEFAULT_PROTECTED, &st))
			state = errno == ENOENT ? "missing" : strerror(errno);
		else if (S_ISLNK(st.st_mode))
			state = "a symlink";
		else if (!S_ISDIR(st.st_mode))
			state = "not a dir";
		if (state)
			jr2_die(
			    JR2_EXIT_REFUSED,
			    "the default protected dir " JR2_DEFAULT_PROTECTED
			    " is %s: refusing to run with nothing protected; "
			    "create it as a real dir, or name the policy "
			    "with --protect DIR",
			    state);
	}
	/* ABI 7+: audit CMD's denials, not jr2-confine's own before exec. */
	if (jr2_confine_step_plan(&o->policy, &plan, JR2_LOG_EXECED_PROGRAMS,
				  &step, &err))
		die_err(&err);
	if (!o->quiet)
		for (size_t i = 0; i < plan.warnings.n; i++)
			fprintf(stderr, PROG ": warning: %s\n",
				plan.warnings.v[i]);
	jr2_plan_free(&plan);
	if (!o->quiet)
		warn_unavailable(&abi);
	if (o->verbose)
		fprintf(stderr, PROG ": %s\n" PROG ": %s\n", step.metadata,
			step.helpers);
	execvp(o->cmd[0], o->cmd);
	exec_errno = errno;
	jr2_die(exec_errno == ENOENT ? JR2_EXIT_NOT_FOUND
				     : JR2_EXIT_CANNOT_EXEC,
		"cannot run '%s': %s: check the command's name and mode",
		o->cmd[0], strerror(exec_errno));
}

int main(int argc, char **argv)
{
	struct options o = {0};

	jr2_die_init(PROG);
	if (argc < 2)
		jr2_die(JR2_EXIT_USAGE,
			"no command: give check, run, rules or abi-table "
			"(see '" PROG " --help')");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf(PROG " " JR2_VERSION " (Landlock ABI %d to %d)\n",
		       JR2_ABI_REQUIRED, JR2_ABI_NEWEST);
		return 0;
	}
	o.command = argv[1];
	if (strcmp(o.command, "check") && strcmp(o.command, "run") &&
	    strcmp(o.command, "rules") && strcmp(o.command, "abi-table"))
		jr2_die(JR2_EXIT_USAGE,
			"unknown command '%s': give check, run, rules or "
			"abi-table (see '" PROG " --help')",
			o.command);
	jr2_policy_init(&o.policy);
	parse(argc, argv, &o);
	if (!o.policy_given)
		jr2_policy_set_defaults(&o.policy);
	if (!strcmp(o.command, "check"))
		return cmd_check(&o);
	if (!strcmp(o.command, "abi-table"))
		return cmd_abi_table();
	if (!strcmp(o.command, "rules"))
		return cmd_rules(&o);
	return cmd_run(&o);
}
