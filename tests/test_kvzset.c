/* SPDX-License-Identifier: MIT */
/*
 * test_kvzset.c - the kv example's sorted sets (examples/kv/zset.h) and
 * their commands (c_zset.c), run on one shard.
 *
 * The tables are redis-server 7.0.15's own replies, byte for byte, to
 * each command in turn (taken from a real server, one table per command
 * group, each on an empty keyspace). They run on the small encoding, and
 * again with every set made large before its first members, for the same
 * bytes; the threshold itself is crossed both ways with nothing lost.
 * Ranks and ranges of 100,000 members are checked against a sorted array,
 * through rehashes, removals and pops. Nothing here depends on timing or
 * on the sets' random picks (only their properties are checked).
 */
#include <math.h>

#include "kvtest.h"

#define E_NXXX "-ERR XX and NX options at the same time are not compatible\r\n"
#define E_GTLT                                                               \
	"-ERR GT, LT, and/or NX options at the same time are not compatible" \
	"\r\n"
#define E_WRONGTYPE                                                          \
	"-WRONGTYPE Operation against a key holding the wrong kind of value" \
	"\r\n"
#define E_INCR "-ERR INCR option supports a single increment-element pair\r\n"
#define E_LIMIT                                                           \
	"-ERR syntax error, LIMIT is only supported in combination with " \
	"either BYSCORE or BYLEX\r\n"
#define E_WSLEX                                                            \
	"-ERR syntax error, WITHSCORES not supported in combination with " \
	"BYLEX\r\n"
#define E_RANDRANGE                                       \
	"-ERR value is out of range, value must between " \
	"-9223372036854775807 and 9223372036854775807\r\n"

/* 65 bytes: a member that makes a set large */
#define LONG65 LONG64 "x"

struct step {
	const char *cmd;
	const char *want;
};

static const struct step zadd_steps[] = {
	{ "ZADD z 1 a", ":1\r\n" },
	{ "ZADD z 1 a", ":0\r\n" },
	{ "ZADD z 2 a", ":0\r\n" },
	{ "ZADD z 1.5 b 2.5 c 3 d", ":3\r\n" },
	{ "ZADD z 1.1 e", ":1\r\n" },
	{ "ZSCORE z e", "$18\r\n1.1000000000000001\r\n" },
	{ "ZADD z inf pinf -inf ninf +inf pinf2", ":3\r\n" },
	{ "ZADD z 0x10 hex 1e3 sci -2.5e-3 small .5 dot 5. dot2", ":5\r\n" },
	{ "ZRANGE z 0 -1 WITHSCORES",
	  "*26\r\n$4\r\nninf\r\n$4\r\n-inf\r\n$5\r\nsmall\r\n$22\r\n"
	  "-0.0025000000000000001\r\n$3\r\ndot\r\n$3\r\n0.5\r\n$1\r\n"
	  "e\r\n$18\r\n1.1000000000000001\r\n$1\r\nb\r\n$3\r\n1.5\r\n"
	  "$1\r\na\r\n$1\r\n2\r\n$1\r\nc\r\n$3\r\n2.5\r\n$1\r\nd\r\n"
	  "$1\r\n3\r\n$4\r\ndot2\r\n$1\r\n5\r\n$3\r\nhex\r\n$2\r\n16\r\n"
	  "$3\r\nsci\r\n$4\r\n1000\r\n$4\r\npinf\r\n$3\r\ninf\r\n$5\r\n"
	  "pinf2\r\n$3\r\ninf\r\n" },
	{ "ZADD z CH 10 a 20 b 30 new", ":3\r\n" },
	{ "ZADD z CH 10 a 20 b 30 new", ":0\r\n" },
	{ "ZADD z XX 1 a 1 nosuch", ":0\r\n" },
	{ "ZSCORE z nosuch", "$-1\r\n" },
	{ "ZADD z NX 99 a 1 nx1", ":1\r\n" },
	{ "ZSCORE z a", "$1\r\n1\r\n" },
	{ "ZADD z GT 5 a 50 b", ":0\r\n" },
	{ "ZADD z GT CH 5 a 50 b", ":0\r\n" },
	{ "ZADD z LT CH 5 a 50 b", ":0\r\n" },
	{ "ZADD z XX LT CH 1 a 1 nosuch2", ":1\r\n" },
	{ "ZADD z GT 7 gtnew", ":1\r\n" },
	{ "ZADD z INCR 1 a", "$1\r\n2\r\n" },
	{ "ZADD z INCR 1.5 incrnew", "$3\r\n1.5\r\n" },
	{ "ZADD z INCR NX 1 a", "$-1\r\n" },
	{ "ZADD z INCR XX 1 nosuch3", "$-1\r\n" },
	{ "ZADD z INCR GT -1 a", "$-1\r\n" },
	{ "ZADD z INCR LT -1 a", "$1\r\n1\r\n" },
	{ "ZADD z INCR GT 0 a", "$-1\r\n" },
	{ "ZADD z INCR 0 a", "$1\r\n1\r\n" },
	{ "ZADD z incr ch 1 a", "$1\r\n2\r\n" },
	{ "ZADD z nx xx 1 a",
	  "-ERR XX and NX options at the same time are not compatible\r\n" },
	{ "ZINCRBY z 2 a", "$1\r\n4\r\n" },
	{ "ZINCRBY z -0.5 a", "$3\r\n3.5\r\n" },
	{ "ZINCRBY z 1.1 zi", "$18\r\n1.1000000000000001\r\n" },
	{ "ZINCRBY z inf pinf", "$3\r\ninf\r\n" },
	{ "ZINCRBY z -inf pinf",
	  "-ERR resulting score is not a number (NaN)\r\n" },
	{ "ZSCORE z pinf", "$3\r\ninf\r\n" },
	{ "ZADD z INCR -inf pinf",
	  "-ERR resulting score is not a number (NaN)\r\n" },
	{ "ZINCRBY z 1 ninf", "$4\r\n-inf\r\n" },
	{ "ZADD nokey XX 1 a", ":0\r\n" },
	{ "EXISTS nokey", ":0\r\n" },
	{ "ZADD nokey XX INCR 1 a", "$-1\r\n" },
	{ "EXISTS nokey", ":0\r\n" },
	{ "ZADD z 1.7976931348623157e308 max 4.9406564584124654e-324 min",
	  ":2\r\n" },
	{ "ZRANGE z 0 -1 WITHSCORES",
	  "*40\r\n$4\r\nninf\r\n$4\r\n-inf\r\n$5\r\nsmall\r\n$22\r\n"
	  "-0.0025000000000000001\r\n$3\r\nmin\r\n$23\r\n"
	  "4.9406564584124654e-324\r\n$3\r\ndot\r\n$3\r\n0.5\r\n$3\r\n"
	  "nx1\r\n$1\r\n1\r\n$1\r\ne\r\n$18\r\n1.1000000000000001\r\n"
	  "$2\r\nzi\r\n$18\r\n1.1000000000000001\r\n$7\r\nincrnew\r\n"
	  "$3\r\n1.5\r\n$1\r\nc\r\n$3\r\n2.5\r\n$1\r\nd\r\n$1\r\n3\r\n"
	  "$1\r\na\r\n$3\r\n3.5\r\n$4\r\ndot2\r\n$1\r\n5\r\n$5\r\n"
	  "gtnew\r\n$1\r\n7\r\n$3\r\nhex\r\n$2\r\n16\r\n$3\r\nnew\r\n"
	  "$2\r\n30\r\n$1\r\nb\r\n$2\r\n50\r\n$3\r\nsci\r\n$4\r\n1000\r\n"
	  "$3\r\nmax\r\n$23\r\n1.7976931348623157e+308\r\n$4\r\npinf\r\n"
	  "$3\r\ninf\r\n$5\r\npinf2\r\n$3\r\ninf\r\n" },
	{ "ZCARD z", ":20\r\n" },
	{ NULL, NULL },
};

static const struct step member_steps[] = {
	{ "ZADD z 1 a 2 b 3 c 4 d", ":4\r\n" },
	{ "ZREM z a", ":1\r\n" },
	{ "ZREM z a", ":0\r\n" },
	{ "ZREM z nosuch b nosuch2", ":1\r\n" },
	{ "ZREM z c c c", ":1\r\n" },
	{ "ZCARD z", ":1\r\n" },
	{ "ZREM nokey a", ":0\r\n" },
	{ "ZSCORE z d", "$1\r\n4\r\n" },
	{ "ZSCORE z a", "$-1\r\n" },
	{ "ZSCORE nokey a", "$-1\r\n" },
	{ "ZMSCORE z d a d", "*3\r\n$1\r\n4\r\n$-1\r\n$1\r\n4\r\n" },
	{ "ZMSCORE nokey a b", "*2\r\n$-1\r\n$-1\r\n" },
	{ "ZADD z 1 a 2 b 3 c", ":3\r\n" },
	{ "ZRANK z a", ":0\r\n" },
	{ "ZRANK z d", ":3\r\n" },
	{ "ZREVRANK z a", ":3\r\n" },
	{ "ZREVRANK z d", ":0\r\n" },
	{ "ZRANK z nosuch", "$-1\r\n" },
	{ "ZREVRANK z nosuch", "$-1\r\n" },
	{ "ZRANK nokey a", "$-1\r\n" },
	{ "ZREVRANK nokey a", "$-1\r\n" },
	{ "ZREM z a b c d", ":4\r\n" },
	{ "EXISTS z", ":0\r\n" },
	{ "TYPE z", "+none\r\n" },
	{ "ZCARD z", ":0\r\n" },
	{ NULL, NULL },
};

