/* SPDX-License-Identifier: MIT */
/*
 * d21e656-kv-hash-free-after-grow.c - kv_server died of a segmentation
 * fault in hash_free when a key that had been a hash grown from the small
 * encoding to the large was replaced or removed.
 *
 * Found by a seeded random command stream against examples/kv_server
 * (issue 28): a SET over such a key (examples/kv/cmd.c) freed the old
 * value, and hash_free walked the small array's 2n entries when the
 * array was gone. grow_large (then in examples/kv/db.c, now hash.c)
 * freed the small array but left its pair count. Fixed in d21e656: the
 * count is cleared with the array, and hash_free frees the array only
 * while the hash is small.
 *
 * The kv example's core alone (KV_CORE of Makefile.am, no runtime), its
 * commands run by name on one shard's keyspace (tests/kvtest.h): every
 * way a key goes (SET over it, DEL, an expiry in the past, lazy and swept
 * expiry, FLUSHALL) after each history that changes its encoding. Without
 * the fix it dies of SIGSEGV at the first, in every build.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kvtest.h"

START_TEST(every_type_replaced_and_freed)
{
	static const char *const make[] = {
		"HSET k a 1|HSET k b " LONG64 "x", /* small, then large */
		"HSET k a 1|HSET k b 2|HDEL k a",  /* small, shrunk */
		"HSET k a " LONG64 "y|HDEL k a",   /* large, emptied: gone */
		"RPUSH k a b c|LPOP k",
		"SET k v|APPEND k " LONG64 "z",
	};
	static const char *const end[] = {
		"SET k v", "DEL k", "EXPIRE k -1", "FLUSHALL", "lazy", "swept",
	};
	struct kv_entry *e;
	struct kv_db db;
	char steps[512], *save, *t;
	size_t i, j;

	for (i = 0; i < sizeof(make) / sizeof(make[0]); i++) {
		for (j = 0; j < sizeof(end) / sizeof(end[0]); j++) {
			db_init(&db);
			snprintf(steps, sizeof(steps), "%s", make[i]);
			for (t = strtok_r(steps, "|", &save); t;
			     t = strtok_r(NULL, "|", &save))
				run_any(&db, t);
			e = find_key(&db, "k");
			if (!strcmp(end[j], "lazy") ||
			    !strcmp(end[j], "swept")) {
				if (e)
					db_set_expire(&db, e, kv_now_ms() - 1);
				if (!strcmp(end[j], "lazy"))
					run_any(&db, "GET k");
				else
					while (db_sweep(&db, 16) ||
					       db.sweep_cursor)
						;
			} else {
				run_any(&db, end[j]);
			}
			if (!strcmp(end[j], "SET k v"))
				run(&db, "GET k", "$1\r\nv\r\n");
			else
				run(&db, "EXISTS k", ":0\r\n");
			db_flush(&db);
		}
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("d21e656");
	TCase *tc = tcase_create("kv-hash-free-after-grow");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, every_type_replaced_and_freed);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
