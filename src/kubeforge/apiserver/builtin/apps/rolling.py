"""The rolling-update rules of 1.32's ``pkg/apis/apps/validation``: Deployments'
``strategy``, DaemonSets' and StatefulSets' ``updateStrategy``, in Go's order and words.

``maxUnavailable``/``maxSurge`` are ``intstr.IntOrString``: Go's errors show the struct
(``intstr.IntOrString{Type:1, IntVal:0, StrVal:"120%"}``), except a negative integer,
which ``ValidateNonnegativeField`` shows as the number. A strategy of an unknown type is
shown as Go prints the internal strategy struct.

Entry points: ``deployment_strategy_errors``, ``daemonset_strategy_errors``,
``statefulset_strategy_errors``.
"""

from __future__ import annotations

import re
from typing import Any

from kubeforge.apiserver.builtin.govalues import go_int_or_string
from kubeforge.apiserver.failures import FieldError, GoValue
from kubeforge.core.names import regex_error

__all__ = [
    "daemonset_strategy_errors",
    "deployment_strategy_errors",
    "go_strategy",
    "int_or_percent",
    "statefulset_strategy_errors",
]

_PERCENT = re.compile(r"[0-9]+%")
_ATOI = re.compile(r"[+-]?[0-9]+")
_PERCENT_ERROR = regex_error(
    "a valid percent string must be a numeric string followed by an ending '%'",
    "[0-9]+%",
    "1%",
    "93%",
)
_NEGATIVE = "must be greater than or equal to 0"
# A stand-in for the address Go prints for a set pointer field (a real one varies per call).
_ADDRESS = "0xc000a1e0f0"


def go_strategy(strategy: dict[str, Any], struct: str, rolling_struct: str) -> GoValue:
    """``apps.<struct>{Type:"...", RollingUpdate:(*apps.<rolling_struct>)(...)}`` (``%#v``)."""
    address = "nil" if strategy.get("rollingUpdate") is None else _ADDRESS
    kind = GoValue.quote(str(strategy.get("type") or ""))
    return GoValue(
        f"apps.{struct}{{Type:{kind}, RollingUpdate:(*apps.{rolling_struct})({address})}}"
    )


def int_or_percent(value: Any, path: str) -> list[FieldError]:
    """``ValidatePositiveIntOrPercent`` (an absent value is Go's zero IntOrString: fine)."""
    if isinstance(value, str):
        if _PERCENT.fullmatch(value):
            return []
        return [FieldError.invalid(path, go_int_or_string(value), _PERCENT_ERROR)]
    if isinstance(value, int) and value < 0:
        return [FieldError.invalid(path, value, _NEGATIVE)]
    return []


def _over_100_percent(value: Any, path: str) -> list[FieldError]:
    """``IsNotMoreThan100Percent``: only a valid percentage is looked at."""
    if isinstance(value, str) and _PERCENT.fullmatch(value) and int(value[:-1]) > 100:
        return [FieldError.invalid(path, go_int_or_string(value), "must not be greater than 100%")]
    return []


def _amount(value: Any) -> int:
    """``getIntOrPercentValue``: a percentage's number, else ``IntValue()`` (a string that
    is no percentage counts as ``strconv.Atoi`` reads it, 0 when it cannot)."""
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        if _PERCENT.fullmatch(value):
            return int(value[:-1])
        if _ATOI.fullmatch(value):
            return int(value)
    return 0


def _rolling(strategy: dict[str, Any]) -> dict[str, Any] | None:
    rolling = strategy.get("rollingUpdate")
    return rolling if isinstance(rolling, dict) else None


def deployment_strategy_errors(strategy: Any, path: str) -> list[FieldError]:
    """``ValidateDeploymentStrategy`` with ``ValidateRollingUpdateDeployment``."""
    strategy = strategy if isinstance(strategy, dict) else {}
    kind, rolling = strategy.get("type"), _rolling(strategy)
    if kind == "Recreate":
        if strategy.get("rollingUpdate") is None:
            return []
        detail = "may not be specified when strategy `type` is 'Recreate'"
        return [FieldError.forbidden(f"{path}.rollingUpdate", detail)]
    if kind != "RollingUpdate":
        shown = go_strategy(strategy, "DeploymentStrategy", "RollingUpdateDeployment")
        return [FieldError.not_supported(path, shown, ("Recreate", "RollingUpdate"))]
    if rolling is None:
        detail = "this should be defaulted and never be nil"
        return [FieldError.required(f"{path}.rollingUpdate", detail)]
    at = f"{path}.rollingUpdate"
    unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
    errors = int_or_percent(unavailable, f"{at}.maxUnavailable")
    errors += int_or_percent(surge, f"{at}.maxSurge")
    if _amount(unavailable) == 0 and _amount(surge) == 0:
        detail = "may not be 0 when `maxSurge` is 0"
        errors.append(
            FieldError.invalid(f"{at}.maxUnavailable", go_int_or_string(unavailable), detail)
        )
    errors += _over_100_percent(unavailable, f"{at}.maxUnavailable")
    return errors


