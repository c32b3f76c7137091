#include <check.h>
#include <stdlib.h>
#include "actors.h"

static void main_proc(void *arg) { *(int *)arg = 1; }

START_TEST(test_run_main)
{
	int ran = 0;
	ck_assert_int_eq(act_main(NULL, main_proc, &ran), 0);
	ck_assert_int_eq(ran, 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("smoke");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int nf;

	tcase_add_test(tc, test_run_main);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
