/* SPDX-License-Identifier: MIT */
/*
 * hello.c - the README's example: a parent spawns workers that square
 * numbers and reply; the parent sums the replies. (The README shows it
 * without args(), its answer to --help and to words it does not take.)
 */
#include <actors.h>
#include <stdio.h>
#include <string.h>

enum { SQUARE = 1, RESULT = 2 };

static void squarer(void *arg)
{
	act_pid parent = *(act_pid *)arg;
	struct act_msg *m = act_receive(ACT_FOREVER);
	long n = *(long *)m->data, sq = n * n;

	act_msg_free(m);
	act_send(parent, RESULT, &sq, sizeof(sq));
}

static void parent(void *arg)
{
	act_pid self = act_self();
	long i, sum = 0;

	(void)arg;
	for (i = 1; i <= 10; i++) {
		act_pid child = act_spawn(squarer, &self);

		act_send(child, SQUARE, &i, sizeof(i));
	}
	for (i = 0; i < 10; i++) {
		struct act_msg *m = act_receive(ACT_FOREVER);

		sum += *(long *)m->data;
		act_msg_free(m);
	}
	printf("sum of squares 1..10 = %ld\n", sum);
	act_exit(sum == 385 ? 0 : 1);
}

/* No options: -h or --help says what it runs, another word is refused
 * (examples/opt.h's convention, without its table). -1 to go on, else
 * the exit status. */
static int args(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: hello\n"
			       "Ten processes square 1 to 10 and reply; the "
			       "main process prints\nthe sum of the squares. "
			       "It takes no options.\n"
			       "exit status: 0 the sum is 385, 1 it is not or "
			       "the runtime failed,\n2 a usage error\n");
			return 0;
		}
	if (argc > 1) {
		fprintf(stderr, "hello: %s %s: it takes none (hello --help)\n",
			argv[1][0] == '-' ? "unknown option" :
					    "unexpected operand",
			argv[1]);
		return 2;
	}
	return -1;
}

int main(int argc, char **argv)
{
	int rc = args(argc, argv);

	if (rc >= 0)
		return rc;
	rc = act_main(NULL, parent, NULL);
	if (rc < 0)
		fprintf(stderr, "hello: act_main: %s\n", strerror(-rc));
	return rc != 0;
}
