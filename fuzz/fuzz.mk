# Fuzzing: libFuzzer targets, built only with
#   CC=clang ./configure --enable-fuzzing
# and the `make fuzz` target that runs every one of them for FUZZ_SECONDS
# (default 60) each: `make fuzz FUZZ_SECONDS=10`.
#
# Any fragment adds a target by adding a program whose name starts with
# fuzz_ to noinst_PROGRAMS inside `if ENABLE_FUZZING`, linked with
# -fsanitize=fuzzer (LDFLAGS $(FUZZER_LINK)). `make fuzz` finds it by that
# name; its seed corpus, if any, is $(top_srcdir)/fuzz/corpus/<name>/.
# Inputs the fuzzer adds go to $(FUZZ_OUT)/<name>/corpus, crashes and
# other findings to $(FUZZ_OUT)/<name>/crashes, its log to
# $(FUZZ_OUT)/<name>/log.

FUZZ_SECONDS = 60
FUZZ_OUT = $(abs_top_builddir)/fuzz-out
FUZZER_LINK = $(AM_LDFLAGS) -fsanitize=fuzzer -no-install
EXTRA_DIST += fuzz/corpus

# Writes the protocol's seed corpora (committed under fuzz/corpus):
#   fuzz/gen_corpus $(top_srcdir)/fuzz/corpus
noinst_PROGRAMS += fuzz/gen_corpus
fuzz_gen_corpus_SOURCES = fuzz/gen_corpus.c
fuzz_gen_corpus_LDADD = tests/libprotogen.a client/libskylark_impl.la

if ENABLE_FUZZING
# The sealed transport's handshake: a stranger's HELLO and first frame.
noinst_PROGRAMS += fuzz/fuzz_handshake
fuzz_fuzz_handshake_SOURCES = fuzz/fuzz_handshake.c
fuzz_fuzz_handshake_LDADD = client/libskylark_impl.la
fuzz_fuzz_handshake_LDFLAGS = $(FUZZER_LINK)

# The wire protocol: the generic decoder, then one target per message type.
noinst_PROGRAMS += fuzz/fuzz_proto
fuzz_fuzz_proto_SOURCES = fuzz/fuzz_proto.c
fuzz_fuzz_proto_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_MSG_TYPE=0
fuzz_fuzz_proto_LDADD = client/libskylark_impl.la
fuzz_fuzz_proto_LDFLAGS = $(FUZZER_LINK)

noinst_PROGRAMS += fuzz/fuzz_proto_hello
fuzz_fuzz_proto_hello_SOURCES = fuzz/fuzz_proto.c
fuzz_fuzz_proto_hello_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_MSG_TYPE=SK_MSG_HELLO
fuzz_fuzz_proto_hello_LDADD = client/libskylark_impl.la
fuzz_fuzz_proto_hello_LDFLAGS = $(FUZZER_LINK)

noinst_PROGRAMS += fuzz/fuzz_proto_submit_job
fuzz_fuzz_proto_submit_job_SOURCES = fuzz/fuzz_proto.c
fuzz_fuzz_proto_submit_job_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_MSG_TYPE=SK_MSG_SUBMIT_JOB
fuzz_fuzz_proto_submit_job_LDADD = client/libskylark_impl.la
fuzz_fuzz_proto_submit_job_LDFLAGS = $(FUZZER_LINK)

noinst_PROGRAMS += fuzz/fuzz_proto_job_accepted
fuzz_fuzz_proto_job_accepted_SOURCES = fuzz/fuzz_proto.c
fuzz_fuzz_proto_job_accepted_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_MSG_TYPE=SK_MSG_JOB_ACCEPTED
fuzz_fuzz_proto_job_accepted_LDADD = client/libskylark_impl.la
fuzz_fuzz_proto_job_accepted_LDFLAGS = $(FUZZER_LINK)

