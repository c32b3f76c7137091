/* SPDX-License-Identifier: MIT */
/*
 * zset.h - the kv example's zset type. One owner (a shard process): nothing
 * here is shared.
 */
#ifndef KV_ZSET_H
#define KV_ZSET_H

#include <stdbool.h>
#include <stddef.h>

#include "dict.h"

struct kv_zset;

struct kv_zset *zset_new(void);
void zset_free(struct kv_zset *x);

#endif /* KV_ZSET_H */
