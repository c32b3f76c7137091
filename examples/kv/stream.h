/* SPDX-License-Identifier: MIT */
/*
 * stream.h - the kv example's stream type. One owner (a shard process): nothing
 * here is shared.
 */
#ifndef KV_STREAM_H
#define KV_STREAM_H

#include <stdbool.h>
#include <stddef.h>

#include "dict.h"

struct kv_stream;

struct kv_stream *stream_new(void);
void stream_free(struct kv_stream *x);

#endif /* KV_STREAM_H */
