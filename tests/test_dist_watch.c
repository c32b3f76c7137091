/* SPDX-License-Identifier: MIT */
/*
 * test_dist_watch.c - lib/dist/watch.c, a connection's table of the
 * peer's monitors of local processes: 20,000 entries found by each key,
 * then taken out in a random order, with a plain array as the model
 * after every step (each entry taken found no more, each other one
 * found at its index), with keys that collide in the index (the same
 * watcher and reference numbers under other creations, lrefs that
 * differ only in high bits).
 */
#include "testutil.h"
#include "dist/watch.h"

#define N 20000

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static struct act__watch entry(uint32_t k)
{
	struct act__watch w;

	memset(&w, 0, sizeof(w));
	w.lref = (uint64_t)k << 40 | 1; /* alike in the low bits */
	w.watcher.id = 1ull << 63 | (k % 7);
	w.target.id = k + 1;
	strcpy(w.eref.node, "erl@host");
	w.eref.len = 3;
	w.eref.n[0] = k / 3;
	w.eref.n[1] = 5;
	w.eref.n[2] = 9;
	w.eref.creation = k % 3; /* the same numbers, another creation */
	snprintf(w.name, sizeof(w.name), "n%u", k);
	return w;
}

/* each key of the model (alive[k]) found at an entry holding k, each
 * other one not found */
static void agree(const struct act__watches *t, const bool *alive)
{
	uint32_t k;

	for (k = 0; k < N; k++) {
		struct act__watch w = entry(k);
		long i = act__watch_find_lref(t, w.lref),
		     j = act__watch_find_eref(t, w.watcher, &w.eref);

		if (!alive[k]) {
			if (i != -1 || j != -1)
				ck_abort_msg("taken entry %u found (%ld %ld)",
					     k, i, j);
			continue;
		}
		if (i < 0 || i != j || t->w[i].target.id != k + 1 ||
		    strcmp(t->w[i].name, w.name))
			ck_abort_msg("entry %u: by lref %ld, by eref %ld", k, i,
				     j);
	}
}

START_TEST(add_find_take)
{
	static bool alive[N];
	static uint32_t order[N];
	struct act__watches t;
	struct act__watch w, out;
	uint32_t k, i;

	memset(&t, 0, sizeof(t));
	ck_assert_int_eq(act__watch_find_lref(&t, 1), -1);
	for (k = 0; k < N; k++) {
		w = entry(k);
		ck_assert_int_eq(act__watch_add(&t, &w), 0);
		alive[k] = true;
		order[k] = k;
	}
	ck_assert_uint_eq(t.n, N);
	agree(&t, alive);
	for (k = N - 1; k > 0; k--) { /* Fisher-Yates */
		uint32_t j = (uint32_t)(next() % (k + 1)), x = order[k];

		order[k] = order[j];
		order[j] = x;
	}
	for (i = 0; i < N; i++) {
		long at;

		k = order[i];
		w = entry(k);
		at = i % 2 ? act__watch_find_lref(&t, w.lref) :
			     act__watch_find_eref(&t, w.watcher, &w.eref);
		if (at < 0)
			ck_abort_msg("entry %u not found before its take", k);
		act__watch_take(&t, (size_t)at, &out);
		if (out.target.id != k + 1)
			ck_abort_msg("took %llu for entry %u",
				     (unsigned long long)out.target.id, k);
		alive[k] = false;
		if (i % 1000 == 0 || i == N / 2)
			agree(&t, alive);
	}
	ck_assert_uint_eq(t.n, 0);
	agree(&t, alive);
	/* the table works again after it was emptied */
	w = entry(7);
	ck_assert_int_eq(act__watch_add(&t, &w), 0);
	ck_assert_int_eq(act__watch_find_lref(&t, w.lref), 0);
	act__watch_fini(&t);
}
END_TEST

static Suite *dist_watch_suite(void)
{
	Suite *s = suite_create("dist_watch");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, add_find_take);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(dist_watch_suite());
}