static const struct step range_steps[] = {
	{ "ZADD z 1 a 2 b 2 bb 3 c 3.5 d -inf ninf inf pinf 0 zero -1 neg "
	  "10 ten",
	  ":10\r\n" },
	{ "ZRANGE z 0 -1",
	  "*10\r\n$4\r\nninf\r\n$3\r\nneg\r\n$4\r\nzero\r\n$1\r\na\r\n"
	  "$1\r\nb\r\n$2\r\nbb\r\n$1\r\nc\r\n$1\r\nd\r\n$3\r\nten\r\n"
	  "$4\r\npinf\r\n" },
	{ "ZRANGE z 0 -1 WITHSCORES",
	  "*20\r\n$4\r\nninf\r\n$4\r\n-inf\r\n$3\r\nneg\r\n$2\r\n-1\r\n"
	  "$4\r\nzero\r\n$1\r\n0\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n"
	  "$1\r\n2\r\n$2\r\nbb\r\n$1\r\n2\r\n$1\r\nc\r\n$1\r\n3\r\n$1\r\n"
	  "d\r\n$3\r\n3.5\r\n$3\r\nten\r\n$2\r\n10\r\n$4\r\npinf\r\n"
	  "$3\r\ninf\r\n" },
	{ "ZRANGE z 1 3", "*3\r\n$3\r\nneg\r\n$4\r\nzero\r\n$1\r\na\r\n" },
	{ "ZRANGE z -3 -1", "*3\r\n$1\r\nd\r\n$3\r\nten\r\n$4\r\npinf\r\n" },
	{ "ZRANGE z -100 100",
	  "*10\r\n$4\r\nninf\r\n$3\r\nneg\r\n$4\r\nzero\r\n$1\r\na\r\n"
	  "$1\r\nb\r\n$2\r\nbb\r\n$1\r\nc\r\n$1\r\nd\r\n$3\r\nten\r\n"
	  "$4\r\npinf\r\n" },
	{ "ZRANGE z 5 2", "*0\r\n" },
	{ "ZRANGE z 20 30", "*0\r\n" },
	{ "ZRANGE z 0 0 withscores", "*2\r\n$4\r\nninf\r\n$4\r\n-inf\r\n" },
	{ "ZRANGE z 0 2 REV WITHSCORES",
	  "*6\r\n$4\r\npinf\r\n$3\r\ninf\r\n$3\r\nten\r\n$2\r\n10\r\n"
	  "$1\r\nd\r\n$3\r\n3.5\r\n" },
	{ "ZREVRANGE z 0 2", "*3\r\n$4\r\npinf\r\n$3\r\nten\r\n$1\r\nd\r\n" },
	{ "ZREVRANGE z -2 -1 WITHSCORES",
	  "*4\r\n$3\r\nneg\r\n$2\r\n-1\r\n$4\r\nninf\r\n$4\r\n-inf\r\n" },
	{ "ZRANGE z 0 -1 LIMIT 0 -1",
	  "*10\r\n$4\r\nninf\r\n$3\r\nneg\r\n$4\r\nzero\r\n$1\r\na\r\n"
	  "$1\r\nb\r\n$2\r\nbb\r\n$1\r\nc\r\n$1\r\nd\r\n$3\r\nten\r\n"
	  "$4\r\npinf\r\n" },
	{ "ZRANGE nokey 0 -1", "*0\r\n" },
	{ "ZRANGEBYSCORE z -inf +inf",
	  "*10\r\n$4\r\nninf\r\n$3\r\nneg\r\n$4\r\nzero\r\n$1\r\na\r\n"
	  "$1\r\nb\r\n$2\r\nbb\r\n$1\r\nc\r\n$1\r\nd\r\n$3\r\nten\r\n"
	  "$4\r\npinf\r\n" },
	{ "ZRANGEBYSCORE z 1 3 WITHSCORES",
	  "*8\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n$2\r\nbb\r\n"
	  "$1\r\n2\r\n$1\r\nc\r\n$1\r\n3\r\n" },
	{ "ZRANGEBYSCORE z (1 3", "*3\r\n$1\r\nb\r\n$2\r\nbb\r\n$1\r\nc\r\n" },
	{ "ZRANGEBYSCORE z 1 (3", "*3\r\n$1\r\na\r\n$1\r\nb\r\n$2\r\nbb\r\n" },
	{ "ZRANGEBYSCORE z (1 (3", "*2\r\n$1\r\nb\r\n$2\r\nbb\r\n" },
	{ "ZRANGEBYSCORE z 3 1", "*0\r\n" },
	{ "ZRANGEBYSCORE z 2 2", "*2\r\n$1\r\nb\r\n$2\r\nbb\r\n" },
	{ "ZRANGEBYSCORE z (2 2", "*0\r\n" },
	{ "ZRANGEBYSCORE z inf inf", "*1\r\n$4\r\npinf\r\n" },
	{ "ZRANGEBYSCORE z (-inf (inf",
	  "*8\r\n$3\r\nneg\r\n$4\r\nzero\r\n$1\r\na\r\n$1\r\nb\r\n$2\r\n"
	  "bb\r\n$1\r\nc\r\n$1\r\nd\r\n$3\r\nten\r\n" },
	{ "ZRANGEBYSCORE z 1e400 inf", "*1\r\n$4\r\npinf\r\n" },
	{ "ZRANGEBYSCORE z -inf +inf LIMIT 1 2",
	  "*2\r\n$3\r\nneg\r\n$4\r\nzero\r\n" },
	{ "ZRANGEBYSCORE z -inf +inf LIMIT 0 0", "*0\r\n" },
	{ "ZRANGEBYSCORE z -inf +inf LIMIT 8 -1",
	  "*2\r\n$3\r\nten\r\n$4\r\npinf\r\n" },
	{ "ZRANGEBYSCORE z -inf +inf LIMIT -1 5", "*0\r\n" },
	{ "ZRANGEBYSCORE z -inf +inf LIMIT 10 1", "*0\r\n" },
	{ "ZRANGEBYSCORE z (1 10 LIMIT 2 100 WITHSCORES",
	  "*6\r\n$1\r\nc\r\n$1\r\n3\r\n$1\r\nd\r\n$3\r\n3.5\r\n$3\r\n"
	  "ten\r\n$2\r\n10\r\n" },
	{ "ZREVRANGEBYSCORE z +inf -inf",
	  "*10\r\n$4\r\npinf\r\n$3\r\nten\r\n$1\r\nd\r\n$1\r\nc\r\n$2\r\n"
	  "bb\r\n$1\r\nb\r\n$1\r\na\r\n$4\r\nzero\r\n$3\r\nneg\r\n$4\r\n"
	  "ninf\r\n" },
	{ "ZREVRANGEBYSCORE z 3 1 WITHSCORES",
	  "*8\r\n$1\r\nc\r\n$1\r\n3\r\n$2\r\nbb\r\n$1\r\n2\r\n$1\r\nb\r\n"
	  "$1\r\n2\r\n$1\r\na\r\n$1\r\n1\r\n" },
	{ "ZREVRANGEBYSCORE z (3 1",
	  "*3\r\n$2\r\nbb\r\n$1\r\nb\r\n$1\r\na\r\n" },
	{ "ZREVRANGEBYSCORE z 1 3", "*0\r\n" },
	{ "ZREVRANGEBYSCORE z +inf -inf LIMIT 1 2",
	  "*2\r\n$3\r\nten\r\n$1\r\nd\r\n" },
	{ "ZREVRANGEBYSCORE z +inf -inf WITHSCORES LIMIT 9 5",
	  "*2\r\n$4\r\nninf\r\n$4\r\n-inf\r\n" },
	{ "ZRANGE z 1 3 BYSCORE",
	  "*4\r\n$1\r\na\r\n$1\r\nb\r\n$2\r\nbb\r\n$1\r\nc\r\n" },
	{ "ZRANGE z 3 1 BYSCORE REV WITHSCORES",
	  "*8\r\n$1\r\nc\r\n$1\r\n3\r\n$2\r\nbb\r\n$1\r\n2\r\n$1\r\nb\r\n"
	  "$1\r\n2\r\n$1\r\na\r\n$1\r\n1\r\n" },
	{ "ZRANGE z (1 10 BYSCORE LIMIT 1 3",
	  "*3\r\n$2\r\nbb\r\n$1\r\nc\r\n$1\r\nd\r\n" },
	{ "ZRANGE z 10 (1 BYSCORE REV LIMIT 1 3 WITHSCORES",
	  "*6\r\n$1\r\nd\r\n$3\r\n3.5\r\n$1\r\nc\r\n$1\r\n3\r\n$2\r\n"
	  "bb\r\n$1\r\n2\r\n" },
	{ "ZRANGE z -inf +inf BYSCORE LIMIT 9223372036854775807 1", "*0\r\n" },
	{ "ZRANGE nokey 0 1 BYSCORE", "*0\r\n" },
	{ "ZCOUNT z -inf +inf", ":10\r\n" },
	{ "ZCOUNT z 1 3", ":4\r\n" },
	{ "ZCOUNT z (1 (3", ":2\r\n" },
	{ "ZCOUNT z 3 1", ":0\r\n" },
	{ "ZCOUNT z (2 (2", ":0\r\n" },
	{ "ZCOUNT z inf inf", ":1\r\n" },
	{ "ZCOUNT nokey 0 1", ":0\r\n" },
	{ NULL, NULL },
};

