/* SPDX-License-Identifier: MIT */
/*
 * replay.c - the main of a fuzz target's replay program (tests/fuzz/
 * replay_NAME), built in every build without libFuzzer: runs inputs once
 * each through the target's LLVMFuzzerTestOneInput, as the fuzzer would.
 *
 *   replay_NAME FILE...   those inputs
 *   replay_NAME           (make check) every file of the seed corpus,
 *                         $srcdir/tests/fuzz/corpus/NAME, and of the
 *                         regression inputs, $srcdir/tests/regress/
 *                         fuzz_NAME (each an input a fuzzer once failed
 *                         on, named for the commit that fixed it)
 *
 * A crash, a sanitizer's report or a failed check of the target (an
 * abort) fails it, in the release, debug, TSan and ASan builds alike; it
 * names each input on stderr before running it, so the last one named is
 * the culprit. Ends with "N passed, 0 failed" (scripts/summary.sh counts
 * it). NAME comes from the build (FUZZ_NAME).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path)
{
	unsigned char *buf = NULL;
	long len = -1;
	FILE *f = fopen(path, "rb");

	if (f && !fseek(f, 0, SEEK_END) && (len = ftell(f)) >= 0 &&
	    !fseek(f, 0, SEEK_SET))
		buf = malloc((size_t)len + 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "replay: %s: cannot read it\n", path);
		exit(2);
	}
	fclose(f);
	fprintf(stderr, "replay: %s\n", path);
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	return 1;
}

/* Every regular file of dir; the count. */
static int run_dir(const char *dir)
{
	char path[4096];
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		n += run_file(path);
	}
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	const char *src = getenv("srcdir");
	char dir[4096];
	int i, n = 0;

	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++)
		n += run_file(argv[i]);
	if (argc == 1) {
		snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s",
			 src ? src : ".", FUZZ_NAME);
		n = run_dir(dir);
		if (n == 0) {
			fprintf(stderr, "replay: no inputs in %s\n", dir);
			return 1;
		}
		snprintf(dir, sizeof(dir), "%s/tests/regress/fuzz_%s",
			 src ? src : ".", FUZZ_NAME);
		n += run_dir(dir);
	}
	printf("%d passed, 0 failed\n", n);
	return 0;
}
