# cost scaling and incremental cost scaling (filled in by its module)
