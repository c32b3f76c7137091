/* SPDX-License-Identifier: MIT */
/*
 * test_dist_peers.c - the node table and the remote pid tables
 * (lib/dist/peers.c): a remote pid's bits, a node's number kept for its
 * name, the refusal of bad names and of a node past the most, a remote
 * process's act_pid the same each time it is met and never another's,
 * the pid table's bound, and readers by act_pid while a writer appends.
 */
#include <pthread.h>

#include "testutil.h"
#include "dist/peers.h"

START_TEST(pid_bits)
{
	act_pid p = act__peers_pid_make(2047, ACT__PID_ENTRY_MASK);

	ck_assert(act__peers_is_remote(p));
	ck_assert_uint_eq(act__peers_pid_node(p), 2047);
	ck_assert_uint_eq(act__peers_pid_entry(p), ACT__PID_ENTRY_MASK);
	p = act__peers_pid_make(1, 0);
	ck_assert(act__peers_is_remote(p));
	ck_assert_uint_eq(act__peers_pid_node(p), 1);
	ck_assert_uint_eq(act__peers_pid_entry(p), 0);
	/* a local pid of the largest generation the widest table allows */
	ck_assert(!act__peers_is_remote(
		(act_pid){ ((1ull << 31) - 1) << 32 | 0xffffffffu }));
}
END_TEST

static struct act__peers nodes;

static struct act__peer *get(const char *name)
{
	struct act__peer *nd = NULL;

	ck_assert_int_eq(act__peers_get(&nodes, name, strlen(name), &nd), 0);
	return nd;
}

/* A remote pid prints as <NODE.ENTRY.0>, not as a local slot would */
START_TEST(pid_format_remote)
{
	char buf[ACT_PID_STRLEN];

	ck_assert_int_eq(act_pid_format(act__peers_pid_make(3, 42), buf,
					sizeof(buf)),
			 8);
	ck_assert_str_eq(buf, "<3.42.0>");
	act_pid_format(act__peers_pid_make(ACT__DIST_NODES_MAX,
					   ACT__PID_ENTRY_MASK),
		       buf, sizeof(buf));
	ck_assert_str_eq(buf, "<2047.4503599627370495.0>");
}
END_TEST

START_TEST(node_names)
{
	static const char *const bad[] = { "",	 "a",	  "@h",	 "a@",
					   "ab", "a@b@c", "noat" };
	struct act__peer *a, *b, *nd;
	char big[300];
	size_t i;

	act__peers_init(&nodes);
	a = get("a@host");
	b = get("b@host");
	ck_assert_uint_eq(a->num, 1);
	ck_assert_uint_eq(b->num, 2);
	ck_assert_ptr_eq(get("a@host"), a);
	ck_assert_ptr_eq(act__peers_at(&nodes, 2), b);
	ck_assert_ptr_null(act__peers_at(&nodes, 3));
	ck_assert_ptr_null(act__peers_at(&nodes, 0));
	ck_assert_ptr_null(act__peers_at(&nodes, ACT__DIST_NODES_MAX + 1));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_int_eq(act__peers_get(&nodes, bad[i], strlen(bad[i]),
						&nd),
				 -EINVAL);
	ck_assert_int_eq(act__peers_get(&nodes, "a\0b@h", 5, &nd), -EINVAL);
	ck_assert_int_eq(act__peers_get(&nodes, "a b@h", 5, &nd), -EINVAL);
	ck_assert_int_eq(act__peers_get(&nodes, "\xc3\xa9@h", 4, &nd), -EINVAL);
	memset(big, 'x', sizeof(big));
	big[1] = '@';
	ck_assert_int_eq(act__peers_get(&nodes, big, 256, &nd), -EINVAL);
	ck_assert_int_eq(act__peers_get(&nodes, big, 255, &nd), 0);
	ck_assert_uint_eq(nd->num, 3);
	act__peers_fini(&nodes);
}
END_TEST

/* 2047 nodes, then a new name refused while the known ones stay */
START_TEST(node_limit)
{
	struct act__peer *nd;
	char name[32];
	uint32_t i;
	int n;

	act__peers_init(&nodes);
	for (i = 1; i <= ACT__DIST_NODES_MAX; i++) {
		n = snprintf(name, sizeof(name), "n%u@h", i);
		ck_assert_int_eq(act__peers_get(&nodes, name, (size_t)n, &nd),
				 0);
		ck_assert_uint_eq(nd->num, i);
	}
	ck_assert_int_eq(act__peers_get(&nodes, "late@h", 6, &nd), -ENOSPC);
	for (i = 1; i <= ACT__DIST_NODES_MAX; i += 97) {
		n = snprintf(name, sizeof(name), "n%u@h", i);
		ck_assert_int_eq(act__peers_get(&nodes, name, (size_t)n, &nd),
				 0);
		ck_assert_uint_eq(nd->num, i);
	}
	act__peers_fini(&nodes);
}
END_TEST

