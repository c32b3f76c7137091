/* SPDX-License-Identifier: MIT */
/*
 * hello.c - the README's example: a parent spawns workers that square
 * numbers and reply; the parent sums the replies.
 */
#include <actors.h>
#include <stdio.h>

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

int main(void)
{
	int rc = act_main(NULL, parent, NULL);

	if (rc < 0)
		fprintf(stderr, "act_main: error %d\n", rc);
	return rc != 0;
}
