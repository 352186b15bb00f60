"""Validation of a pod spec, shared by Pods and every kind with a pod template.

Written from kubernetes 1.32 ``pkg/apis/core/validation`` (``ValidatePodSpec`` and the
functions it calls) for the rules a controller author can trip, with its field paths
and wording: ``spec`` (spec-wide fields and the order the checks run in), ``volumes``,
``containers`` (names, image, env, mounts, host ports), ``ports``, ``probes`` and
``resources``. The checks that need the decoded Go types (wrong JSON types, quantities
that do not parse) are the strict decoder's and have already passed.

Entry point: ``validate_pod_spec(spec, "spec")``, a list of ``FieldError``:

>>> spec = {"containers": [{"name": "a", "image": "x", "volumeMounts": [
...     {"name": "nope", "mountPath": "/d"}]}], "restartPolicy": "Always",
...     "dnsPolicy": "ClusterFirst"}
>>> [str(e) for e in validate_pod_spec(spec, "spec")]
['spec.containers[0].volumeMounts[0].name: Not found: "nope"']
"""

from kubeforge.apiserver.builtin.podspec.spec import validate_pod_spec

__all__ = ["validate_pod_spec"]