static const struct step lex_steps[] = {
	{ "ZADD x 0 a 0 b 0 c 0 d 0 e 0 aa 0 ab 0 ba 0 z 0 zz", ":10\r\n" },
	{ "ZRANGEBYLEX x - +",
	  "*10\r\n$1\r\na\r\n$2\r\naa\r\n$2\r\nab\r\n$1\r\nb\r\n$2\r\n"
	  "ba\r\n$1\r\nc\r\n$1\r\nd\r\n$1\r\ne\r\n$1\r\nz\r\n$2\r\nzz\r\n" },
	{ "ZRANGEBYLEX x [a [c",
	  "*6\r\n$1\r\na\r\n$2\r\naa\r\n$2\r\nab\r\n$1\r\nb\r\n$2\r\n"
	  "ba\r\n$1\r\nc\r\n" },
	{ "ZRANGEBYLEX x (a [c",
	  "*5\r\n$2\r\naa\r\n$2\r\nab\r\n$1\r\nb\r\n$2\r\nba\r\n$1\r\n"
	  "c\r\n" },
	{ "ZRANGEBYLEX x [a (c",
	  "*5\r\n$1\r\na\r\n$2\r\naa\r\n$2\r\nab\r\n$1\r\nb\r\n$2\r\n"
	  "ba\r\n" },
	{ "ZRANGEBYLEX x (a (c",
	  "*4\r\n$2\r\naa\r\n$2\r\nab\r\n$1\r\nb\r\n$2\r\nba\r\n" },
	{ "ZRANGEBYLEX x [c [a", "*0\r\n" },
	{ "ZRANGEBYLEX x [b [b", "*1\r\n$1\r\nb\r\n" },
	{ "ZRANGEBYLEX x (b [b", "*0\r\n" },
	{ "ZRANGEBYLEX x + -", "*0\r\n" },
	{ "ZRANGEBYLEX x - -", "*0\r\n" },
	{ "ZRANGEBYLEX x [aa (b", "*2\r\n$2\r\naa\r\n$2\r\nab\r\n" },
	{ "ZRANGEBYLEX x ( +",
	  "*10\r\n$1\r\na\r\n$2\r\naa\r\n$2\r\nab\r\n$1\r\nb\r\n$2\r\n"
	  "ba\r\n$1\r\nc\r\n$1\r\nd\r\n$1\r\ne\r\n$1\r\nz\r\n$2\r\nzz\r\n" },
	{ "ZRANGEBYLEX x [ +",
	  "*10\r\n$1\r\na\r\n$2\r\naa\r\n$2\r\nab\r\n$1\r\nb\r\n$2\r\n"
	  "ba\r\n$1\r\nc\r\n$1\r\nd\r\n$1\r\ne\r\n$1\r\nz\r\n$2\r\nzz\r\n" },
	{ "ZRANGEBYLEX x - +",
	  "*10\r\n$1\r\na\r\n$2\r\naa\r\n$2\r\nab\r\n$1\r\nb\r\n$2\r\n"
	  "ba\r\n$1\r\nc\r\n$1\r\nd\r\n$1\r\ne\r\n$1\r\nz\r\n$2\r\nzz\r\n" },
	{ "ZRANGEBYLEX x - + LIMIT 2 3",
	  "*3\r\n$2\r\nab\r\n$1\r\nb\r\n$2\r\nba\r\n" },
	{ "ZRANGEBYLEX x - + LIMIT 0 -1",
	  "*10\r\n$1\r\na\r\n$2\r\naa\r\n$2\r\nab\r\n$1\r\nb\r\n$2\r\n"
	  "ba\r\n$1\r\nc\r\n$1\r\nd\r\n$1\r\ne\r\n$1\r\nz\r\n$2\r\nzz\r\n" },
	{ "ZRANGEBYLEX x - + LIMIT -1 3", "*0\r\n" },
	{ "ZRANGEBYLEX x - + LIMIT 9 5", "*1\r\n$2\r\nzz\r\n" },
	{ "ZREVRANGEBYLEX x + -",
	  "*10\r\n$2\r\nzz\r\n$1\r\nz\r\n$1\r\ne\r\n$1\r\nd\r\n$1\r\n"
	  "c\r\n$2\r\nba\r\n$1\r\nb\r\n$2\r\nab\r\n$2\r\naa\r\n$1\r\n"
	  "a\r\n" },
	{ "ZREVRANGEBYLEX x [c [a",
	  "*6\r\n$1\r\nc\r\n$2\r\nba\r\n$1\r\nb\r\n$2\r\nab\r\n$2\r\n"
	  "aa\r\n$1\r\na\r\n" },
	{ "ZREVRANGEBYLEX x (c - LIMIT 1 2", "*2\r\n$1\r\nb\r\n$2\r\nab\r\n" },
	{ "ZRANGE x [b (z BYLEX",
	  "*5\r\n$1\r\nb\r\n$2\r\nba\r\n$1\r\nc\r\n$1\r\nd\r\n$1\r\ne\r\n" },
	{ "ZRANGE x (z [b BYLEX REV LIMIT 1 2",
	  "*2\r\n$1\r\nd\r\n$1\r\nc\r\n" },
	{ "ZLEXCOUNT x - +", ":10\r\n" },
	{ "ZLEXCOUNT x [a [c", ":6\r\n" },
	{ "ZLEXCOUNT x (a (aa", ":0\r\n" },
	{ "ZLEXCOUNT x + -", ":0\r\n" },
	{ "ZLEXCOUNT nokey - +", ":0\r\n" },
	{ "ZRANGEBYLEX nokey - +", "*0\r\n" },
	{ NULL, NULL },
};

static const struct step lex_mixed_steps[] = {
	{ "ZADD m 5 a 1 b 3 c 2 d 4 e 0 f", ":6\r\n" },
	{ "ZRANGEBYLEX m - +",
	  "*6\r\n$1\r\nf\r\n$1\r\nb\r\n$1\r\nd\r\n$1\r\nc\r\n$1\r\ne\r\n"
	  "$1\r\na\r\n" },
	{ "ZRANGEBYLEX m [b [d", "*0\r\n" },
	{ "ZREVRANGEBYLEX m [d [b", "*0\r\n" },
	{ "ZLEXCOUNT m [b [d", ":0\r\n" },
	{ "ZRANGEBYLEX m [b [e LIMIT 2 5", "*0\r\n" },
	{ "ZRANGEBYLEX m [a [z",
	  "*6\r\n$1\r\nf\r\n$1\r\nb\r\n$1\r\nd\r\n$1\r\nc\r\n$1\r\ne\r\n"
	  "$1\r\na\r\n" },
	{ NULL, NULL },
};

static const struct step remrange_steps[] = {
	{ "ZADD z 1 a 2 b 3 c 4 d 5 e 6 f 7 g 8 h", ":8\r\n" },
	{ "ZREMRANGEBYRANK z 0 0", ":1\r\n" },
	{ "ZREMRANGEBYRANK z -1 -1", ":1\r\n" },
	{ "ZREMRANGEBYRANK z 5 2", ":0\r\n" },
	{ "ZREMRANGEBYRANK z 100 200", ":0\r\n" },
	{ "ZRANGE z 0 -1",
	  "*6\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n$1\r\ne\r\n$1\r\nf\r\n"
	  "$1\r\ng\r\n" },
	{ "ZREMRANGEBYSCORE z (2 4", ":2\r\n" },
	{ "ZREMRANGEBYSCORE z 10 20", ":0\r\n" },
	{ "ZRANGE z 0 -1 WITHSCORES",
	  "*8\r\n$1\r\nb\r\n$1\r\n2\r\n$1\r\ne\r\n$1\r\n5\r\n$1\r\nf\r\n"
	  "$1\r\n6\r\n$1\r\ng\r\n$1\r\n7\r\n" },
	{ "ZREMRANGEBYRANK z 0 -1", ":4\r\n" },
	{ "EXISTS z", ":0\r\n" },
	{ "ZADD z 1 a 2 b 3 c", ":3\r\n" },
	{ "ZREMRANGEBYSCORE z -inf +inf", ":3\r\n" },
	{ "EXISTS z", ":0\r\n" },
	{ "ZADD x 0 a 0 b 0 c 0 d", ":4\r\n" },
	{ "ZREMRANGEBYLEX x (a [c", ":2\r\n" },
	{ "ZRANGE x 0 -1", "*2\r\n$1\r\na\r\n$1\r\nd\r\n" },
	{ "ZREMRANGEBYLEX x [c [a", ":0\r\n" },
	{ "ZREMRANGEBYLEX x - +", ":2\r\n" },
	{ "EXISTS x", ":0\r\n" },
	{ "ZREMRANGEBYRANK nokey 0 -1", ":0\r\n" },
	{ "ZREMRANGEBYSCORE nokey -inf +inf", ":0\r\n" },
	{ "ZREMRANGEBYLEX nokey - +", ":0\r\n" },
	{ NULL, NULL },
};

static const struct step pop_steps[] = {
	{ "ZADD z 1 a 2 b 3 c 4 d 5 e", ":5\r\n" },
	{ "ZPOPMIN z", "*2\r\n$1\r\na\r\n$1\r\n1\r\n" },
	{ "ZPOPMAX z", "*2\r\n$1\r\ne\r\n$1\r\n5\r\n" },
	{ "ZPOPMIN z 2", "*4\r\n$1\r\nb\r\n$1\r\n2\r\n$1\r\nc\r\n$1\r\n3\r\n" },
	{ "ZPOPMAX z 0", "*0\r\n" },
	{ "ZPOPMAX z 10", "*2\r\n$1\r\nd\r\n$1\r\n4\r\n" },
	{ "EXISTS z", ":0\r\n" },
	{ "ZPOPMIN z", "*0\r\n" },
	{ "ZPOPMIN z 3", "*0\r\n" },
	{ "ZPOPMAX nokey", "*0\r\n" },
	{ "ZADD z 1.5 a -inf b", ":2\r\n" },
	{ "ZPOPMAX z 1", "*2\r\n$1\r\na\r\n$3\r\n1.5\r\n" },
	{ "ZPOPMIN z 1", "*2\r\n$1\r\nb\r\n$4\r\n-inf\r\n" },
	{ "TYPE z", "+none\r\n" },
	{ NULL, NULL },
};

