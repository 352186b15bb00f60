"""Storage: the SQLite write-ahead log with its in-memory index, watch fan-out, continue tokens.

Entry points: ``sqlite.Storage`` (objects, revisions, history, ``subscribe_durable``),
``fanout`` (one storage subscription shared by every watcher of a resource; each
group's log of encoded lines and its members' places in it are ``watch_log``'s),
``pages`` (continue tokens, and one page of a list read a chunk at a time),
``at_revision`` (a resource as it was at a past revision, read in key order).

May import: ``failures`` only; it knows no kind and no HTTP.
"""
