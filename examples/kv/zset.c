/* SPDX-License-Identifier: MIT */
/* zset.c - the kv example's zset type (zset.h). */
#include "zset.h"

#include <stdlib.h>

struct kv_zset {
	size_t n;
};

struct kv_zset *zset_new(void)
{
	return calloc(1, sizeof(struct kv_zset));
}

void zset_free(struct kv_zset *x)
{
	free(x);
}
