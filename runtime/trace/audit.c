// SPDX-License-Identifier: GPL-2.0-only
#include "audit.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "format.h"

#ifndef AUDIT_LANDLOCK_ACCESS
#define AUDIT_LANDLOCK_ACCESS 1423
#define AUDIT_LANDLOCK_DOMAIN 1424
#endif

struct audit_request {
	struct nlmsghdr header;
	struct audit_status status;
};

/* Sends AUDIT_GET or AUDIT_SET and waits for its answer. */
static int audit_call(int fd, int type, struct audit_status *status)
{
	struct audit_request request = {
	    .header = {.nlmsg_len = NLMSG_LENGTH(sizeof(*status)),
		       .nlmsg_type = type,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		       .nlmsg_seq = type},
	    .status = *status,
	};
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	char buf[8192];

	if (sendto(fd, &request, request.header.nlmsg_len, 0,
		   (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -errno;
	/* Records of the multicast group may come first: skip them. */
	for (int tries = 0; tries < 64; tries++) {
		struct nlmsghdr *h = (struct nlmsghdr *)buf;
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int n; /* signed: NLMSG_NEXT may take it below 0 */

		if (poll(&pfd, 1, 2000) <= 0)
			return -ETIMEDOUT;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			return -errno;
		for (; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != (unsigned)type)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				if (e->error || type == AUDIT_SET)
					return e->error;
			} else if (h->nlmsg_type == AUDIT_GET) {
				memcpy(status, NLMSG_DATA(h), sizeof(*status));
				return 0;
			}
		}
	}
	return -ETIMEDOUT;
}

int jr2_audit_open(struct jr2_audit *a, char *err, size_t size)
{
	struct sockaddr_nl group = {
	    .nl_family = AF_NETLINK,
	    .nl_groups = 1U << (AUDIT_NLGRP_READLOG - 1),
	};
	struct audit_status status = {0};
	int ret;

	memset(a, 0, sizeof(*a));
	a->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (a->fd < 0) {
		ret = -errno;
		snprintf(err, size,
			 "opening the audit netlink socket: %s: the kernel "
			 "needs CONFIG_AUDIT",
			 strerror(-ret));
		return ret;
	}
	if (bind(a->fd, (struct sockaddr *)&group, sizeof(group))) {
		ret = -errno;
		snprintf(err, size,
			 "joining the audit read-log group: %s: run as root "
			 "(CAP_AUDIT_READ)",
			 strerror(-ret));
		goto fail;
	}
	ret = audit_call(a->fd, AUDIT_GET, &status);
	if (ret) {
		snprintf(err, size,
			 "AUDIT_GET: %s: run as root (CAP_AUDIT_CONTROL)",
			 strerror(-ret));
		goto fail;
	}
	if (!status.enabled) {
		/* Landlock logs nothing while audit is off. */
		status = (struct audit_status){.mask = AUDIT_STATUS_ENABLED,
					       .enabled = 1};
		ret = audit_call(a->fd, AUDIT_SET, &status);
		if (ret) {
			snprintf(err, size,
				 "switching audit on (AUDIT_SET enabled=1): %s",
				 strerror(-ret));
			goto fail;
		}
		a->enabled_by_us = true;
	}
	return 0;
fail:
	close(a->fd);
	a->fd = -1;
	return ret;
}

static void print_record(struct jr2_audit *a, FILE *out,
			 const struct jr2_audit_record *r, int pid)
{
	char line[4096];
	int n = jr2_audit_json(r->type, r->serial, r->text, pid, line,
			       sizeof(line));

	if (n > 0) {
		fwrite(line, 1, n, out);
		a->records++;
	}
}

/* Prints the pending records of `serial` (every one when serial is 0). */
static void flush(struct jr2_audit *a, FILE *out, unsigned long long serial,
		  int pid)
{
	int kept = 0;

	for (int i = 0; i < a->n_pending; i++) {
		if (serial && a->pending[i].serial != serial)
			a->pending[kept++] = a->pending[i];
		else
			print_record(a, out, &a->pending[i], pid);
	}
	a->n_pending = kept;
}

static void on_message(struct jr2_audit *a, FILE *out, int type,
		       const char *text)
{
	unsigned long long serial;
	const char *fields;
	char pid[32];

	if (!jr2_audit_split(text, &serial, &fields))
		return;
	if (type == AUDIT_LANDLOCK_ACCESS || type == AUDIT_LANDLOCK_DOMAIN) {
		struct jr2_audit_record *r;

		if (a->n_pending == JR2_AUDIT_PENDING)
			flush(a, out, a->pending[0].serial, 0);
		r = &a->pending[a->n_pending++];
		r->serial = serial;
		r->type = type;
		snprintf(r->text, sizeof(r->text), "%s", fields);
	} else if (type == AUDIT_SYSCALL) {
		flush(a, out, serial,
		      jr2_audit_field(fields, "pid", pid, sizeof(pid))
			  ? atoi(pid)
			  : 0);
	} else if (type == AUDIT_EOE) {
		flush(a, out, serial, 0);
	}
}

int jr2_audit_read(struct jr2_audit *a, FILE *out, int timeout_ms)
{
	struct pollfd pfd = {.fd = a->fd, .events = POLLIN};
	char buf[16384], text[8192];
	int ready = poll(&pfd, 1, timeout_ms);

	if (ready < 0)
		return errno == EINTR ? 0 : -errno;
	while (ready > 0) {
		/* signed: audit's nlmsg_len is not aligned, NLMSG_NEXT may
		 * take it below 0 */
		int n = recv(a->fd, buf, sizeof(buf), MSG_DONTWAIT);
		struct nlmsghdr *h = (struct nlmsghdr *)buf;

		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		for (; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			size_t len = h->nlmsg_len - NLMSG_HDRLEN;

			if (len >= sizeof(text))
				len = sizeof(text) - 1;
			memcpy(text, NLMSG_DATA(h), len);
			text[len] = '\0';
			on_message(a, out, h->nlmsg_type, text);
		}
	}
	return 0;
}

void jr2_audit_close(struct jr2_audit *a, FILE *out)
{
	struct audit_status off = {.mask = AUDIT_STATUS_ENABLED, .enabled = 0};

	if (a->fd < 0)
		return;
	flush(a, out, 0, 0);
	if (a->enabled_by_us && audit_call(a->fd, AUDIT_SET, &off))
		fprintf(stderr, "jr2-trace: could not switch audit off again: "
				"run 'auditctl -e 0'\n");
	close(a->fd);
	a->fd = -1;
}