noinst_PROGRAMS += fuzz/fuzz_proto_job_rejected
fuzz_fuzz_proto_job_rejected_SOURCES = fuzz/fuzz_proto.c
fuzz_fuzz_proto_job_rejected_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_MSG_TYPE=SK_MSG_JOB_REJECTED
fuzz_fuzz_proto_job_rejected_LDADD = client/libskylark_impl.la
fuzz_fuzz_proto_job_rejected_LDFLAGS = $(FUZZER_LINK)

noinst_PROGRAMS += fuzz/fuzz_proto_enqueue_reservation
fuzz_fuzz_proto_enqueue_reservation_SOURCES = fuzz/fuzz_proto.c
fuzz_fuzz_proto_enqueue_reservation_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_MSG_TYPE=SK_MSG_ENQUEUE_RESERVATION
fuzz_fuzz_proto_enqueue_reservation_LDADD = client/libskylark_impl.la
fuzz_fuzz_proto_enqueue_reservation_LDFLAGS = $(FUZZER_LINK)

noinst_PROGRAMS += fuzz/fuzz_proto_get_task
fuzz_fuzz_proto_get_task_SOURCES = fuzz/fuzz_proto.c
fuzz_fuzz_proto_get_task_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_MSG_TYPE=SK_MSG_GET_TASK
fuzz_fuzz_proto_get_task_LDADD = client/libskylark_impl.la
fuzz_fuzz_proto_get_task_LDFLAGS = $(FUZZER_LINK)

noinst_PROGRAMS += fuzz/fuzz_proto_task_reply
fuzz_fuzz_proto_task_reply_SOURCES = fuzz/fuzz_proto.c
fuzz_fuzz_proto_task_reply_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_MSG_TYPE=SK_MSG_TASK_REPLY
fuzz_fuzz_proto_task_reply_LDADD = client/libskylark_impl.la
fuzz_fuzz_proto_task_reply_LDFLAGS = $(FUZZER_LINK)

noinst_PROGRAMS += fuzz/fuzz_proto_cancel_reservations
fuzz_fuzz_proto_cancel_reservations_SOURCES = fuzz/fuzz_proto.c
fuzz_fuzz_proto_cancel_reservations_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_MSG_TYPE=SK_MSG_CANCEL_RESERVATIONS
fuzz_fuzz_proto_cancel_reservations_LDADD = client/libskylark_impl.la
fuzz_fuzz_proto_cancel_reservations_LDFLAGS = $(FUZZER_LINK)

noinst_PROGRAMS += fuzz/fuzz_proto_launch_task
fuzz_fuzz_proto_launch_task_SOURCES = fuzz/fuzz_proto.c
fuzz_fuzz_proto_launch_task_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_MSG_TYPE=SK_MSG_LAUNCH_TASK
fuzz_fuzz_proto_launch_task_LDADD = client/libskylark_impl.la
fuzz_fuzz_proto_launch_task_LDFLAGS = $(FUZZER_LINK)

noinst_PROGRAMS += fuzz/fuzz_proto_task_started
fuzz_fuzz_proto_task_started_SOURCES = fuzz/fuzz_proto.c
fuzz_fuzz_proto_task_started_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_MSG_TYPE=SK_MSG_TASK_STARTED
fuzz_fuzz_proto_task_started_LDADD = client/libskylark_impl.la
fuzz_fuzz_proto_task_started_LDFLAGS = $(FUZZER_LINK)

noinst_PROGRAMS += fuzz/fuzz_proto_task_finished
fuzz_fuzz_proto_task_finished_SOURCES = fuzz/fuzz_proto.c
fuzz_fuzz_proto_task_finished_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_MSG_TYPE=SK_MSG_TASK_FINISHED
fuzz_fuzz_proto_task_finished_LDADD = client/libskylark_impl.la
fuzz_fuzz_proto_task_finished_LDFLAGS = $(FUZZER_LINK)

noinst_PROGRAMS += fuzz/fuzz_proto_cancel_job
fuzz_fuzz_proto_cancel_job_SOURCES = fuzz/fuzz_proto.c
fuzz_fuzz_proto_cancel_job_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_MSG_TYPE=SK_MSG_CANCEL_JOB
fuzz_fuzz_proto_cancel_job_LDADD = client/libskylark_impl.la
fuzz_fuzz_proto_cancel_job_LDFLAGS = $(FUZZER_LINK)

