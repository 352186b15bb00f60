"""``kubeforge docker-build`` / ``docker-push``: a clear exit code 3 when there is no engine.

The container tool is a real program on PATH in every test: either none at all,
or a small script standing in for the docker CLI (answering like docker does when
its daemon is down, or recording the build it is asked for).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from kubeforge._version import __version__

from .kf_cli import FRIGATE_API, kubeforge, new_project, one_line_error


def fake_docker(directory: Path, *, engine: bool) -> Path:
    """A ``docker`` script: ``info`` fails like docker without a daemon unless ``engine``."""
    directory.mkdir(exist_ok=True)
    log = directory / "calls.log"
    info = (
        "echo 27.0.1; exit 0"
        if engine
        else 'echo "Cannot connect to the Docker daemon at unix:///var/run/docker.sock.'
        ' Is the docker daemon running?" >&2; exit 1'
    )
    script = directory / "docker"
    script.write_text(
        "#!/bin/sh\n"
        f'echo "$@" >> "{log}"\n'
        f'if [ "$1" = info ]; then {info}; fi\n'
        'if [ "$1" = build ] || [ "$1" = push ]; then exit 0; fi\n'
        "exit 2\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return log


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return new_project(tmp_path, *FRIGATE_API)


def test_without_a_docker_cli_the_build_stops_with_exit_code_3(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))

    outcome = kubeforge("docker-build", "--image", "frigate:dev", cwd=project)

    one_line_error(outcome, 3, "no `docker` command on PATH", "--container-tool")


def test_a_docker_cli_without_an_engine_stops_with_exit_code_3_and_docker_s_reason(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = fake_docker(tmp_path / "bin", engine=False)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))

    build = kubeforge("docker-build", "--image", "frigate:dev", cwd=project)
    push = kubeforge("docker-push", "--image", "frigate:dev", cwd=project)

    for outcome in (build, push):
        one_line_error(outcome, 3, "no container engine answers `docker`", "Is the docker daemon")
    assert "build" not in log.read_text() and "push" not in log.read_text()


def test_with_an_engine_the_project_dockerfile_is_built_and_tagged(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = fake_docker(tmp_path / "bin", engine=True)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")

    outcome = kubeforge("docker-build", "--image", "registry.example.com/frigate:v1", cwd=project)

    assert outcome.code == 0, outcome
    calls = log.read_text().splitlines()
    assert calls[-1] == "build -t registry.example.com/frigate:v1 -f Dockerfile ."
    assert "built registry.example.com/frigate:v1" in outcome.stdout


def test_another_container_tool_is_used_when_named(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = fake_docker(tmp_path / "bin", engine=True)
    (tmp_path / "bin" / "docker").rename(tmp_path / "bin" / "podman")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))

    outcome = kubeforge(
        "docker-push", "--image", "frigate:v1", "--container-tool", "podman", cwd=project
    )

    assert outcome.code == 0, outcome
    assert log.read_text().splitlines()[-1] == "push frigate:v1"


def test_the_scaffolded_dockerfile_installs_the_package_and_runs_its_manager(
    project: Path,
) -> None:
    dockerfile = (project / "Dockerfile").read_text()
    assert "COPY frigate/ frigate/" in dockerfile
    assert 'RUN pip install --no-cache-dir "kubeforge==${KUBEFORGE_VERSION}" .' in dockerfile
    # the kubeforge the project was made with, not whatever is newest when the image builds
    assert f"ARG KUBEFORGE_VERSION={__version__}\n" in dockerfile
    assert 'ENTRYPOINT ["kubeforge", "run", "frigate"]' in dockerfile
    assert "USER 65532:65532" in dockerfile
