// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target of the request parser (`make fuzz`): any bytes must give
 * either a request whose fields satisfy the parser's own rules or a refusal
 * with a message; never a crash, a leak or an out-of-bounds read (ASan,
 * UBSan).  An accepted request is re-encoded and must parse the same.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "request.h"

static void check_accepted(const struct jr2_request *req)
{
	struct jr2_request again;
	struct jr2_msg msg;
	char err[512];

	if (req->op == JR2_OP_NONE || (req->op != JR2_OP_STATUS && !req->argc))
		abort();
	jr2_msg_init(&msg);
	jr2_msg_field(&msg, "op", jr2_op_name(req->op));
	if (req->bearer)
		jr2_msg_field(&msg, "bearer", req->bearer);
	if (req->cwd)
		jr2_msg_field(&msg, "cwd", req->cwd);
	if (req->id)
		jr2_msg_field(&msg, "id", req->id);
	if (req->json)
		jr2_msg_field(&msg, "json", "1");
	for (size_t i = 0; i < req->argc; i++)
		jr2_msg_field(&msg, "arg", req->argv[i]);
	for (size_t i = 0; i < req->envc; i++)
		jr2_msg_field(&msg, "env", req->envp[i]);
	for (size_t i = 0; i < req->n_secrets; i++)
		jr2_msg_field(&msg, "secret", req->secrets[i]);
	if (msg.failed || jr2_request_parse(msg.buf, msg.len, msg.len, &again,
					    err, sizeof(err)))
		abort();
	if (again.argc != req->argc || again.envc != req->envc ||
	    again.n_secrets != req->n_secrets || again.op != req->op)
		abort();
	for (size_t i = 0; i < req->argc; i++)
		if (strcmp(again.argv[i], req->argv[i]))
			abort();
	jr2_request_free(&again);
	jr2_msg_free(&msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jr2_request req;
	char err[512] = "";

	if (jr2_request_parse((const char *)data, size, JR2_REQ_MAX_BYTES, &req,
			      err, sizeof(err))) {
		if (!err[0] || req.storage)
			abort();
		return 0;
	}
	check_accepted(&req);
	jr2_request_free(&req);
	return 0;
}