def daemonset_strategy_errors(strategy: Any, path: str) -> list[FieldError]:
    """``ValidateDaemonSetUpdateStrategy`` with ``ValidateRollingUpdateDaemonSet``: exactly
    one of ``maxUnavailable`` and ``maxSurge`` is non-zero."""
    strategy = strategy if isinstance(strategy, dict) else {}
    kind, rolling = strategy.get("type"), _rolling(strategy)
    if kind == "OnDelete":
        return []
    if kind != "RollingUpdate":
        shown = go_strategy(strategy, "DaemonSetUpdateStrategy", "RollingUpdateDaemonSet")
        return [FieldError.not_supported(path, shown, ("RollingUpdate", "OnDelete"))]
    if rolling is None:
        return [FieldError.required(f"{path}.rollingUpdate")]
    at = f"{path}.rollingUpdate"
    unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
    errors = int_or_percent(unavailable, f"{at}.maxUnavailable")
    errors += int_or_percent(surge, f"{at}.maxSurge")
    errors += _over_100_percent(unavailable, f"{at}.maxUnavailable")
    errors += _over_100_percent(surge, f"{at}.maxSurge")
    has_unavailable, has_surge = _amount(unavailable) != 0, _amount(surge) != 0
    if has_unavailable and has_surge:
        detail = "may not be set when maxUnavailable is non-zero"
        errors.append(FieldError.invalid(f"{at}.maxSurge", go_int_or_string(surge), detail))
    elif not has_unavailable and not has_surge:
        errors.append(FieldError.required(f"{at}.maxUnavailable", "cannot be 0 when maxSurge is 0"))
    return errors


def statefulset_strategy_errors(strategy: Any, path: str) -> list[FieldError]:
    """The ``updateStrategy`` part of ``ValidateStatefulSetSpec`` with
    ``validateRollingUpdateStatefulSet``."""
    strategy = strategy if isinstance(strategy, dict) else {}
    kind, rolling = strategy.get("type"), _rolling(strategy)
    if not kind:
        return [FieldError.required(path)]
    if kind == "OnDelete":
        if strategy.get("rollingUpdate") is None:
            return []
        shown = _go_statefulset_rolling(rolling or {})
        detail = "only allowed for updateStrategy 'RollingUpdate'"
        return [FieldError.invalid(f"{path}.rollingUpdate", shown, detail)]
    if kind != "RollingUpdate":
        shown = go_strategy(
            strategy, "StatefulSetUpdateStrategy", "RollingUpdateStatefulSetStrategy"
        )
        return [FieldError.invalid(path, shown, "must be 'RollingUpdate' or 'OnDelete'")]
    if rolling is None:
        return []
    at = f"{path}.rollingUpdate"
    partition = rolling.get("partition")
    errors: list[FieldError] = []
    if isinstance(partition, int) and partition < 0:
        errors.append(FieldError.invalid(f"{at}.partition", partition, _NEGATIVE))
    unavailable = rolling.get("maxUnavailable")
    if unavailable is not None:
        errors += int_or_percent(unavailable, f"{at}.maxUnavailable")
        if _amount(unavailable) == 0:
            shown = go_int_or_string(unavailable)
            errors.append(FieldError.invalid(f"{at}.maxUnavailable", shown, "cannot be 0"))
        errors += _over_100_percent(unavailable, f"{at}.maxUnavailable")
    return errors


def _go_statefulset_rolling(rolling: dict[str, Any]) -> GoValue:
    """``%#v`` of the internal ``RollingUpdateStatefulSetStrategy`` (Partition is no pointer
    there: an absent one shows 0)."""
    partition = rolling.get("partition")
    partition = partition if isinstance(partition, int) else 0
    address = "nil" if rolling.get("maxUnavailable") is None else _ADDRESS
    return GoValue(
        f"apps.RollingUpdateStatefulSetStrategy{{Partition:{partition}, "
        f"MaxUnavailable:(*intstr.IntOrString)({address})}}"
    )
