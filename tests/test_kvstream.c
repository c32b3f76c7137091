/* SPDX-License-Identifier: MIT */
/*
 * test_kvstream.c - the kv example's streams (examples/kv/stream.h) and
 * their commands (c_stream.c), run on one shard with redis-server 7.0's
 * replies.
 */
#include "kvtest.h"

START_TEST(stream_type_exists)
{
	struct kv_db db;

	db_init(&db);
	run(&db, "TYPE nokey", "+none\r\n");
	db_flush(&db);
}
END_TEST

static Suite *kvstream_suite(void)
{
	Suite *s = suite_create("kvstream");
	TCase *tc = tcase_create("stream");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, stream_type_exists);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(kvstream_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
