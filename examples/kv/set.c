/* SPDX-License-Identifier: MIT */
/* set.c - the kv example's set type (set.h). */
#include "set.h"

#include <stdlib.h>

struct kv_set {
	size_t n;
};

struct kv_set *set_new(void)
{
	return calloc(1, sizeof(struct kv_set));
}

void set_free(struct kv_set *x)
{
	free(x);
}
