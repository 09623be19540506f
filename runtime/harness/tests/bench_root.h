/* SPDX-License-Identifier: GPL-2.0-only */
/* What the harness's benches share: the tree a harness of theirs serves. */
#ifndef JR2_HARNESS_BENCH_ROOT_H
#define JR2_HARNESS_BENCH_ROOT_H

/*
 * Mount and network namespaces of the bench's own, a tmpfs at `root`, and
 * the harness's config at `config` (in `etc`, below root): one Held secret,
 * BENCH_TOKEN, and its own folder read-only (E4).  Dies naming what failed.
 */
void bench_make_root(const char *root, const char *etc, const char *config);

#endif /* JR2_HARNESS_BENCH_ROOT_H */
