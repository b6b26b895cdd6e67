"""Safe file primitives shared by every reader and the decision writer.

Readers (``read``): regular files only, opened without blocking, size-capped, verified not to have
changed during the read. Writers (``write``, ``lock``): never through a symlink, never outside the
project root, atomic replace, one lock among phasewatch's own writers.
"""
