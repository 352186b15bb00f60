"""Pure data shared by every layer: object metadata, resource identity, keys,
selectors, the server's ``Status``, the exception tree and the clock.

Nothing here does I/O or starts tasks, so the client, the cache, the controller
runtime and the local API server can all import it without importing each other.
"""
