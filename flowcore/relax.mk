# relaxation and the race solver (filled in by its module)
