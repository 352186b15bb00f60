"""Authentication: bearer tokens to users, service-account and user tokens, impersonation.

Entry points: ``authenticator.Authenticator``, ``UserInfo``, ``usertokens.user_token``;
``signing`` (the service-account signing key and its JWKS entry).

May import: the standard library, and ``cryptography`` for the service-account signing
key (RS256, as a real server signs). ``usertokens`` stays standard-library only: the test
harness mints user tokens with it without loading the server.
"""