noinst_PROGRAMS += fuzz/fuzz_proto_job_done
fuzz_fuzz_proto_job_done_SOURCES = fuzz/fuzz_proto.c
fuzz_fuzz_proto_job_done_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_MSG_TYPE=SK_MSG_JOB_DONE
fuzz_fuzz_proto_job_done_LDADD = client/libskylark_impl.la
fuzz_fuzz_proto_job_done_LDFLAGS = $(FUZZER_LINK)

noinst_PROGRAMS += fuzz/fuzz_proto_kill_task
fuzz_fuzz_proto_kill_task_SOURCES = fuzz/fuzz_proto.c
fuzz_fuzz_proto_kill_task_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_MSG_TYPE=SK_MSG_KILL_TASK
fuzz_fuzz_proto_kill_task_LDADD = client/libskylark_impl.la
fuzz_fuzz_proto_kill_task_LDFLAGS = $(FUZZER_LINK)

noinst_PROGRAMS += fuzz/fuzz_proto_reserve
fuzz_fuzz_proto_reserve_SOURCES = fuzz/fuzz_proto.c
fuzz_fuzz_proto_reserve_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_MSG_TYPE=SK_MSG_RESERVE
fuzz_fuzz_proto_reserve_LDADD = client/libskylark_impl.la
fuzz_fuzz_proto_reserve_LDFLAGS = $(FUZZER_LINK)

noinst_PROGRAMS += fuzz/fuzz_proto_reserve_ack
fuzz_fuzz_proto_reserve_ack_SOURCES = fuzz/fuzz_proto.c
fuzz_fuzz_proto_reserve_ack_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_MSG_TYPE=SK_MSG_RESERVE_ACK
fuzz_fuzz_proto_reserve_ack_LDADD = client/libskylark_impl.la
fuzz_fuzz_proto_reserve_ack_LDFLAGS = $(FUZZER_LINK)

noinst_PROGRAMS += fuzz/fuzz_proto_reserve_reject
fuzz_fuzz_proto_reserve_reject_SOURCES = fuzz/fuzz_proto.c
fuzz_fuzz_proto_reserve_reject_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_MSG_TYPE=SK_MSG_RESERVE_REJECT
fuzz_fuzz_proto_reserve_reject_LDADD = client/libskylark_impl.la
fuzz_fuzz_proto_reserve_reject_LDFLAGS = $(FUZZER_LINK)

noinst_PROGRAMS += fuzz/fuzz_proto_release
fuzz_fuzz_proto_release_SOURCES = fuzz/fuzz_proto.c
fuzz_fuzz_proto_release_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_MSG_TYPE=SK_MSG_RELEASE
fuzz_fuzz_proto_release_LDADD = client/libskylark_impl.la
fuzz_fuzz_proto_release_LDFLAGS = $(FUZZER_LINK)

noinst_PROGRAMS += fuzz/fuzz_proto_heartbeat
fuzz_fuzz_proto_heartbeat_SOURCES = fuzz/fuzz_proto.c
fuzz_fuzz_proto_heartbeat_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_MSG_TYPE=SK_MSG_HEARTBEAT
fuzz_fuzz_proto_heartbeat_LDADD = client/libskylark_impl.la
fuzz_fuzz_proto_heartbeat_LDFLAGS = $(FUZZER_LINK)

noinst_PROGRAMS += fuzz/fuzz_proto_membership
fuzz_fuzz_proto_membership_SOURCES = fuzz/fuzz_proto.c
fuzz_fuzz_proto_membership_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_MSG_TYPE=SK_MSG_MEMBERSHIP
fuzz_fuzz_proto_membership_LDADD = client/libskylark_impl.la
fuzz_fuzz_proto_membership_LDFLAGS = $(FUZZER_LINK)