static const struct step error_steps[] = {
	{ "SET str v", "+OK\r\n" },
	{ "ZADD z 1 a", ":1\r\n" },
	{ "ZADD", "-ERR wrong number of arguments for 'zadd' command\r\n" },
	{ "ZADD z", "-ERR wrong number of arguments for 'zadd' command\r\n" },
	{ "ZADD z 1", "-ERR wrong number of arguments for 'zadd' command\r\n" },
	{ "ZADD z 1 a 2", "-ERR syntax error\r\n" },
	{ "ZADD z NX",
	  "-ERR wrong number of arguments for 'zadd' command\r\n" },
	{ "ZADD z 1 a NX", "-ERR syntax error\r\n" },
	{ "ZADD z abc a", "-ERR value is not a valid float\r\n" },
	{ "ZADD z nan a", "-ERR value is not a valid float\r\n" },
	{ "ZADD z 1e400 a", "-ERR value is not a valid float\r\n" },
	{ "ZADD z 1 a x b", "-ERR value is not a valid float\r\n" },
	{ "ZADD z NX XX 1 a",
	  "-ERR XX and NX options at the same time are not compatible\r\n" },
	{ "ZADD z XX NX GT 1 a",
	  "-ERR XX and NX options at the same time are not compatible\r\n" },
	{ "ZADD z GT LT 1 a", E_GTLT },
	{ "ZADD z NX GT 1 a", E_GTLT },
	{ "ZADD z LT NX 1 a", E_GTLT },
	{ "ZADD z INCR 1 a 2 b",
	  "-ERR INCR option supports a single increment-element pair\r\n" },
	{ "ZADD z NX XX INCR 1 a 2 b",
	  "-ERR XX and NX options at the same time are not compatible\r\n" },
	{ "ZADD str 1 a", E_WRONGTYPE },
	{ "ZADD str XX 1 a", E_WRONGTYPE },
	{ "ZADD str abc a", "-ERR value is not a valid float\r\n" },
	{ "ZINCRBY z",
	  "-ERR wrong number of arguments for 'zincrby' command\r\n" },
	{ "ZINCRBY z 1 a b",
	  "-ERR wrong number of arguments for 'zincrby' command\r\n" },
	{ "ZINCRBY z x a", "-ERR value is not a valid float\r\n" },
	{ "ZINCRBY z nx a", "-ERR syntax error\r\n" },
	{ "ZINCRBY str 1 a", E_WRONGTYPE },
	{ "ZREM z", "-ERR wrong number of arguments for 'zrem' command\r\n" },
	{ "ZREM str a", E_WRONGTYPE },
	{ "ZSCORE z",
	  "-ERR wrong number of arguments for 'zscore' command\r\n" },
	{ "ZSCORE str a", E_WRONGTYPE },
	{ "ZMSCORE z",
	  "-ERR wrong number of arguments for 'zmscore' command\r\n" },
	{ "ZMSCORE str a", E_WRONGTYPE },
	{ "ZCARD", "-ERR wrong number of arguments for 'zcard' command\r\n" },
	{ "ZCARD z a",
	  "-ERR wrong number of arguments for 'zcard' command\r\n" },
	{ "ZCARD str", E_WRONGTYPE },
	{ "ZRANK z", "-ERR wrong number of arguments for 'zrank' command\r\n" },
	{ "ZRANK z a b",
	  "-ERR wrong number of arguments for 'zrank' command\r\n" },
	{ "ZRANK str a", E_WRONGTYPE },
	{ "ZREVRANK str a", E_WRONGTYPE },
	{ "ZCOUNT z 0",
	  "-ERR wrong number of arguments for 'zcount' command\r\n" },
	{ "ZCOUNT z x 1", "-ERR min or max is not a float\r\n" },
	{ "ZCOUNT z 1 x", "-ERR min or max is not a float\r\n" },
	{ "ZCOUNT z nan 1", "-ERR min or max is not a float\r\n" },
	{ "ZCOUNT z ((1 2", "-ERR min or max is not a float\r\n" },
	{ "ZCOUNT z [1 2", "-ERR min or max is not a float\r\n" },
	{ "ZCOUNT str 0 1", E_WRONGTYPE },
	{ "ZCOUNT str x 1", "-ERR min or max is not a float\r\n" },
	{ "ZLEXCOUNT z -",
	  "-ERR wrong number of arguments for 'zlexcount' command\r\n" },
	{ "ZLEXCOUNT z a +",
	  "-ERR min or max not valid string range item\r\n" },
	{ "ZLEXCOUNT z - b",
	  "-ERR min or max not valid string range item\r\n" },
	{ "ZLEXCOUNT z +a +",
	  "-ERR min or max not valid string range item\r\n" },
	{ "ZLEXCOUNT z - -a",
	  "-ERR min or max not valid string range item\r\n" },
	{ "ZLEXCOUNT str - +", E_WRONGTYPE },
	{ "ZLEXCOUNT str a b",
	  "-ERR min or max not valid string range item\r\n" },
	{ "ZRANGE z 0",
	  "-ERR wrong number of arguments for 'zrange' command\r\n" },
	{ "ZRANGE z x 1", "-ERR value is not an integer or out of range\r\n" },
	{ "ZRANGE z 0 y", "-ERR value is not an integer or out of range\r\n" },
	{ "ZRANGE z 0 1.5",
	  "-ERR value is not an integer or out of range\r\n" },
	{ "ZRANGE z 0 -1 FOO", "-ERR syntax error\r\n" },
	{ "ZRANGE z 0 -1 LIMIT 0 1", E_LIMIT },
	{ "ZRANGE z 0 -1 LIMIT 0", "-ERR syntax error\r\n" },
	{ "ZRANGE z 0 -1 LIMIT x 1",
	  "-ERR value is not an integer or out of range\r\n" },
	{ "ZRANGE z 0 -1 LIMIT 1 y",
	  "-ERR value is not an integer or out of range\r\n" },
	{ "ZRANGE z 0 -1 FOO LIMIT x 1", "-ERR syntax error\r\n" },
	{ "ZRANGE z 0 -1 LIMIT x 1 FOO",
	  "-ERR value is not an integer or out of range\r\n" },
	{ "ZRANGE z 0 -1 REV REV", "-ERR syntax error\r\n" },
	{ "ZRANGE z 0 -1 BYSCORE BYSCORE", "-ERR syntax error\r\n" },
	{ "ZRANGE z 0 -1 BYSCORE BYLEX", "-ERR syntax error\r\n" },
	{ "ZRANGE z - + BYLEX WITHSCORES", E_WSLEX },
	{ "ZRANGE z - + BYLEX BYSCORE", "-ERR syntax error\r\n" },
	{ "ZRANGE z x 1 BYSCORE", "-ERR min or max is not a float\r\n" },
	{ "ZRANGE z a b BYLEX",
	  "-ERR min or max not valid string range item\r\n" },
	{ "ZRANGE str 0 -1", E_WRONGTYPE },
	{ "ZRANGE str x 1",
	  "-ERR value is not an integer or out of range\r\n" },
	{ "ZRANGE str a b BYLEX",
	  "-ERR min or max not valid string range item\r\n" },
	{ "ZREVRANGE z 0 -1 REV", "-ERR syntax error\r\n" },
	{ "ZREVRANGE z 0 -1 BYSCORE", "-ERR syntax error\r\n" },
	{ "ZREVRANGE z 0 -1 LIMIT 0 1", E_LIMIT },
	{ "ZREVRANGE str 0 -1", E_WRONGTYPE },
	{ "ZRANGEBYSCORE z 0",
	  "-ERR wrong number of arguments for 'zrangebyscore' command\r\n" },
	{ "ZRANGEBYSCORE z 0 1 REV", "-ERR syntax error\r\n" },
	{ "ZRANGEBYSCORE z 0 1 BYSCORE", "-ERR syntax error\r\n" },
	{ "ZRANGEBYSCORE z 0 1 LIMIT 0", "-ERR syntax error\r\n" },
	{ "ZRANGEBYSCORE z 0 1 LIMIT a b",
	  "-ERR value is not an integer or out of range\r\n" },
	{ "ZRANGEBYSCORE z a 1", "-ERR min or max is not a float\r\n" },
	{ "ZRANGEBYSCORE str 0 1", E_WRONGTYPE },
	{ "ZREVRANGEBYSCORE z 1 a", "-ERR min or max is not a float\r\n" },
	{ "ZRANGEBYLEX z - + WITHSCORES", E_WSLEX },
	{ "ZRANGEBYLEX z a b",
	  "-ERR min or max not valid string range item\r\n" },
	{ "ZRANGEBYLEX z - + BYLEX", "-ERR syntax error\r\n" },
	{ "ZRANGEBYLEX str - +", E_WRONGTYPE },
	{ "ZREVRANGEBYLEX z + - WITHSCORES", E_WSLEX },
	{ "ZREVRANGEBYLEX z b a",
	  "-ERR min or max not valid string range item\r\n" },
	{ "ZREMRANGEBYRANK z 0",
	  "-ERR wrong number of arguments for 'zremrangebyrank' command\r\n" },
	{ "ZREMRANGEBYRANK z x 1",
	  "-ERR value is not an integer or out of range\r\n" },
	{ "ZREMRANGEBYRANK str 0 1", E_WRONGTYPE },
	{ "ZREMRANGEBYRANK str x 1",
	  "-ERR value is not an integer or out of range\r\n" },
	{ "ZREMRANGEBYSCORE z x 1", "-ERR min or max is not a float\r\n" },
	{ "ZREMRANGEBYSCORE str 0 1", E_WRONGTYPE },
	{ "ZREMRANGEBYLEX z a b",
	  "-ERR min or max not valid string range item\r\n" },
	{ "ZREMRANGEBYLEX str - +", E_WRONGTYPE },
	{ "ZPOPMIN",
	  "-ERR wrong number of arguments for 'zpopmin' command\r\n" },
	{ "ZPOPMIN z 1 2", "-ERR syntax error\r\n" },
	{ "ZPOPMIN z -1", "-ERR value is out of range, must be positive\r\n" },
	{ "ZPOPMIN z x", "-ERR value is out of range, must be positive\r\n" },
	{ "ZPOPMIN z 1.5", "-ERR value is out of range, must be positive\r\n" },
	{ "ZPOPMIN z 9223372036854775808",
	  "-ERR value is out of range, must be positive\r\n" },
	{ "ZPOPMIN str", E_WRONGTYPE },
	{ "ZPOPMIN str 1", E_WRONGTYPE },
	{ "ZPOPMIN str x", "-ERR value is out of range, must be positive\r\n" },
	{ "ZPOPMAX z -1", "-ERR value is out of range, must be positive\r\n" },
	{ "ZPOPMAX str 2", E_WRONGTYPE },
	{ "ZRANDMEMBER",
	  "-ERR wrong number of arguments for 'zrandmember' command\r\n" },
	{ "ZRANDMEMBER z x",
	  "-ERR value is not an integer or out of range\r\n" },
	{ "ZRANDMEMBER z 1 foo", "-ERR syntax error\r\n" },
	{ "ZRANDMEMBER z 1 WITHSCORES foo", "-ERR syntax error\r\n" },
	{ "ZRANDMEMBER z -9223372036854775808", E_RANDRANGE },
	{ "ZRANDMEMBER z 4611686018427387904 WITHSCORES",
	  "-ERR value is out of range\r\n" },
	{ "ZRANDMEMBER z -4611686018427387904 WITHSCORES",
	  "-ERR value is out of range\r\n" },
	{ "ZRANDMEMBER str", E_WRONGTYPE },
	{ "ZRANDMEMBER str 1", E_WRONGTYPE },
	{ "ZRANDMEMBER nokey", "$-1\r\n" },
	{ "ZRANDMEMBER nokey 5", "*0\r\n" },
	{ "ZRANDMEMBER z 0", "*0\r\n" },
	{ "ZRANDMEMBER z 5", "*1\r\n$1\r\na\r\n" },
	{ "ZRANDMEMBER z -2 WITHSCORES",
	  "*4\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\na\r\n$1\r\n1\r\n" },
	{ "ZCARD z", ":1\r\n" },
	{ NULL, NULL },
};

