/* SPDX-License-Identifier: MIT */
/*
 * test_kvset.c - the kv example's sets (examples/kv/set.h) and their commands (c_set.c), run on one shard with
 * redis-server 7.0's replies.
 */
#include "kvtest.h"

START_TEST(set_type_exists)
{
	struct kv_db db;

	db_init(&db);
	run(&db, "TYPE nokey", "+none\r\n");
	db_flush(&db);
}
END_TEST

static Suite *kvset_suite(void)
{
	Suite *s = suite_create("kvset");
	TCase *tc = tcase_create("set");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, set_type_exists);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(kvset_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
