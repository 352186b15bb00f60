"""Storage: the SQLite write-ahead log with its in-memory index, watch fan-out, continue tokens.

Entry points: ``sqlite.Storage`` (objects, revisions, history, ``subscribe_durable``),
``fanout`` (one storage subscription shared by every watcher of a resource; each
group's log of encoded lines and its members' places in it are ``watch_log``'s),
``pages`` (continue tokens of paginated lists).

May import: ``failures`` only; it knows no kind and no HTTP.
"""
