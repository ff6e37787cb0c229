"""Process plumbing: private atomic files, OpenMP threads, Ctrl-C, background work."""
