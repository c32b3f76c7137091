#!/usr/bin/env python3
# check-names.py - the library's naming rule: a function of lib/ that
# other files may call (not static, or static inline in a header) is
# named act__<module>_<verb>, or act__<module>, where the module is the
# name of the file that defines it (lib/mem/slab.c: act__slab_alloc).
# The public API (act_*, include/actors.h) and file-local functions are
# not concerned. `make check` runs it (tests/names.sh); prints FILE:
# NAME for each function against the rule and exits 1 if there is one.
import os
import re
import sys

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

# a definition: optional static inline / attributes, a return type, the
# name, the parameters, then the body's brace
DEF = re.compile(
    r"^(?P<static>static\s+)?(?P<inline>(?:inline|act__always_inline)\s+)?"
    r"(?:(?:act__noreturn|const|struct|unsigned|enum)\s+)*"
    r"[\w]+[\s\*]+\**(?P<name>act__[a-z0-9_]+)\s*\([^;{]*\)\s*"
    r"(?:__attribute__\(\([^)]*\)\)\s*)*\{", re.M)


def main():
    bad = []
    for dirpath, dirs, files in os.walk("lib"):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, f)
            module = os.path.splitext(f)[0]
            # arch/<arch>/ctx_make.c implements arch/ctx.h
            if os.path.basename(dirpath) in ("x86_64", "aarch64"):
                module = module.split("_")[0]
            with open(path) as fh:
                text = fh.read()
            for m in DEF.finditer(text):
                if m.group("static") and not (m.group("inline") and
                                              f.endswith(".h")):
                    continue
                name = m.group("name")
                if name == "act__" + module or \
                        name.startswith("act__" + module + "_"):
                    continue
                bad.append("%s: %s is not act__%s_*" % (path, name, module))
    for b in bad:
        print(b)
    if bad:
        print("check-names: %d function(s) named for another module" %
              len(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
