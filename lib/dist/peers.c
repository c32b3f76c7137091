/* SPDX-License-Identifier: MIT */
/*
 * peers.c - the node table and each node's remote pid table (node.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "peers.h"
#include "base/spin.h"

void act__peers_init(struct act__peers *t)
{
	memset(t, 0, sizeof(*t));
}

static void node_free(struct act__peer *nd)
{
	uint32_t i;

	for (i = 0; i < ACT__DIST_PAGES && nd->pages[i]; i++)
		free(nd->pages[i]);
	free(nd->index);
	free(nd);
}

void act__peers_fini(struct act__peers *t)
{
	uint32_t i;

	for (i = 1; i <= t->n; i++)
		node_free(atomic_load_explicit(&t->node[i],
					       memory_order_relaxed));
	memset(t, 0, sizeof(*t));
}

/* FNV-1a: names are short, and not chosen to collide by anyone who
 * could not also just make 2047 nodes */
static uint32_t name_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

/* alive@host: both parts not empty, one '@', printable ASCII (as host
 * names are; so that a name reads back as the bytes it was written
 * with, whichever atom form carried it), within the limit */
static bool name_ok(const char *s, size_t n)
{
	const char *at;
	size_t i;

	if (n < 3 || n > ACT__DIST_NAME_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (s[i] < 0x21 || s[i] > 0x7e)
			return false;
	at = memchr(s, '@', n);
	return at && at != s && at != s + n - 1 &&
	       !memchr(at + 1, '@', n - (size_t)(at - s) - 1);
}

struct act__peer *act__peers_find(struct act__peers *t, const char *name,
				  size_t len)
{
	struct act__peer *nd, *found = NULL;
	uint32_t b, num;

	if (!name_ok(name, len))
		return NULL;
	act__spin_lock(&t->lock); /* pairs with the unlock below */
	for (b = name_hash(name, len) & (ACT__DIST_NAME_BUCKETS - 1);
	     (num = t->by_name[b]) != 0;
	     b = (b + 1) & (ACT__DIST_NAME_BUCKETS - 1)) {
		nd = atomic_load_explicit(&t->node[num], memory_order_relaxed);
		if (nd->name_len == len && !memcmp(nd->name, name, len)) {
			found = nd;
			break;
		}
	}
	act__spin_unlock(&t->lock); /* pairs with the lock above */
	return found;
}

int act__peers_get(struct act__peers *t, const char *name, size_t len,
		   struct act__peer **out)
{
	uint32_t b, num;
	struct act__peer *nd;
	int rc = 0;

	if (!name_ok(name, len))
		return -EINVAL;
	act__spin_lock(&t->lock); /* pairs with the unlock below */
	for (b = name_hash(name, len) & (ACT__DIST_NAME_BUCKETS - 1);
	     (num = t->by_name[b]) != 0;
	     b = (b + 1) & (ACT__DIST_NAME_BUCKETS - 1)) {
		nd = atomic_load_explicit(&t->node[num], memory_order_relaxed);
		if (nd->name_len == len && !memcmp(nd->name, name, len))
			goto found;
	}
	if (t->n >= ACT__DIST_NODES_MAX) {
		rc = -ENOSPC;
		goto out;
	}
	nd = calloc(1, sizeof(*nd));
	if (!nd) {
		rc = -ENOMEM;
		goto out;
	}
	nd->num = ++t->n;
	nd->name_len = (uint8_t)len;
	memcpy(nd->name, name, len);
	t->by_name[b] = (uint16_t)nd->num;
	/* release: the node's fields before its number can be read; pairs
	 * with the acquire load in act__peers_at */
	atomic_store_explicit(&t->node[nd->num], nd, memory_order_release);
found:
	*out = nd;
out:
	act__spin_unlock(&t->lock); /* pairs with the lock above */
	return rc;
}

struct act__peer *act__peers_at(struct act__peers *t, uint32_t num)
{
	if (num == 0 || num > ACT__DIST_NODES_MAX)
		return NULL;
	/* acquire: pairs with the release store in act__peers_get */
	return atomic_load_explicit(&t->node[num], memory_order_acquire);
}

static struct act__rpid *entry_at(struct act__peer *nd, uint32_t e)
{
	return &nd->pages[e >> ACT__DIST_PAGE_BITS][e & (ACT__DIST_PAGE - 1)];
}

static uint32_t rpid_hash(const struct act__rpid *r)
{
	uint64_t h = ((uint64_t)r->id << 32 | r->serial) ^
		     ((uint64_t)r->creation * 0x9e3779b97f4a7c15ull);

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(h ^ (h >> 32));
}

/* Under nd's lock: the index at twice its size (or its first 64). */
static int index_grow(struct act__peer *nd, uint32_t n)
{
	uint32_t cap = nd->index_cap ? nd->index_cap * 2 : 64, i, b;
	uint32_t *ix = calloc(cap, sizeof(*ix));

	if (!ix)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		b = rpid_hash(entry_at(nd, i)) & (cap - 1);
		while (ix[b])
			b = (b + 1) & (cap - 1);
		ix[b] = i + 1;
	}
	free(nd->index);
	nd->index = ix;
	nd->index_cap = cap;
	return 0;
}

