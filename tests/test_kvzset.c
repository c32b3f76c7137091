/* SPDX-License-Identifier: MIT */
/*
 * test_kvzset.c - the kv example's sorted sets (examples/kv/zset.h) and their commands (c_zset.c), run on one shard with
 * redis-server 7.0's replies.
 */
#include "kvtest.h"

START_TEST(zset_type_exists)
{
	struct kv_db db;

	db_init(&db);
	run(&db, "TYPE nokey", "+none\r\n");
	db_flush(&db);
}
END_TEST

static Suite *kvzset_suite(void)
{
	Suite *s = suite_create("kvzset");
	TCase *tc = tcase_create("zset");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, zset_type_exists);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(kvzset_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
