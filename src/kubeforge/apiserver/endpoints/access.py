"""Authentication, impersonation and authorization of every request, in the real server's order.

``Access.admit(request)`` runs for every API request (the health endpoints excepted):
it authenticates the bearer token (401 ``Unauthorized`` otherwise), applies
``Impersonate-*`` headers when the caller may impersonate (403 otherwise), then asks
the authorizer about the request's attributes (403 with the real message otherwise).
The identity is kept on the request for reviews and admission webhooks:
``request_user(request)``.

Entry points: ``Access``, ``request_user``, ``USER_KEY``.
"""

from __future__ import annotations

from aiohttp import web

from kubeforge.apiserver import failures
from kubeforge.apiserver.authn.authenticator import ADMIN, Authenticator, Impersonation, UserInfo
from kubeforge.apiserver.authn.authenticator import split_service_account as _split_account
from kubeforge.apiserver.authz.attributes import Attributes, request_attributes
from kubeforge.apiserver.authz.rbac import Authorizer, forbidden

__all__ = ["USER_KEY", "Access", "request_user"]

USER_KEY = "kubeforge.user"


def request_user(request: web.Request) -> UserInfo:
    """Who sent ``request`` (set by ``Access.admit``)."""
    user = request.get(USER_KEY)
    return user if isinstance(user, UserInfo) else ADMIN


class Access:
    """The authenticator and authorizer of one server."""

    def __init__(self, authenticator: Authenticator, authorizer: Authorizer) -> None:
        self.authenticator = authenticator
        self.authorizer = authorizer

    def admit(self, request: web.Request) -> UserInfo:
        """Authenticate, impersonate and authorize ``request``; raises ``StatusError``."""
        user = self._authenticate(request)
        impersonation = Impersonation.from_headers(request.headers)
        if impersonation is not None:
            user = self._impersonate(user, impersonation)
        request[USER_KEY] = user
        if not user.privileged:
            attrs = request_attributes(request.method, request.path, request.query)
            self.check(user, attrs)
        return user

    def check(self, user: UserInfo, attrs: Attributes) -> None:
        """Raise the real 403 unless ``user`` may do ``attrs``."""
        if user.privileged:
            return
        decision = self.authorizer.authorize(user, attrs)
        if not decision.allowed:
            raise forbidden(user, attrs, decision.reason)

    def _authenticate(self, request: web.Request) -> UserInfo:
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise failures.unauthorized()
        user = self.authenticator.authenticate_token(token.strip())
        if user is None:
            raise failures.unauthorized()
        return user

    def _impersonate(self, user: UserInfo, wanted: Impersonation) -> UserInfo:
        if not wanted.user:
            asked = [f"Group={g}" for g in wanted.groups] + (
                [f"UID={wanted.uid}"] * bool(wanted.uid)
            )
            raise failures.internal_error(
                f"requested [{' '.join(asked)}] without impersonating a user"
            )
        account = _split_account(wanted.user)
        if account is not None:
            target = Attributes(
                "impersonate", resource="serviceaccounts", namespace=account[0], name=account[1]
            )
        else:
            target = Attributes("impersonate", resource="users", name=wanted.user)
        checks = [target]
        checks += [Attributes("impersonate", resource="groups", name=g) for g in wanted.groups]
        if wanted.uid:
            checks.append(
                Attributes(
                    "impersonate",
                    api_group="authentication.k8s.io",
                    resource="uids",
                    name=wanted.uid,
                )
            )
        for key, values in wanted.extra.items():
            checks += [
                Attributes(
                    "impersonate",
                    api_group="authentication.k8s.io",
                    resource="userextras",
                    subresource=key,
                    name=value,
                )
                for value in values
            ]
        for attrs in checks:
            self.check(user, attrs)
        return wanted.identity()
