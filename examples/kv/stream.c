/* SPDX-License-Identifier: MIT */
/* stream.c - the kv example's stream type (stream.h). */
#include "stream.h"

#include <stdlib.h>

struct kv_stream {
	size_t n;
};

struct kv_stream *stream_new(void)
{
	return calloc(1, sizeof(struct kv_stream));
}

void stream_free(struct kv_stream *x)
{
	free(x);
}
