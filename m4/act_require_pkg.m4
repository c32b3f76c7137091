# ACT_REQUIRE_PKG(VARIABLE-PREFIX, MODULES, DEBIAN-PACKAGE)
# PKG_CHECK_MODULES that stops configure with a message naming the Debian
# package to install.
AC_DEFUN([ACT_REQUIRE_PKG], [
  PKG_CHECK_MODULES([$1], [$2], [],
    [AC_MSG_ERROR([$2 not found: install the Debian package $3 (scripts/install-deps.sh installs every dependency)])])
])
