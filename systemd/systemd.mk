# What `make install` puts beside the programs and libraries: the sample
# configuration files, under $(sysconfdir)/skylark/ (their one copy is in
# docs/, where the tests read them), and a systemd unit for each daemon
# (configure --with-systemdsystemunitdir=DIR; no: none).

skylarkconfdir = $(sysconfdir)/skylark
dist_skylarkconf_DATA = docs/skylark-sched.conf docs/skylark-nodemon.conf

SK_UNITS = systemd/skylark-sched.service systemd/skylark-nodemon.service
if INSTALL_SYSTEMD_UNITS
systemdsystemunit_DATA = $(SK_UNITS)
endif
EXTRA_DIST += $(SK_UNITS:=.in)
CLEANFILES += $(SK_UNITS)

# The units name the installed paths, known only at make time.
$(SK_UNITS): Makefile
	$(AM_V_GEN)$(MKDIR_P) $(@D) && \
	sed -e 's|@bindir[@]|$(bindir)|g' -e 's|@sysconfdir[@]|$(sysconfdir)|g' \
	  $(srcdir)/$@.in >$@.tmp && mv -f $@.tmp $@
systemd/skylark-sched.service: $(srcdir)/systemd/skylark-sched.service.in
systemd/skylark-nodemon.service: $(srcdir)/systemd/skylark-nodemon.service.in

# systemd-analyze verify, where systemd is installed, on units that name
# the programs of this build.
dist_check_SCRIPTS += tests/test_units
TESTS += tests/test_units
check_DATA = $(SK_UNITS)
