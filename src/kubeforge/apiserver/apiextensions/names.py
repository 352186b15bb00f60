"""Which names a CRD may have: kube-apiserver's naming controller, run synchronously.

Entry point: ``negotiate(requested, status, group_names)`` returns the CRD's new
``acceptedNames`` with its ``NamesAccepted`` and ``Established`` conditions.

The rules (``apiextensions-apiserver`` ``NamingConditionController``):

* Plurals, singulars and short names of one group share one namespace, kinds and
  list kinds another; the names in use are the ``status.acceptedNames`` of every
  stored CRD of the group, the CRD itself included.
* A requested name is taken when it equals the one already accepted or nobody uses
  it; a clash keeps the previously accepted name (nothing, for a new CRD).
* Checks run in the order plural, singular, short names, kind, list kind; each clash
  overwrites the condition, so the last one shows (``PluralConflict`` ...
  ``ListKindConflict``, message ``"x" is already in use``; several short names:
  ``["a" is already in use, "b" is already in use]``).
* ``Established`` never goes back to False once True. The real server passes through
  ``Installing`` before the establishing controller flips it; here the CRD is
  established in the same write as its names are accepted.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kubeforge.apiserver.failures import go_quote

__all__ = ["group_names", "negotiate", "requested_names", "same_names"]

_INITIAL = ("InitialNamesAccepted", "the initial names have been accepted")
_NOT_ACCEPTED = ("NotAccepted", "not all names are accepted")
_NAME_KEYS = ("plural", "singular", "shortNames", "kind", "listKind", "categories")


def requested_names(spec: dict[str, Any]) -> dict[str, Any]:
    """``spec.names`` with the server's defaults (singular, listKind) filled in."""
    names = dict(spec.get("names") or {})
    kind = str(names.get("kind") or "")
    if kind:
        names.setdefault("singular", kind.lower())
        names.setdefault("listKind", f"{kind}List")
    return names


def same_names(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Equal as apimachinery's semantic equality sees them (empty lists equal absent ones)."""
    return all((a.get(k) or None) == (b.get(k) or None) for k in _NAME_KEYS)


def group_names(crds: Iterable[dict[str, Any]]) -> tuple[set[str], set[str]]:
    """``(resource names, kind names)`` accepted by ``crds`` (one group's stored CRDs)."""
    resources: set[str] = set()
    kinds: set[str] = set()
    for crd in crds:
        accepted = (crd.get("status") or {}).get("acceptedNames") or {}
        # Empty names count too, as in the real controller (a Go string set holds "").
        resources.add(str(accepted.get("plural") or ""))
        resources.add(str(accepted.get("singular") or ""))
        resources.update(str(s) for s in accepted.get("shortNames") or [])
        kinds.add(str(accepted.get("kind") or ""))
        kinds.add(str(accepted.get("listKind") or ""))
    return resources, kinds


def _in_use(requested: str, accepted: str, used: set[str]) -> str | None:
    """None when ``requested`` may be taken, else the conflict message."""
    if requested == accepted or requested not in used:
        return None
    return f"{go_quote(requested)} is already in use"


def negotiate(
    requested: dict[str, Any],
    status: dict[str, Any],
    names_in_group: tuple[set[str], set[str]],
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """``(acceptedNames, NamesAccepted condition, Established condition)``.

    ``status`` is the CRD's stored status (``{}`` for a new CRD); the conditions carry
    no ``lastTransitionTime`` (the caller keeps the old one when the status is unchanged).
    """
    resources, kinds = names_in_group
    accepted: dict[str, Any] = dict(status.get("acceptedNames") or {})
    result = dict(accepted)
    conflict: tuple[str, str] | None = None

    def take(key: str, used: set[str], reason: str) -> None:
        nonlocal conflict
        wanted = str(requested.get(key) or "")
        problem = _in_use(wanted, str(accepted.get(key) or ""), used)
        if problem is not None:
            conflict = (reason, problem)
        elif wanted:
            result[key] = wanted
        else:
            result.pop(key, None)

    take("plural", resources, "PluralConflict")
    take("singular", resources, "SingularConflict")
    short = [str(s) for s in requested.get("shortNames") or []]
    mine = [str(s) for s in accepted.get("shortNames") or []]
    if short != mine:
        own = {str(accepted.get("plural") or ""), str(accepted.get("singular") or "")}
        problems: list[str] = []
        for name in short:
            # Already ours, or our own plural/singular (in ``resources`` since the
            # CRD's own stored status counts): no conflict with itself.
            if name in mine or name in own:
                continue
            problem = _in_use(name, "", resources)
            if problem is not None and problem not in problems:
                problems.append(problem)
        if problems:
            message = problems[0] if len(problems) == 1 else f"[{', '.join(problems)}]"
            conflict = ("ShortNamesConflict", message)
        elif short:
            result["shortNames"] = short
        else:
            result.pop("shortNames", None)
    take("kind", kinds, "KindConflict")
    take("listKind", kinds, "ListKindConflict")
    if requested.get("categories"):
        result["categories"] = list(requested["categories"])
    else:
        result.pop("categories", None)

    if conflict is None:
        names_accepted = _condition("NamesAccepted", "True", "NoConflicts", "no conflicts found")
    else:
        names_accepted = _condition("NamesAccepted", "False", *conflict)
    established = next(
        (c for c in status.get("conditions") or [] if c.get("type") == "Established"),
        None,
    )
    if established is None or established.get("status") != "True":
        if conflict is None:
            established = _condition("Established", "True", *_INITIAL)
        elif established is None:
            established = _condition("Established", "False", *_NOT_ACCEPTED)
    return result, names_accepted, _condition(**_fields(established))


def _fields(condition: dict[str, Any]) -> dict[str, str]:
    return {
        "type_": str(condition.get("type") or ""),
        "status": str(condition.get("status") or ""),
        "reason": str(condition.get("reason") or ""),
        "message": str(condition.get("message") or ""),
    }


def _condition(type_: str, status: str, reason: str, message: str) -> dict[str, Any]:
    return {"type": type_, "status": status, "reason": reason, "message": message}
