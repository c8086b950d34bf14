# Cost scaling (Goldberg's push-relabel, from scratch and incremental) and
# its tests.

flowcore_libflowcore_la_SOURCES += flowcore/fc_costscale.c
