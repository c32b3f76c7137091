/* SPDX-License-Identifier: MIT */
/*
 * test_asan.c - the controls of the AddressSanitizer and UBSan build
 * (built only by ./configure --enable-sanitizer=address): a silent
 * sanitizer proves nothing unless it speaks up on a planted bug. Each
 * case runs this program again with a mode argument and reads what the
 * sanitizer said on stderr and in the exit status.
 *
 *   envelope-after-free  a process reads a message's payload after
 *                        act_msg_free: the slab's poisoning (slab.h)
 *                        makes ASan report it
 *   envelope-overflow    a write past a received payload's length, into
 *                        its size class's room: reported
 *   dead-stack           a pointer to a dead process's local, read once
 *                        its stack is back in the cache (stack.c):
 *                        reported
 *   local-overflow       a write past a local array of a process, on
 *                        its own stack: reported, so ASan knows the
 *                        process stacks (the fiber switches, ctx.h)
 *   signed-overflow      UBSan: a signed overflow in a process
 *   clean                messages of every class sent, read and freed,
 *                        processes spawned onto reused stacks: silent
 */
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "testrt.h"

#if !TU_UNDER_ASAN
#error "test_asan is built only with --enable-sanitizer=address"
#endif

#define ASAN_EXIT 23 /* ASAN_OPTIONS exitcode: a report was made */

enum { T_DATA = 1, T_PTR, T_GO };

static volatile int sink;

/* The modes run outside Check's runner: a failed premise says where and
 * aborts (status 134, not the report's 23). */
#define MUST(c)                                                             \
	do {                                                                \
		if (!(c)) {                                                 \
			fprintf(stderr, "test_asan: %s:%d: %s\n", __FILE__, \
				__LINE__, #c);                              \
			abort();                                            \
		}                                                           \
	} while (0)

static struct act_msg *self_message(size_t len)
{
	char buf[256];

	memset(buf, 7, sizeof(buf));
	MUST(act_send(act_self(), T_DATA, buf, len) == 0);
	return act_receive(ACT_FOREVER);
}

static void after_free_main(void *arg)
{
	struct act_msg *m = self_message(64);
	volatile char *p = m->data;

	(void)arg;
	act_msg_free(m);
	sink = p[3]; /* the planted bug */
}

static void overflow_main(void *arg)
{
	struct act_msg *m = self_message(10);
	volatile char *p = m->data;

	(void)arg;
	p[24] = 1; /* past the payload of 10 bytes, within its class */
	act_msg_free(m);
}

static void dead_local(void *arg)
{
	volatile char local[64];
	char *p = (char *)local;

	memset(p, 5, sizeof(local));
	MUST(act_send(*(act_pid *)arg, T_PTR, &p, sizeof(p)) == 0);
}

static void dead_stack_main(void *arg)
{
	act_pid self = act_self(), d;
	struct act_msg *m;
	volatile char *p;

	(void)arg;
	d = act_spawn(dead_local, &self);
	m = act_receive(ACT_FOREVER);
	memcpy(&p, m->data, sizeof(p));
	act_msg_free(m);
	MUST(tu_wait_gone(d)); /* reaped: its stack is cached */
	sink = p[1];
}

static act__noinline void overflow_local(int n)
{
	volatile char a[16];
	volatile char *q = a; /* ASan's to find, not UBSan's bounds check */

	q[n] = 1; /* n is 16: one past */
	sink = a[0];
}

static void local_overflow_main(void *arg)
{
	(void)arg;
	overflow_local(16);
}

static act__noinline int add(int a, int b)
{
	return a + b;
}

static void signed_overflow_main(void *arg)
{
	(void)arg;
	sink = add(INT_MAX, (int)(intptr_t)arg + 1);
}

static void clean_child(void *arg)
{
	struct act_msg *m = act_receive(ACT_FOREVER);

	(void)arg;
	MUST(act_reply(m, T_DATA, m->data, m->len) == 0);
	act_msg_free(m);
}

/* Every class's size and one malloc'd, each payload read in full, then
 * freed; the processes' stacks reused many times over. */
static void clean_main(void *arg)
{
	static char big[40000];
	size_t len;
	struct act_msg *r;
	int i;

	(void)arg;
	for (i = 0; i < 300; i++) {
		len = (size_t)(i * 131) % sizeof(big);
		memset(big, i, len);
		MUST(act_call(act_spawn(clean_child, NULL), T_DATA, big, len,
			      ACT_FOREVER, &r) == 0);
		MUST(r->len == len);
		MUST(len == 0 || memcmp(r->data, big, len) == 0);
		act_msg_free(r);
	}
}

static const struct {
	const char *mode;
	void (*fn)(void *);
	const char *want; /* in the report; NULL: silent */
	const char *where;
} modes[] = {
	{ "envelope-after-free", after_free_main, "use-after-poison",
	  "after_free_main" },
	{ "envelope-overflow", overflow_main, "use-after-poison",
	  "overflow_main" },
	{ "dead-stack", dead_stack_main, "use-after-poison",
	  "dead_stack_main" },
	{ "local-overflow", local_overflow_main, "stack-buffer-overflow",
	  "overflow_local" },
	{ "signed-overflow", signed_overflow_main,
	  "runtime error: signed integer overflow", "add" },
	{ "clean", clean_main, NULL, NULL },
};

/* ---- the tests: run a mode, read the sanitizer's verdict -------------- */

static void exec_mode(void *arg)
{
	char *argv[] = { "test_asan", arg, NULL };

	setenv("ASAN_OPTIONS", "exitcode=23", 1);
	setenv("UBSAN_OPTIONS",
	       "halt_on_error=1:exitcode=23:print_stacktrace=1", 1);
	unsetenv("ACTORS_SCHEDULERS");
	execv("/proc/self/exe", argv);
	_exit(127);
}

static struct tu_child v;

START_TEST(planted)
{
	tu_run_child(exec_mode, (void *)modes[_i].mode, &v);
	if (!modes[_i].want) {
		ck_assert_msg(WIFEXITED(v.status) &&
				      WEXITSTATUS(v.status) == 0 &&
				      !strstr(v.err, "Sanitizer") &&
				      !strstr(v.err, "runtime error"),
			      "%s: status %#x; stderr:\n%s", modes[_i].mode,
			      v.status, v.err);
		return;
	}
	ck_assert_msg(WIFEXITED(v.status) && WEXITSTATUS(v.status) == ASAN_EXIT,
		      "%s: status %#x, not exit %d; stderr:\n%s",
		      modes[_i].mode, v.status, ASAN_EXIT, v.err);
	ck_assert_msg(strstr(v.err, modes[_i].want),
		      "%s: no \"%s\"; stderr:\n%s", modes[_i].mode,
		      modes[_i].want, v.err);
	ck_assert_msg(strstr(v.err, modes[_i].where),
		      "%s: the report does not name %s:\n%s", modes[_i].mode,
		      modes[_i].where, v.err);
}
END_TEST

static Suite *asan_suite(void)
{
	Suite *s = suite_create("asan");
	TCase *tc = tcase_create("controls");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, planted, 0,
			    (int)(sizeof(modes) / sizeof(modes[0])));
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	struct act_config cfg;
	size_t i;

	if (argc == 2) {
		for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
			if (!strcmp(argv[1], modes[i].mode)) {
				cfg = tu_with_workers(2);
				return act_main(&cfg, modes[i].fn, NULL) ? 1 :
									   0;
			}
		return 2;
	}
	return tu_run_suite(asan_suite());
}
