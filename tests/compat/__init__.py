"""Compatibility suite: real clients (kubectl, the official kubernetes package) as judges."""