/* ---- running commands -------------------------------------------------- */

/* The reply to line, run as run() runs it, NUL-ended; the caller frees. */
static char *reply_of(struct kv_db *db, const char *line)
{
	struct resp_arg a[128];
	char copy[2048], *save, *t;
	struct kv_client cl = { .id = 1 };
	const struct kv_cmd *c;
	struct out o;
	int n = 0;

	snprintf(copy, sizeof(copy), "%s", line);
	for (t = strtok_r(copy, " ", &save); t && n < 128;
	     t = strtok_r(NULL, " ", &save)) {
		a[n].p = t;
		a[n++].len = strlen(t);
	}
	out_init(&o);
	c = kv_cmd_find(a[0].p, a[0].len);
	ck_assert_ptr_nonnull(c);
	if (kv_cmd_check(c, n, a, &o))
		kv_cmd_run(c, db, &cl, n, a, &o);
	out_raw(&o, "", 1);
	ck_assert(!o.failed);
	return o.p;
}

static struct kv_zset *zset_at_key(struct kv_db *db, const char *k)
{
	struct kv_entry *e = find_key(db, k);

	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(e->type, KV_ZSET);
	return db_zset(e);
}

/* The key of a ZADD line whose key is missing, into key. */
static bool zadd_to_new_key(struct kv_db *db, const char *cmd, char *key,
			    size_t size)
{
	const char *k, *end;

	if (strncasecmp(cmd, "ZADD ", 5))
		return false;
	k = cmd + 5;
	end = strchr(k, ' ');
	if (!end || (size_t)(end - k) >= size)
		return false;
	memcpy(key, k, (size_t)(end - k));
	key[end - k] = '\0';
	return !find_key(db, key);
}

/* A table's steps on an empty keyspace; large: each set made large
 * before its first members (by one of 65 bytes, removed at once). */
static void run_steps(const struct step *s, bool large)
{
	char key[64], line[256];
	struct kv_db db;
	bool made;

	db_init(&db);
	for (; s->cmd; s++) {
		made = large && zadd_to_new_key(&db, s->cmd, key, sizeof(key));
		if (made) {
			snprintf(line, sizeof(line), "ZADD %s 0 " LONG65, key);
			run(&db, line, ":1\r\n");
		}
		run(&db, s->cmd, s->want);
		if (made) {
			snprintf(line, sizeof(line), "ZREM %s " LONG65, key);
			run(&db, line, ":1\r\n");
			if (find_key(&db, key))
				ck_assert(
					!zset_is_small(zset_at_key(&db, key)));
		}
	}
	db_flush(&db);
}

static const struct step *const tables[] = {
	zadd_steps,	member_steps, range_steps, lex_steps,
	remrange_steps, pop_steps,    error_steps,
};

START_TEST(replies_small)
{
	run_steps(tables[_i], false);
}
END_TEST

START_TEST(replies_large)
{
	run_steps(tables[_i], true);
}
END_TEST

/* Over mixed scores a lex range is read as redis reads its listpack: only
 * a small set's answer is redis's own (a large one's depends on redis's
 * random levels). */
START_TEST(lex_over_mixed_scores)
{
	run_steps(lex_mixed_steps, false);
}
END_TEST

/* The listpack keeps an integral score as an integer: -0 comes back 0
 * from a small set, -0 from a large one, as in redis. */
START_TEST(zero_sign_by_encoding)
{
	struct kv_db db;

	db_init(&db);
	run(&db, "ZADD s -0 a", ":1\r\n");
	run(&db, "ZSCORE s a", "$1\r\n0\r\n");
	run(&db, "ZINCRBY s -0 b", "$2\r\n-0\r\n");
	run(&db, "ZSCORE s b", "$1\r\n0\r\n");
	run(&db, "ZADD l -0 " LONG65, ":1\r\n");
	run(&db, "ZSCORE l " LONG65, "$2\r\n-0\r\n");
	run(&db, "ZADD l -0 c", ":1\r\n");
	run(&db, "ZRANGE l 0 -1 WITHSCORES",
	    "*4\r\n$65\r\n" LONG65 "\r\n$2\r\n-0\r\n$1\r\nc\r\n$2\r\n-0\r\n");
	db_flush(&db);
}
END_TEST

/* ZADD's options, every subset of NX XX GT LT CH INCR, on a member at 5
 * given 3, then 7, then a new member, and the set after: redis's replies,
 * on both encodings. */
static const char *const opt_names[] = { "NX", "XX", "GT", "LT", "CH", "INCR" };