noinst_PROGRAMS += fuzz/fuzz_proto_status_request
fuzz_fuzz_proto_status_request_SOURCES = fuzz/fuzz_proto.c
fuzz_fuzz_proto_status_request_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_MSG_TYPE=SK_MSG_STATUS_REQUEST
fuzz_fuzz_proto_status_request_LDADD = client/libskylark_impl.la
fuzz_fuzz_proto_status_request_LDFLAGS = $(FUZZER_LINK)

noinst_PROGRAMS += fuzz/fuzz_proto_status_reply
fuzz_fuzz_proto_status_reply_SOURCES = fuzz/fuzz_proto.c
fuzz_fuzz_proto_status_reply_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_MSG_TYPE=SK_MSG_STATUS_REPLY
fuzz_fuzz_proto_status_reply_LDADD = client/libskylark_impl.la
fuzz_fuzz_proto_status_reply_LDFLAGS = $(FUZZER_LINK)

fuzz:
	@progs=; for prog in $(noinst_PROGRAMS); do \
	  case `basename $$prog` in fuzz_*) progs="$$progs $$prog" ;; esac; \
	done; \
	$(MAKE) $(AM_MAKEFLAGS) $$progs || exit 1; \
	status=0; for prog in $$progs; do \
	  name=`basename $$prog $(EXEEXT)`; \
	  out='$(FUZZ_OUT)'/$$name; \
	  seeds='$(abs_top_srcdir)'/fuzz/corpus/$$name; \
	  mkdir -p $$out/corpus $$out/crashes; \
	  test -d $$seeds || seeds=; \
	  echo "fuzz: $$name for $(FUZZ_SECONDS) s"; \
	  if ./$$prog -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	      -artifact_prefix=$$out/crashes/ $$out/corpus $$seeds \
	      >$$out/log 2>&1; then \
	    grep -E '^stat::number_of_executed_units' $$out/log || :; \
	  else \
	    echo "fuzz: $$name FAILED: see $$out/log and $$out/crashes"; \
	    status=1; \
	  fi; \
	done; exit $$status
else
fuzz:
	@echo "fuzz: reconfigure with CC=clang --enable-fuzzing first" >&2; \
	exit 2
endif
.PHONY: fuzz

# The scheduling cores under hostile input sequences: the drivers are a
# library that the fuzz targets and tests/test_core_fuzz share.
noinst_LIBRARIES += fuzz/libcorefuzz.a
fuzz_libcorefuzz_a_SOURCES = \
	fuzz/core_fuzz.h \
	fuzz/core_fuzz_script.c fuzz/core_fuzz_script.h \
	fuzz/core_fuzz_sched.c \
	fuzz/core_fuzz_nm.c
fuzz_libcorefuzz_a_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/scheduler \
	-I$(top_srcdir)/nodemon
CORE_FUZZ_LDADD = fuzz/libcorefuzz.a scheduler/libsched.la \
	nodemon/libnodemon.la client/libskylark_impl.la

check_PROGRAMS += tests/test_core_fuzz
TESTS += tests/test_core_fuzz
tests_test_core_fuzz_SOURCES = tests/test_core_fuzz.c
tests_test_core_fuzz_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/fuzz
tests_test_core_fuzz_LDADD = $(CORE_FUZZ_LDADD) tests/libtap.a

if ENABLE_FUZZING
noinst_PROGRAMS += fuzz/fuzz_sched_core fuzz/fuzz_nm_core
fuzz_fuzz_sched_core_SOURCES = fuzz/fuzz_core.c
fuzz_fuzz_sched_core_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_CORE_SCHED
fuzz_fuzz_sched_core_LDADD = $(CORE_FUZZ_LDADD)
fuzz_fuzz_sched_core_LDFLAGS = $(FUZZER_LINK)
fuzz_fuzz_nm_core_SOURCES = fuzz/fuzz_core.c
fuzz_fuzz_nm_core_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_CORE_NM
fuzz_fuzz_nm_core_LDADD = $(CORE_FUZZ_LDADD)
fuzz_fuzz_nm_core_LDFLAGS = $(FUZZER_LINK)
endif
