"""GNU dd, import only: the ``bytes ... copied, S s, R MB/s`` summaries people paste."""
