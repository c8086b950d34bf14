# Man pages, written in scdoc (docs/man/NAME.SECTION.scd) and turned into
# roff in the build folder. configure lists the sources, so a new page is
# one new .scd file here (then run configure again); tests/test_manpages
# checks that every long option of every program's --help, and every
# configuration key of the daemons, appears in its page.
#
# The roff pages are distributed: a build from the tarball installs them
# as they are and needs no scdoc. A build from git needs scdoc (Debian
# package scdoc; scripts/check installs it).

dist_man1_MANS = $(SK_MAN1_PAGES)
dist_man5_MANS = $(SK_MAN5_PAGES)
dist_man8_MANS = $(SK_MAN8_PAGES)
MAINTAINERCLEANFILES = $(SK_MAN1_PAGES) $(SK_MAN5_PAGES) $(SK_MAN8_PAGES)

# docs/man/NAME.SECTION from docs/man/NAME.SECTION.scd. SOURCE_DATE_EPOCH,
# when set (Debian builds set it), fixes the date scdoc writes.
SUFFIXES = .scd
.scd:
	$(AM_V_GEN)if test -z '$(SCDOC)'; then \
	  echo "$@: scdoc not found: install it (Debian: apt-get install scdoc) and run configure again" >&2; \
	  exit 1; \
	fi; \
	$(MKDIR_P) $(@D) && $(SCDOC) <$< >$@.tmp && mv -f $@.tmp $@

dist_check_SCRIPTS += tests/test_manpages
TESTS += tests/test_manpages
AM_TESTS_ENVIRONMENT += \
	SK_PROGRAMS='$(bin_PROGRAMS) $(sbin_PROGRAMS)'; export SK_PROGRAMS; \
	SK_MAN_PAGES='$(SK_MAN1_PAGES) $(SK_MAN5_PAGES) $(SK_MAN8_PAGES)'; export SK_MAN_PAGES;