static const char *const zadd_matrix[64][4] = {
	/* - */
	{ ":0\r\n", ":0\r\n", ":1\r\n",
	  "*4\r\n$1\r\nn\r\n$1\r\n1\r\n$1\r\na\r\n$1\r\n7\r\n" },
	/* NX */
	{ ":0\r\n", ":0\r\n", ":1\r\n",
	  "*4\r\n$1\r\nn\r\n$1\r\n1\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* XX */
	{ ":0\r\n", ":0\r\n", ":0\r\n", "*2\r\n$1\r\na\r\n$1\r\n7\r\n" },
	/* NX XX */
	{ E_NXXX, E_NXXX, E_NXXX, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* GT */
	{ ":0\r\n", ":0\r\n", ":1\r\n",
	  "*4\r\n$1\r\nn\r\n$1\r\n1\r\n$1\r\na\r\n$1\r\n7\r\n" },
	/* NX GT */
	{ E_GTLT, E_GTLT, E_GTLT, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* XX GT */
	{ ":0\r\n", ":0\r\n", ":0\r\n", "*2\r\n$1\r\na\r\n$1\r\n7\r\n" },
	/* NX XX GT */
	{ E_NXXX, E_NXXX, E_NXXX, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* LT */
	{ ":0\r\n", ":0\r\n", ":1\r\n",
	  "*4\r\n$1\r\nn\r\n$1\r\n1\r\n$1\r\na\r\n$1\r\n3\r\n" },
	/* NX LT */
	{ E_GTLT, E_GTLT, E_GTLT, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* XX LT */
	{ ":0\r\n", ":0\r\n", ":0\r\n", "*2\r\n$1\r\na\r\n$1\r\n3\r\n" },
	/* NX XX LT */
	{ E_NXXX, E_NXXX, E_NXXX, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* GT LT */
	{ E_GTLT, E_GTLT, E_GTLT, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* NX GT LT */
	{ E_GTLT, E_GTLT, E_GTLT, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* XX GT LT */
	{ E_GTLT, E_GTLT, E_GTLT, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* NX XX GT LT */
	{ E_NXXX, E_NXXX, E_NXXX, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* CH */
	{ ":1\r\n", ":1\r\n", ":1\r\n",
	  "*4\r\n$1\r\nn\r\n$1\r\n1\r\n$1\r\na\r\n$1\r\n7\r\n" },
	/* NX CH */
	{ ":0\r\n", ":0\r\n", ":1\r\n",
	  "*4\r\n$1\r\nn\r\n$1\r\n1\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* XX CH */
	{ ":1\r\n", ":1\r\n", ":0\r\n", "*2\r\n$1\r\na\r\n$1\r\n7\r\n" },
	/* NX XX CH */
	{ E_NXXX, E_NXXX, E_NXXX, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* GT CH */
	{ ":0\r\n", ":1\r\n", ":1\r\n",
	  "*4\r\n$1\r\nn\r\n$1\r\n1\r\n$1\r\na\r\n$1\r\n7\r\n" },
	/* NX GT CH */
	{ E_GTLT, E_GTLT, E_GTLT, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* XX GT CH */
	{ ":0\r\n", ":1\r\n", ":0\r\n", "*2\r\n$1\r\na\r\n$1\r\n7\r\n" },
	/* NX XX GT CH */
	{ E_NXXX, E_NXXX, E_NXXX, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* LT CH */
	{ ":1\r\n", ":0\r\n", ":1\r\n",
	  "*4\r\n$1\r\nn\r\n$1\r\n1\r\n$1\r\na\r\n$1\r\n3\r\n" },
	/* NX LT CH */
	{ E_GTLT, E_GTLT, E_GTLT, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* XX LT CH */
	{ ":1\r\n", ":0\r\n", ":0\r\n", "*2\r\n$1\r\na\r\n$1\r\n3\r\n" },
	/* NX XX LT CH */
	{ E_NXXX, E_NXXX, E_NXXX, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* GT LT CH */
	{ E_GTLT, E_GTLT, E_GTLT, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* NX GT LT CH */
	{ E_GTLT, E_GTLT, E_GTLT, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* XX GT LT CH */
	{ E_GTLT, E_GTLT, E_GTLT, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* NX XX GT LT CH */
	{ E_NXXX, E_NXXX, E_NXXX, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* INCR */
	{ "$1\r\n8\r\n", "$2\r\n15\r\n", "$1\r\n1\r\n",
	  "*4\r\n$1\r\nn\r\n$1\r\n1\r\n$1\r\na\r\n$2\r\n15\r\n" },
	/* NX INCR */
	{ "$-1\r\n", "$-1\r\n", "$1\r\n1\r\n",
	  "*4\r\n$1\r\nn\r\n$1\r\n1\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* XX INCR */
	{ "$1\r\n8\r\n", "$2\r\n15\r\n", "$-1\r\n",
	  "*2\r\n$1\r\na\r\n$2\r\n15\r\n" },
	/* NX XX INCR */
	{ E_NXXX, E_NXXX, E_NXXX, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* GT INCR */
	{ "$1\r\n8\r\n", "$2\r\n15\r\n", "$1\r\n1\r\n",
	  "*4\r\n$1\r\nn\r\n$1\r\n1\r\n$1\r\na\r\n$2\r\n15\r\n" },
	/* NX GT INCR */
	{ E_GTLT, E_GTLT, E_GTLT, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* XX GT INCR */
	{ "$1\r\n8\r\n", "$2\r\n15\r\n", "$-1\r\n",
	  "*2\r\n$1\r\na\r\n$2\r\n15\r\n" },
	/* NX XX GT INCR */
	{ E_NXXX, E_NXXX, E_NXXX, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* LT INCR */
	{ "$-1\r\n", "$-1\r\n", "$1\r\n1\r\n",
	  "*4\r\n$1\r\nn\r\n$1\r\n1\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* NX LT INCR */
	{ E_GTLT, E_GTLT, E_GTLT, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* XX LT INCR */
	{ "$-1\r\n", "$-1\r\n", "$-1\r\n", "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* NX XX LT INCR */
	{ E_NXXX, E_NXXX, E_NXXX, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* GT LT INCR */
	{ E_GTLT, E_GTLT, E_GTLT, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* NX GT LT INCR */
	{ E_GTLT, E_GTLT, E_GTLT, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* XX GT LT INCR */
	{ E_GTLT, E_GTLT, E_GTLT, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* NX XX GT LT INCR */
	{ E_NXXX, E_NXXX, E_NXXX, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* CH INCR */
	{ "$1\r\n8\r\n", "$2\r\n15\r\n", "$1\r\n1\r\n",
	  "*4\r\n$1\r\nn\r\n$1\r\n1\r\n$1\r\na\r\n$2\r\n15\r\n" },
	/* NX CH INCR */
	{ "$-1\r\n", "$-1\r\n", "$1\r\n1\r\n",
	  "*4\r\n$1\r\nn\r\n$1\r\n1\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* XX CH INCR */
	{ "$1\r\n8\r\n", "$2\r\n15\r\n", "$-1\r\n",
	  "*2\r\n$1\r\na\r\n$2\r\n15\r\n" },
	/* NX XX CH INCR */
	{ E_NXXX, E_NXXX, E_NXXX, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* GT CH INCR */
	{ "$1\r\n8\r\n", "$2\r\n15\r\n", "$1\r\n1\r\n",
	  "*4\r\n$1\r\nn\r\n$1\r\n1\r\n$1\r\na\r\n$2\r\n15\r\n" },
	/* NX GT CH INCR */
	{ E_GTLT, E_GTLT, E_GTLT, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* XX GT CH INCR */
	{ "$1\r\n8\r\n", "$2\r\n15\r\n", "$-1\r\n",
	  "*2\r\n$1\r\na\r\n$2\r\n15\r\n" },
	/* NX XX GT CH INCR */
	{ E_NXXX, E_NXXX, E_NXXX, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* LT CH INCR */
	{ "$-1\r\n", "$-1\r\n", "$1\r\n1\r\n",
	  "*4\r\n$1\r\nn\r\n$1\r\n1\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* NX LT CH INCR */
	{ E_GTLT, E_GTLT, E_GTLT, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* XX LT CH INCR */
	{ "$-1\r\n", "$-1\r\n", "$-1\r\n", "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* NX XX LT CH INCR */
	{ E_NXXX, E_NXXX, E_NXXX, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* GT LT CH INCR */
	{ E_GTLT, E_GTLT, E_GTLT, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* NX GT LT CH INCR */
	{ E_GTLT, E_GTLT, E_GTLT, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* XX GT LT CH INCR */
	{ E_GTLT, E_GTLT, E_GTLT, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
	/* NX XX GT LT CH INCR */
	{ E_NXXX, E_NXXX, E_NXXX, "*2\r\n$1\r\na\r\n$1\r\n5\r\n" },
};

static void zadd_matrix_run(int mask, bool large)
{
	static const char *const args[] = { "3 a", "7 a", "1 n" };
	char opts[64] = "", line[128];
	const char *const *want = zadd_matrix[mask];
	struct kv_db db;
	int i;

	for (i = 0; i < 6; i++) {
		if (mask >> i & 1) {
			strcat(opts, " ");
			strcat(opts, opt_names[i]);
		}
	}
	db_init(&db);
	run(&db, large ? "ZADD k 5 a 0 " LONG65 : "ZADD k 5 a",
	    large ? ":2\r\n" : ":1\r\n");
	if (large)
		run(&db, "ZREM k " LONG65, ":1\r\n");
	for (i = 0; i < 3; i++) {
		snprintf(line, sizeof(line), "ZADD k%s %s", opts, args[i]);
		run(&db, line, want[i]);
	}
	run(&db, "ZRANGE k 0 -1 WITHSCORES", want[3]);
	ck_assert(zset_is_small(zset_at_key(&db, "k")) == !large);
	db_flush(&db);
}

START_TEST(zadd_option_matrix)
{
	zadd_matrix_run(_i, false);
	zadd_matrix_run(_i, true);
}
END_TEST

/* ---- the encodings ----------------------------------------------------- */

/* The 129th member makes a set large; every reply stays what it was, and
 * removing that member leaves it large with the replies of before. */
START_TEST(small_to_large_by_count)
{
	char line[128], *before[4], *after;
	static const char *const reads[] = {
		"ZRANGE k 0 -1 WITHSCORES",
		"ZREVRANGEBYSCORE k 3 (1 WITHSCORES LIMIT 5 40",
		"ZRANGE k (2 5 BYSCORE LIMIT 3 10",
		"ZCOUNT k (2 6",
	};
	struct kv_db db;
	size_t r;
	int i, j;

	db_init(&db);
	for (i = 0; i < KV_ZSET_SMALL_MEMBERS; i++) {
		snprintf(line, sizeof(line), "ZADD k %d m%d", i % 7, i);
		run(&db, line, ":1\r\n");
	}
	ck_assert(zset_is_small(zset_at_key(&db, "k")));
	for (j = 0; j < 4; j++)
		before[j] = reply_of(&db, reads[j]);
	run(&db, "ZADD k 100 top", ":1\r\n");
	ck_assert(!zset_is_small(zset_at_key(&db, "k")));
	run(&db, "ZCARD k", ":129\r\n");
	run(&db, "ZRANK k top", ":128\r\n");
	run(&db, "ZREM k top", ":1\r\n");
	ck_assert(!zset_is_small(zset_at_key(&db, "k")));
	for (j = 0; j < 4; j++) {
		after = reply_of(&db, reads[j]);
		ck_assert_str_eq(after, before[j]);
		free(after);
		free(before[j]);
	}
	for (i = 0; i < KV_ZSET_SMALL_MEMBERS; i++) {
		snprintf(line, sizeof(line), "m%d", i);
		ck_assert(zset_rank(zset_at_key(&db, "k"), line, strlen(line),
				    &r));
	}
	db_flush(&db);
}
END_TEST

/* A member of 65 bytes makes a set large, at its creation or later; one
 * of 64 does not. */
START_TEST(small_to_large_by_size)
{
	struct kv_db db;

	db_init(&db);
	run(&db, "ZADD k 1 " LONG64 " 2 b", ":2\r\n");
	ck_assert(zset_is_small(zset_at_key(&db, "k")));
	run(&db, "ZADD k 3 " LONG65, ":1\r\n");
	ck_assert(!zset_is_small(zset_at_key(&db, "k")));
	run(&db, "ZRANGE k 0 -1",
	    "*3\r\n$64\r\n" LONG64 "\r\n$1\r\nb\r\n$65\r\n" LONG65 "\r\n");
	run(&db, "ZADD n 1 " LONG65, ":1\r\n");
	ck_assert(!zset_is_small(zset_at_key(&db, "n")));
	run(&db, "ZPOPMIN n", "*2\r\n$65\r\n" LONG65 "\r\n$1\r\n1\r\n");
	run(&db, "EXISTS n", ":0\r\n");
	db_flush(&db);
}
END_TEST

/* ---- a model of 100,000 members ---------------------------------------- */

#define N_MODEL 100000

struct mrec {
	double score;
	size_t n;
	bool live;
	char m[24];
};

static uint64_t rnd_state;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545f4914f6cdd1dULL;
}

static int mrec_cmp(const void *pa, const void *pb)
{
	const struct mrec *a = pa, *b = pb;
	size_t n = a->n < b->n ? a->n : b->n;
	int c;

	if (a->score != b->score)
		return a->score < b->score ? -1 : 1;
	c = memcmp(a->m, b->m, n);
	return c ? c : (a->n > b->n) - (a->n < b->n);
}

struct model {
	struct mrec *all; /* by member id */
	struct mrec *s;	  /* the live ones, sorted */
	size_t n;
};

static void model_sort(struct model *md)
{
	size_t i;

	md->n = 0;
	for (i = 0; i < N_MODEL; i++)
		if (md->all[i].live)
			md->s[md->n++] = md->all[i];
	qsort(md->s, md->n, sizeof(*md->s), mrec_cmp);
}

/* A score with ties: halves from -1000 to 1500. */
static double model_score(void)
{
	return (double)(rnd() % 5000) / 2.0 - 1000;
}

/* The reply of k members of s from from, up or (rev) down. */
static char *want_walk(const struct mrec *s, size_t from, size_t k, bool rev,
		       bool scores)
{
	struct out w;
	size_t i;

	out_init(&w);
	out_array(&w, (long long)(k * (scores ? 2 : 1)));
	for (i = 0; i < k; i++) {
		const struct mrec *r = &s[rev ? from - i : from + i];

		out_bulk(&w, r->m, r->n);
		if (scores)
			out_double(&w, r->score);
	}
	out_raw(&w, "", 1);
	return w.p;
}

static void check_ranks(struct kv_zset *z, struct model *md)
{
	size_t i, r;
	double s;

	ck_assert_uint_eq(zset_len(z), md->n);
	for (i = 0; i < md->n; i++) {
		ck_assert(zset_rank(z, md->s[i].m, md->s[i].n, &r));
		ck_assert_uint_eq(r, i);
		ck_assert(zset_score(z, md->s[i].m, md->s[i].n, &s));
		ck_assert(s == md->s[i].score);
	}
}

static void check_rank_ranges(struct kv_db *db, struct model *md, int times)
{
	long long a, b, len = (long long)md->n, lo, hi;
	char line[128], *want;
	bool rev;

	while (times--) {
		a = (long long)(rnd() % (md->n + 20)) - 10;
		b = a + (long long)(rnd() % 40) - 5;
		if (rnd() % 2) { /* from the end */
			a -= len;
			b -= len;
		}
		rev = rnd() % 2;
		snprintf(line, sizeof(line), "%s big %lld %lld WITHSCORES",
			 rev ? "ZREVRANGE" : "ZRANGE", a, b);
		lo = a < 0 ? a + len : a;
		hi = b < 0 ? b + len : b;
		lo = lo < 0 ? 0 : lo;
		hi = hi >= len ? len - 1 : hi;
		if (lo > hi)
			want = want_walk(md->s, 0, 0, false, true);
		else
			want = want_walk(md->s,
					 (size_t)(rev ? len - 1 - lo : lo),
					 (size_t)(hi - lo + 1), rev, true);
		run(db, line, want);
		free(want);
	}
}

/* Members of sorted s below min (min ex: at most min), by bisection. */
static size_t below(const struct mrec *s, size_t n, double min, bool ex)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ex ? s[mid].score <= min : s[mid].score < min)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void check_score_range(struct kv_db *db, struct model *md, double min,
			      bool minex, double max, bool maxex)
{
	size_t lo = below(md->s, md->n, min, minex);
	size_t end = below(md->s, md->n, max, !maxex), cnt;
	long long off = (long long)(rnd() % 30) - 2, lim;
	char line[192], count[32], *want;
	bool rev = rnd() % 2;

	lim = (long long)(rnd() % 50) - 1;
	cnt = end > lo ? end - lo : 0;
	snprintf(line, sizeof(line), "ZCOUNT big %s%.17g %s%.17g",
		 minex ? "(" : "", min, maxex ? "(" : "", max);
	snprintf(count, sizeof(count), ":%zu\r\n", cnt);
	run(db, line, count);
	snprintf(line, sizeof(line),
		 "%s big %s%.17g %s%.17g WITHSCORES "
		 "LIMIT %lld %lld",
		 rev ? "ZREVRANGEBYSCORE" : "ZRANGEBYSCORE",
		 rev ? (maxex ? "(" : "") : (minex ? "(" : ""), rev ? max : min,
		 rev ? (minex ? "(" : "") : (maxex ? "(" : ""), rev ? min : max,
		 off, lim);
	if (off < 0 || (size_t)off >= cnt) {
		want = want_walk(md->s, 0, 0, false, true);
	} else {
		cnt -= (size_t)off;
		if (lim >= 0 && (size_t)lim < cnt)
			cnt = (size_t)lim;
		want = want_walk(md->s,
				 rev ? end - 1 - (size_t)off : lo + (size_t)off,
				 cnt, rev, true);
	}
	run(db, line, want);
	free(want);
}

static void check_score_ranges(struct kv_db *db, struct model *md, int times)
{
	double a, b;

	while (times--) {
		a = model_score();
		b = a + (double)(rnd() % 200) / 2.0 - 10;
		check_score_range(db, md, a, rnd() % 3 == 0, b, rnd() % 3 == 0);
	}
	check_score_range(db, md, -INFINITY, false, INFINITY, false);
	check_score_range(db, md, -INFINITY, true, INFINITY, true);
}

static void check_model(struct kv_db *db, struct model *md)
{
	model_sort(md);
	check_ranks(zset_at_key(db, "big"), md);
	check_rank_ranges(db, md, 300);
	check_score_ranges(db, md, 300);
}

static struct kv_zset *model_make(struct kv_db *db, struct model *md)
{
	struct kv_entry *e;
	struct kv_zset *z;
	double ns;
	size_t i;

	md->all = calloc(N_MODEL, sizeof(*md->all));
	md->s = calloc(N_MODEL, sizeof(*md->s));
	ck_assert(md->all && md->s);
	e = db_add(db, "big", 3, (uint32_t)kv_hash("big", 3), KV_ZSET, 0);
	ck_assert_ptr_nonnull(e);
	z = db_zset(e);
	for (i = 0; i < N_MODEL; i++) {
		struct mrec *r = &md->all[i];

		r->n = (size_t)snprintf(r->m, sizeof(r->m), "member:%zu", i);
		r->score = model_score();
		r->live = true;
		ck_assert_int_eq(zset_add(z, r->score, r->m, r->n, 0, &ns),
				 ZSET_ADDED);
	}
	return z;
}

/* Some members moved, some removed, through the commands. */
static void model_churn(struct kv_db *db, struct model *md)
{
	char line[128], want[64];
	size_t i, k;

	for (k = 0; k < 3000; k++) {
		struct mrec *r = &md->all[rnd() % N_MODEL];
		double s = model_score();

		snprintf(line, sizeof(line), "ZADD big CH %.17g %s", s, r->m);
		snprintf(want, sizeof(want), ":%d\r\n",
			 !r->live || r->score != s);
		run(db, line, want);
		r->score = s;
		r->live = true;
	}
	for (k = 0; k < 20000; k++) {
		i = rnd() % N_MODEL;
		snprintf(line, sizeof(line), "ZREM big %s", md->all[i].m);
		run(db, line, md->all[i].live ? ":1\r\n" : ":0\r\n");
		md->all[i].live = false;
	}
}

static void model_forget(struct model *md, size_t lo, size_t hi)
{
	size_t i, id;

	for (i = lo; i <= hi; i++) {
		sscanf(md->s[i].m, "member:%zu", &id);
		md->all[id].live = false;
	}
}

/* Removals by rank and by score, pops at both ends. */
static void model_remove(struct kv_db *db, struct model *md)
{
	size_t lo, end;
	char want[32], *w;

	run(db, "ZREMRANGEBYRANK big 1000 1999", ":1000\r\n");
	model_forget(md, 1000, 1999);
	model_sort(md);
	lo = below(md->s, md->n, 100, true);
	end = below(md->s, md->n, 200, true);
	snprintf(want, sizeof(want), ":%zu\r\n", end - lo);
	run(db, "ZREMRANGEBYSCORE big (100 200", want);
	model_forget(md, lo, end - 1);
	model_sort(md);
	w = want_walk(md->s, 0, 10, false, true);
	run(db, "ZPOPMIN big 10", w);
	free(w);
	model_forget(md, 0, 9);
	model_sort(md);
	w = want_walk(md->s, md->n - 1, 7, true, true);
	run(db, "ZPOPMAX big 7", w);
	free(w);
	model_forget(md, md->n - 7, md->n - 1);
}

START_TEST(ranks_and_ranges_against_a_model)
{
	struct model md;
	struct kv_db db;
	struct kv_zset *z;

	rnd_state = 0x9e3779b97f4a7c15ULL;
	db_init(&db);
	z = model_make(&db, &md);
	ck_assert(!zset_is_small(z));
	check_model(&db, &md);
	model_churn(&db, &md);
	check_model(&db, &md);
	model_remove(&db, &md);
	check_model(&db, &md);
	/* most of it gone: the member table shrinks as it goes */
	model_sort(&md);
	run(&db, "ZREMRANGEBYRANK big 500 -1", NULL);
	model_forget(&md, 500, md.n - 1);
	check_model(&db, &md);
	run(&db, "ZREMRANGEBYSCORE big -inf +inf", ":500\r\n");
	run(&db, "EXISTS big", ":0\r\n");
	free(md.all);
	free(md.s);
	db_flush(&db);
}
END_TEST

/* ---- lex ranges of 20,000 members -------------------------------------- */

#define N_LEX 20000

static int str_cmp(const void *pa, const void *pb)
{
	const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;

	return strcmp(a, b); /* no NUL inside: memcmp's order */
}

/* Members of sorted m at or below (ex: below) b. */
static size_t lex_below(char **m, size_t n, const char *b, bool ex)
{
	size_t lo = 0, hi = n, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = strcmp(m[mid], b);
		if (ex ? c < 0 : c <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The reply of k members of m from from, up or (rev) down. */
static void lex_want(struct out *w, char **m, size_t from, size_t k, bool rev)
{
	size_t i;

	out_init(w);
	out_array(w, (long long)k);
	for (i = 0; i < k; i++) {
		const char *p = m[rev ? from - i : from + i];

		out_bulk(w, p, strlen(p));
	}
	out_raw(w, "", 1);
}

/* Bounds a ("[x" or "(x", NULL: "-") and b (NULL: "+") on sorted m. */
static void lex_check(struct kv_db *db, char **m, size_t n, const char *a,
		      const char *b)
{
	size_t lo = a ? lex_below(m, n, a + 1, a[0] == '[') : 0;
	size_t end = b ? lex_below(m, n, b + 1, b[0] == '(') : n, k;
	const char *sa = a ? a : "-", *sb = b ? b : "+";
	char line[128], count[32];
	struct out w;

	k = end > lo ? end - lo : 0;
	snprintf(line, sizeof(line), "ZLEXCOUNT lex %s %s", sa, sb);
	snprintf(count, sizeof(count), ":%zu\r\n", k);
	run(db, line, count);
	snprintf(line, sizeof(line), "ZRANGEBYLEX lex %s %s LIMIT 2 15", sa,
		 sb);
	lex_want(&w, m, lo + 2, k > 2 ? (k - 2 < 15 ? k - 2 : 15) : 0, false);
	run(db, line, w.p);
	out_free(&w);
	snprintf(line, sizeof(line), "ZREVRANGEBYLEX lex %s %s LIMIT 3 20", sb,
		 sa);
	lex_want(&w, m, end - 4, k > 3 ? (k - 3 < 20 ? k - 3 : 20) : 0, true);
	run(db, line, w.p);
	out_free(&w);
}

START_TEST(lex_ranges_against_a_model)
{
	char **m = calloc(N_LEX, sizeof(*m)), bound[2][40];
	struct kv_db db;
	struct kv_entry *e;
	double ns;
	size_t i;
	int t;

	rnd_state = 0x2545f4914f6cdd1dULL;
	db_init(&db);
	e = db_add(&db, "lex", 3, (uint32_t)kv_hash("lex", 3), KV_ZSET, 0);
	ck_assert(m && e);
	for (i = 0; i < N_LEX; i++) {
		m[i] = malloc(24);
		snprintf(m[i], 24, "w%llu",
			 (unsigned long long)(rnd() % 1000000));
		/* a repeat is counted once: the model holds it once too */
		if (zset_add(db_zset(e), 0, m[i], strlen(m[i]), 0, &ns) !=
		    ZSET_ADDED)
			m[i][0] = '\0';
	}
	qsort(m, N_LEX, sizeof(*m), str_cmp);
	for (i = 0; !m[i][0]; i++) /* the repeats, first */
		free(m[i]);
	ck_assert_uint_eq(zset_len(db_zset(e)), N_LEX - i);
	for (t = 0; t < 400; t++) {
		snprintf(bound[0], 40, "%cw%llu", rnd() % 2 ? '[' : '(',
			 (unsigned long long)(rnd() % 1000000));
		snprintf(bound[1], 40, "%cw%llu", rnd() % 2 ? '[' : '(',
			 (unsigned long long)(rnd() % 1000000));
		lex_check(&db, m + i, N_LEX - i, t % 7 ? bound[0] : NULL,
			  t % 5 ? bound[1] : NULL);
	}
	for (; i < N_LEX; i++)
		free(m[i]);
	free(m);
	db_flush(&db);
}
END_TEST

/* ---- ZRANDMEMBER ------------------------------------------------------- */

/* The bulks of an array reply into m (NUL-ended, 31 bytes at most): how
 * many. */
static int bulks(const char *r, char m[][32], int max)
{
	int n, i, len;

	ck_assert(sscanf(r, "*%d\r\n", &n) == 1);
	ck_assert_int_le(n, max);
	r = strchr(r, '\n') + 1;
	for (i = 0; i < n; i++) {
		ck_assert(sscanf(r, "$%d\r\n", &len) == 1 && len < 32);
		r = strchr(r, '\n') + 1;
		memcpy(m[i], r, (size_t)len);
		m[i][len] = '\0';
		r += len + 2;
	}
	ck_assert_int_eq(*r, '\0');
	return n;
}

static void check_members(struct kv_db *db, char m[][32], int n, bool pairs,
			  bool distinct)
{
	struct kv_zset *z = zset_at_key(db, "k");
	int i, j, step = pairs ? 2 : 1;
	double s;

	for (i = 0; i < n; i += step) {
		ck_assert(zset_score(z, m[i], strlen(m[i]), &s));
		if (pairs)
			ck_assert(s == strtod(m[i + 1], NULL));
		for (j = 0; distinct && j < i; j += step)
			ck_assert_str_ne(m[i], m[j]);
	}
}

static void rand_cases(struct kv_db *db, int len)
{
	static char m[2200][32];
	char line[64], *r, *all;
	int counts[] = { 1, 3, len / 2, len - 1 }, i, n;

	r = reply_of(db, "ZRANDMEMBER k");
	ck_assert(r[0] == '$');
	free(r);
	for (i = 0; i < 4; i++) {
		snprintf(line, sizeof(line), "ZRANDMEMBER k %d WITHSCORES",
			 counts[i]);
		r = reply_of(db, line);
		n = bulks(r, m, 2200);
		ck_assert_int_eq(n, 2 * counts[i]);
		check_members(db, m, n, true, true);
		free(r);
	}
	r = reply_of(db, "ZRANDMEMBER k -1000");
	ck_assert_int_eq(bulks(r, m, 2200), 1000);
	check_members(db, m, 1000, false, false);
	free(r);
	/* all of them: highest first, as redis */
	snprintf(line, sizeof(line), "ZRANDMEMBER k %d WITHSCORES", len + 5);
	r = reply_of(db, line);
	all = reply_of(db, "ZREVRANGE k 0 -1 WITHSCORES");
	ck_assert_str_eq(r, all);
	free(r);
	free(all);
}

START_TEST(zrandmember_picks)
{
	char line[64];
	struct kv_db db;
	int i;

	db_init(&db);
	for (i = 0; i < 1000; i++) {
		snprintf(line, sizeof(line), "ZADD k %d m%d", i % 13, i);
		run(&db, line, ":1\r\n");
		if (i == 9) {
			ck_assert(zset_is_small(zset_at_key(&db, "k")));
			rand_cases(&db, 10);
		}
	}
	ck_assert(!zset_is_small(zset_at_key(&db, "k")));
	rand_cases(&db, 1000);
	db_flush(&db);
}
END_TEST

/* Every way of emptying a set deletes its key, on both encodings. */
START_TEST(empty_set_deleted)
{
	static const char *const empty[] = {
		"ZREM k a b c",
		"ZPOPMIN k 5",
		"ZPOPMAX k 3",
		"ZREMRANGEBYRANK k 0 -1",
		"ZREMRANGEBYSCORE k -inf +inf",
		"ZREMRANGEBYLEX k - +",
	};
	struct kv_db db;
	size_t i;
	int large;

	db_init(&db);
	for (large = 0; large < 2; large++) {
		for (i = 0; i < sizeof(empty) / sizeof(empty[0]); i++) {
			run(&db, "ZADD k 0 a 0 b 0 c", ":3\r\n");
			if (large) {
				run(&db, "ZADD k 0 " LONG65, ":1\r\n");
				run(&db, "ZREM k " LONG65, ":1\r\n");
			}
			ck_assert(zset_is_small(zset_at_key(&db, "k")) ==
				  !large);
			run(&db, empty[i], NULL);
			run(&db, "EXISTS k", ":0\r\n");
			run(&db, "TYPE k", "+none\r\n");
		}
	}
	ck_assert_uint_eq(db_count(&db), 0);
	db_flush(&db);
}
END_TEST

static Suite *kvzset_suite(void)
{
	Suite *s = suite_create("kvzset");
	TCase *tc = tcase_create("zset");
	int ntables = (int)(sizeof(tables) / sizeof(tables[0]));

	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, replies_small, 0, ntables);
	tcase_add_loop_test(tc, replies_large, 0, ntables);
	tcase_add_test(tc, lex_over_mixed_scores);
	tcase_add_test(tc, zero_sign_by_encoding);
	tcase_add_loop_test(tc, zadd_option_matrix, 0, 64);
	tcase_add_test(tc, small_to_large_by_count);
	tcase_add_test(tc, small_to_large_by_size);
	tcase_add_test(tc, ranks_and_ranges_against_a_model);
	tcase_add_test(tc, lex_ranges_against_a_model);
	tcase_add_test(tc, zrandmember_picks);
	tcase_add_test(tc, empty_set_deleted);
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
