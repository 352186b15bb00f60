"""The demo's Deployment: rolled out by the local server's simulated control plane.

``kubeforge demo`` creates the Deployment ``rollout`` beside its pods; the server's
deployment and replicaset controllers, scheduler and kubelet bring its pods up, and the
PodToIp controller gives them PodToIps like any other pod. While the demo runs it
switches the image now and then (``new_image``), so a RollingUpdate moves the pods from
one ReplicaSet to the next. ``render`` draws the Deployment and its ReplicaSets as
``kubectl rollout status`` and ``get rs`` would tell them; ``complete`` is the rollout
status' "successfully rolled out" test.

Entry points: ``create``, ``new_image``, ``observe``, ``complete``, ``render``.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.table import Table
from rich.text import Text

from kubeforge.client import Client
from kubeforge.core.meta import ObjectMeta
from kubeforge.models.apps_v1 import Deployment, DeploymentSpec, ReplicaSet
from kubeforge.models.core_v1 import Container, PodSpec, PodTemplateSpec
from kubeforge.models.meta_v1 import LabelSelector

__all__ = ["NAME", "Rollout", "complete", "create", "new_image", "observe", "render"]

NAME = "rollout"
IMAGES = ("nginx:1.27", "nginx:1.28")
_REVISION = "deployment.kubernetes.io/revision"


@dataclass(frozen=True)
class Rollout:
    """The Deployment and its ReplicaSets as last read (newest revision first)."""

    deployment: Deployment
    sets: list[ReplicaSet]


async def create(client: Client, namespace: str, replicas: int) -> None:
    labels = {"app": NAME}
    body = Deployment(
        metadata=ObjectMeta(name=NAME, namespace=namespace),
        spec=DeploymentSpec(
            replicas=replicas,
            selector=LabelSelector(match_labels=labels),
            template=PodTemplateSpec(
                metadata=ObjectMeta(labels=labels),
                spec=PodSpec(containers=[Container(name="web", image=IMAGES[0])]),
            ),
        ),
    )
    await client.api(Deployment, namespace=namespace).create(body)


def _image(deployment: Deployment) -> str:
    spec = deployment.spec
    if spec is None or spec.template is None or spec.template.spec is None:
        return ""
    return spec.template.spec.containers[0].image or ""


async def new_image(client: Client, namespace: str, current: Deployment) -> None:
    """``kubectl set image``: the other of the two images, which starts a rollout."""
    image = IMAGES[1] if _image(current) == IMAGES[0] else IMAGES[0]
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "web", "image": image}]}}}}
    await client.api(Deployment, namespace=namespace).patch(NAME, patch, patch_type="strategic")


def _revision(obj: Deployment | ReplicaSet) -> int:
    return int((obj.metadata.annotations or {}).get(_REVISION, "0"))


async def observe(client: Client, namespace: str) -> Rollout:
    deployment = await client.api(Deployment, namespace=namespace).get(NAME)
    sets = (
        await client.api(ReplicaSet, namespace=namespace).list(label_selector=f"app={NAME}")
    ).items
    return Rollout(deployment, sorted(sets, key=_revision, reverse=True))


def complete(rollout: Rollout) -> bool:
    """What ``kubectl rollout status`` waits for: the latest generation observed, every
    replica updated and available, no old replica left."""
    deployment = rollout.deployment
    wanted = deployment.spec.replicas if deployment.spec else None
    status = deployment.status
    if status is None or wanted is None:
        return False
    return (
        (status.observed_generation or 0) >= (deployment.metadata.generation or 0)
        and (status.updated_replicas or 0) == wanted
        and (status.replicas or 0) == wanted
        and (status.available_replicas or 0) == wanted
    )


def render(rollout: Rollout) -> Table:
    deployment = rollout.deployment
    status = deployment.status
    wanted = deployment.spec.replicas if deployment.spec else 0
    progressing = next(
        (c for c in (status.conditions if status else None) or [] if c.type == "Progressing"),
        None,
    )
    title = f"deployment/{NAME}, revision {_revision(deployment)}"
    counts = (
        f"{(status.updated_replicas if status else 0) or 0}/{wanted} updated, "
        f"{(status.available_replicas if status else 0) or 0} available"
    )
    table = Table(title=title, expand=False)
    for column in ("replica set", "revision", "image", "desired", "ready"):
        table.add_column(column)
    for rs in rollout.sets:
        spec = rs.spec
        template = spec.template if spec else None
        image = template.spec.containers[0].image if template and template.spec else ""
        ready = (rs.status.ready_replicas if rs.status else 0) or 0
        desired = (spec.replicas if spec else 0) or 0
        table.add_row(rs.metadata.name, str(_revision(rs)), image, str(desired), str(ready))
    reason = f" ({progressing.reason})" if progressing is not None else ""
    table.caption = Text(counts + reason, "green" if complete(rollout) else "yellow")
    return table