int act__peers_pid_get(struct act__peer *nd, const struct act__rpid *r,
		       act_pid *out)
{
	uint32_t n, b, e;
	struct act__rpid *x;
	int rc = 0;

	act__spin_lock(&nd->lock); /* pairs with the unlock below */
	n = atomic_load_explicit(&nd->n, memory_order_relaxed);
	if (nd->index_cap) {
		for (b = rpid_hash(r) & (nd->index_cap - 1); (e = nd->index[b]);
		     b = (b + 1) & (nd->index_cap - 1)) {
			x = entry_at(nd, e - 1);
			if (x->id == r->id && x->serial == r->serial &&
			    x->creation == r->creation) {
				*out = act__peers_pid_make(nd->num, e - 1);
				goto out;
			}
		}
	}
	if (n >= ACT__DIST_PIDS_MAX) {
		rc = -ENOSPC;
		goto out;
	}
	/* the index at most half full */
	if ((n + 1) * 2 > nd->index_cap && (rc = index_grow(nd, n)) < 0)
		goto out;
	if (!(n & (ACT__DIST_PAGE - 1)) &&
	    !nd->pages[n >> ACT__DIST_PAGE_BITS]) {
		nd->pages[n >> ACT__DIST_PAGE_BITS] =
			malloc(ACT__DIST_PAGE * sizeof(struct act__rpid));
		if (!nd->pages[n >> ACT__DIST_PAGE_BITS]) {
			rc = -ENOMEM;
			goto out;
		}
	}
	*entry_at(nd, n) = *r;
	for (b = rpid_hash(r) & (nd->index_cap - 1); nd->index[b];
	     b = (b + 1) & (nd->index_cap - 1))
		;
	nd->index[b] = n + 1;
	/* release: the entry before its number can be read; pairs with the
	 * acquire load in act__peers_pid_find */
	atomic_store_explicit(&nd->n, n + 1, memory_order_release);
	*out = act__peers_pid_make(nd->num, n);
out:
	act__spin_unlock(&nd->lock); /* pairs with the lock above */
	return rc;
}

bool act__peers_pid_find(struct act__peers *t, act_pid p, struct act__rpid *r,
			 struct act__peer **ndp)
{
	struct act__peer *nd;
	uint64_t e;

	if (!act__peers_is_remote(p))
		return false;
	nd = act__peers_at(t, act__peers_pid_node(p));
	e = act__peers_pid_entry(p);
	/* acquire: pairs with the release store in act__peers_pid_get */
	if (!nd || e >= atomic_load_explicit(&nd->n, memory_order_acquire))
		return false;
	*r = *entry_at(nd, (uint32_t)e);
	if (ndp)
		*ndp = nd;
	return true;
}
