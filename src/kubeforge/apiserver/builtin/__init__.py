"""Built-in kinds: their facts, their strategies (defaults, validation, status rules).

Entry points: ``dispatch.builtin_strategy(served, used_service_ips)`` (the strategy a
built-in resource gets) and ``catalog.MORE_RESOURCES`` (facts of the GA kinds). One
module per API group holds its kinds' rules.

May import: ``registry`` and what is below it.
"""
