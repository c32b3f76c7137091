/* SPDX-License-Identifier: MIT */
/*
 * set.h - the kv example's set type. One owner (a shard process): nothing
 * here is shared.
 */
#ifndef KV_SET_H
#define KV_SET_H

#include <stdbool.h>
#include <stddef.h>

#include "dict.h"

struct kv_set;

struct kv_set *set_new(void);
void set_free(struct kv_set *x);

#endif /* KV_SET_H */