START_TEST(pids_kept)
{
	struct act__peer *a, *b, *nd;
	struct act__rpid r, got;
	act_pid p, q, first[3];
	uint32_t i;

	act__peers_init(&nodes);
	a = get("a@host");
	b = get("b@host");
	for (i = 0; i < 3; i++) {
		r = (struct act__rpid){ 100 + i, 0, 7 };
		ck_assert_int_eq(act__peers_pid_get(a, &r, &first[i]), 0);
		ck_assert_uint_eq(act__peers_pid_node(first[i]), a->num);
		ck_assert_uint_eq(act__peers_pid_entry(first[i]), i);
	}
	/* the same process: the same act_pid; one field other: another */
	r = (struct act__rpid){ 101, 0, 7 };
	ck_assert_int_eq(act__peers_pid_get(a, &r, &p), 0);
	ck_assert(act_pid_eq(p, first[1]));
	r.creation = 8; /* the node restarted: another process */
	ck_assert_int_eq(act__peers_pid_get(a, &r, &q), 0);
	ck_assert(!act_pid_eq(q, first[1]));
	r.creation = 7;
	r.serial = 1;
	ck_assert_int_eq(act__peers_pid_get(a, &r, &q), 0);
	ck_assert(!act_pid_eq(q, first[1]));
	/* the same numbers on another node: another process */
	r = (struct act__rpid){ 101, 0, 7 };
	ck_assert_int_eq(act__peers_pid_get(b, &r, &q), 0);
	ck_assert_uint_eq(act__peers_pid_node(q), b->num);
	ck_assert(!act_pid_eq(q, first[1]));
	/* found back by act_pid */
	ck_assert(act__peers_pid_find(&nodes, first[2], &got, &nd));
	ck_assert_ptr_eq(nd, a);
	ck_assert_uint_eq(got.id, 102);
	ck_assert_uint_eq(got.creation, 7);
	ck_assert(!act__peers_pid_find(&nodes, act__peers_pid_make(a->num, 99),
				       &got, NULL));
	ck_assert(!act__peers_pid_find(&nodes, act__peers_pid_make(9, 0), &got,
				       NULL));
	ck_assert(!act__peers_pid_find(&nodes, (act_pid){ 5 }, &got, NULL));
	act__peers_fini(&nodes);
}
END_TEST

/* ACT__DIST_PIDS_MAX of one node, each its own entry across pages and
 * index growths; then a new one refused, the known ones still found */
START_TEST(pids_limit)
{
	struct act__peer *a;
	struct act__rpid r, got;
	act_pid p;
	uint32_t i;

	act__peers_init(&nodes);
	a = get("a@host");
	/* plain tests in the loops: each ck_assert writes its place down
	 * (a system call), a million of them seconds */
	for (i = 0; i < ACT__DIST_PIDS_MAX; i++) {
		r = (struct act__rpid){ i, i >> 3, 1 };
		if (act__peers_pid_get(a, &r, &p) != 0 ||
		    act__peers_pid_entry(p) != i)
			ck_abort_msg(
				"pid %u got entry %llu", i,
				(unsigned long long)act__peers_pid_entry(p));
	}
	r = (struct act__rpid){ 1u << 30, 0, 1 };
	ck_assert_int_eq(act__peers_pid_get(a, &r, &p), -ENOSPC);
	for (i = 0; i < ACT__DIST_PIDS_MAX; i += 4099) {
		r = (struct act__rpid){ i, i >> 3, 1 };
		ck_assert_int_eq(act__peers_pid_get(a, &r, &p), 0);
		ck_assert_uint_eq(act__peers_pid_entry(p), i);
		ck_assert(act__peers_pid_find(&nodes, p, &got, NULL));
		ck_assert_uint_eq(got.id, i);
	}
	act__peers_fini(&nodes);
}
END_TEST

/* Readers by act_pid while one thread appends: every entry published
 * is read whole (id and serial agree, as the writer made them). */
static _Atomic int reading_done;

static void *reader(void *arg)
{
	struct act__peer *a = arg;
	struct act__rpid got;
	uint64_t e, bad = 0;
	uint32_t n;

	while (!atomic_load(&reading_done)) {
		n = atomic_load_explicit(&a->n, memory_order_acquire);
		for (e = n > 64 ? n - 64 : 0; e < n; e++)
			if (!act__peers_pid_find(&nodes,
						 act__peers_pid_make(a->num, e),
						 &got, NULL) ||
			    got.serial != got.id * 3 + 1)
				bad++;
	}
	return (void *)(uintptr_t)bad;
}

START_TEST(readers_while_appending)
{
	struct act__peer *a;
	struct act__rpid r;
	pthread_t t;
	void *bad;
	act_pid p;
	uint32_t i;

	act__peers_init(&nodes);
	a = get("a@host");
	atomic_store(&reading_done, 0);
	ck_assert_int_eq(pthread_create(&t, NULL, reader, a), 0);
	for (i = 0; i < 200000; i++) {
		r = (struct act__rpid){ i, i * 3 + 1, 2 };
		if (act__peers_pid_get(a, &r, &p) != 0)
			ck_abort_msg("append %u refused", i);
	}
	atomic_store(&reading_done, 1);
	pthread_join(t, &bad);
	ck_assert_uint_eq((uintptr_t)bad, 0);
	act__peers_fini(&nodes);
}
END_TEST

static Suite *dist_peers_suite(void)
{
	Suite *s = suite_create("dist_peers");
	TCase *tc = tcase_create("core");
	TCase *lim = tcase_create("limits");
	TCase *rd = tcase_create("readers");

	tcase_add_test(tc, pid_bits);
	tcase_add_test(tc, pid_format_remote);
	tcase_add_test(tc, node_names);
	tcase_add_test(tc, pids_kept);
	tcase_set_timeout(lim, 120);
	tcase_add_test(lim, node_limit);
	tcase_add_test(lim, pids_limit);
	tcase_set_timeout(rd, 120);
	tcase_add_test(rd, readers_while_appending);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, lim);
	suite_add_tcase(s, rd);
	return s;
}

int main(void)
{
	return tu_run_suite(dist_peers_suite());
}
