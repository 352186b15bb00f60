"""A built-in object comes back as Go's encoding/json writes it: a value field tagged
omitempty that holds "", 0 or false is left out (stored and answered), while pointer
fields and fields without omitempty keep their zero."""

from __future__ import annotations

from kf_http import Api


async def test_zero_omitempty_fields_are_left_out_of_a_pod(api: Api, namespace: str) -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "zeros"},
        "spec": {
            "hostNetwork": False,  # bool, omitempty
            "nodeName": "",  # string, omitempty
            "automountServiceAccountToken": False,  # *bool: kept
            "containers": [
                {"name": "app", "image": "nginx", "workingDir": "", "stdin": False, "tty": False}
            ],
        },
    }
    created = await api.post(f"/api/v1/namespaces/{namespace}/pods", pod)
    assert created.status == 201, created.body
    assert "nodeName" not in created.body["spec"]  # the scheduler may set it afterwards
    for body in (created.body, (await api.get(f"/api/v1/namespaces/{namespace}/pods/zeros")).body):
        spec = body["spec"]
        assert "hostNetwork" not in spec
        assert spec["automountServiceAccountToken"] is False
        container = spec["containers"][0]
        assert not {"workingDir", "stdin", "tty"} & set(container)


async def test_a_zero_without_omitempty_is_kept(api: Api, namespace: str) -> None:
    # DeploymentSpec.replicas is a pointer; ServicePort.port has no omitempty.
    body = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "zeros"},
        "spec": {"ports": [{"port": 80, "nodePort": 0}], "publishNotReadyAddresses": False},
    }
    created = await api.post(f"/api/v1/namespaces/{namespace}/services", body)
    assert created.status == 201, created.body
    port = created.body["spec"]["ports"][0]
    assert port["port"] == 80 and "nodePort" not in port  # int32, omitempty
    assert "publishNotReadyAddresses" not in created.body["spec"]
