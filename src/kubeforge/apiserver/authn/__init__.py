"""Authentication: bearer tokens to users, service-account and user tokens, impersonation.

Entry points: ``authenticator.Authenticator``, ``UserInfo``, ``user_token``.

May import: the standard library only (the test harness mints tokens with it).
"""
