/* SPDX-License-Identifier: MIT */
/*
 * vars.c - `actors vars [--man|--test]`: the ACTORS_* variables, or the
 * tests' ACT_TEST_* switches.
 *
 * The table of ACTORS_* variables that act_main reads (lib/settings/
 * vars.c), printed: one line each, tab-separated, for people and for
 * tests/vars.sh, which checks README.md's table against it; --man
 * prints act_config_init(3)'s ENVIRONMENT entries, which tests/vars.sh
 * compares with the page line for line; --test the table's test class
 * (the ACT_TEST_* switches) in the same columns, which tests/vars.sh
 * checks doc/testing.md's table against.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "settings/vars.h"
#include "../examples/opt.h"
#include "commands.h"

static const char vars_about[] =
	"Prints every ACTORS_* variable act_main reads, one a line, "
	"tab-separated:\nname, default (- when computed), act_config field "
	"(- for none), what it\naccepts and what it sets.\n";

static void vars_man(const struct act__var *v, const char *def,
		     const char *expect)
{
	printf(".TP\n.B %s\n%s.\n", v->name, v->doc);
	if (v->field)
		printf("Field \\fI%s\\fP; takes %s;\n", v->field, expect);
	else
		printf("No field; takes %s;\n", expect);
	if (def)
		printf("default \\fB%s\\fP.\n", def);
	else if (v->field)
		printf("default: computed, see \\fI%s\\fP.\n", v->field);
	else
		printf("default: none.\n");
}

int actors_vars_main(int argc, char **argv)
{
	char expect[400], buf[32];
	const char *def;
	bool man = false, test = false;
	const struct opt opts[] = {
		OPT_FLAG("man", &man,
			 "the entries of act_config_init(3)'s ENVIRONMENT "
			 "section"),
		OPT_FLAG("test", &test,
			 "the test switches (ACT_TEST_*) instead, their "
			 "defaults\n- (unset)"),
		OPT_END,
	};
	const struct opt_cmd cmd = { .name = "actors vars",
				     .opts = opts,
				     .about = vars_about };
	int id, ops, rc;

	rc = opt_parse(&cmd, argc, argv, &ops);
	if (rc != OPT_OK)
		return opt_status(rc);
	if (ops < argc)
		return opt_error(&cmd, "unexpected operand %s", argv[ops]);
	if (man && test)
		return opt_error(&cmd, "--man and --test: give one");
	for (id = 0; id < ACT_VARS; id++) {
		const struct act__var *v = &act__vars[id];

		if (!(v->flags & ACT_VAR_TEST) != !test)
			continue;
		act__vars_expect(v, expect, sizeof(expect));
		def = act__vars_default(v, buf, sizeof(buf));
		if (man)
			vars_man(v, def, expect);
		else
			printf("%s\t%s\t%s\t%s\t%s\n", v->name, def ? def : "-",
			       v->field ? v->field : "-", expect, v->doc);
	}
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "actors vars: writing failed\n");
		return 1;
	}
	return 0;
}
