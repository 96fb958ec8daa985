"""The package as a user installs it: pip with no registry, then Headroom finds both entry
points through importlib.metadata, in a fresh interpreter."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest
from conftest import SDK

# Any python3 with pip: the SDK builds with its own backend (standard library only), so neither
# setuptools nor wheel is needed. The pyenv python3 on this machine has pip 23.2 and no wheel,
# where a setuptools build failed ("invalid command 'bdist_wheel'").
PIP_PYTHON = next((p for p in (shutil.which("python3"), "/usr/bin/python3") if p and subprocess.run([p, "-m", "pip", "--version"], capture_output=True).returncode == 0), None)


def pip_install(*args: str) -> None:
    done = subprocess.run([PIP_PYTHON, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    if PIP_PYTHON is None:
        pytest.skip("no python with pip here")
    work = tmp_path_factory.mktemp("install")
    # Built from a copy, so the checkout gains no build output.
    source = shutil.copytree(SDK, work / "src", ignore=shutil.ignore_patterns("tests", "bench", "build", "*.egg-info", "__pycache__"))
    target = work / "site"
    # As the docs say: no flags (build isolation on, nothing to fetch with --no-index).
    pip_install("--target", str(target), str(source))
    return target


def test_installs_without_build_isolation_and_as_an_editable_checkout(tmp_path):
    source = shutil.copytree(SDK, tmp_path / "src", ignore=shutil.ignore_patterns("tests", "bench", "build", "*.egg-info", "__pycache__"))
    plain = tmp_path / "plain"
    pip_install("--no-build-isolation", "--target", str(plain), str(source))
    assert (plain / "floorline" / "py.typed").exists()
    editable = tmp_path / "editable"
    pip_install("--target", str(editable), "-e", str(source))
    (pth,) = editable.glob("*.pth")
    assert pth.read_text().strip() == str(source / "src")


def run(installed: Path, script: str, env: dict[str, str]) -> dict:
    path = os.pathsep.join([str(installed), str(SDK / "tests" / "standin")])
    done = subprocess.run(["python3", "-c", textwrap.dedent(script)], capture_output=True, text=True, timeout=120, env={"PATH": os.environ["PATH"], "PYTHONPATH": path, **env})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_installed_package_carries_its_types_and_entry_points(installed):
    assert (installed / "floorline" / "py.typed").exists()
    got = run(installed, """
        import json
        from importlib.metadata import entry_points
        print(json.dumps({g: [(e.name, e.value) for e in entry_points(group=g)] for g in ("headroom.ccr_backend", "headroom.pipeline_extension")}))
    """, {})
    assert got == {
        "headroom.ccr_backend": [["floorline", "floorline.headroom:create_ccr_backend"]],
        "headroom.pipeline_extension": [["floorline", "floorline.headroom:FloorlineExtension"]],
    }


def test_headroom_selects_floorline_with_its_environment_variables(installed, server):
    got = run(installed, """
        import json
        from headroom.cache.compression_store import get_compression_store
        from headroom.pipeline import discover_pipeline_extensions
        store = get_compression_store()
        key = store.store("kept in Floorline by a Headroom proxy " * 30, "kept")
        entry = store.retrieve(key)
        print(json.dumps({
            "backend": type(store._backend).__name__,
            "tenant": store._backend.tenant_prefix,
            "original": entry.original_content[:40],
            "extensions": [type(e).__name__ for e in discover_pipeline_extensions()],
            "timeout": store._backend._http.timeout,
        }))
    """, {"HEADROOM_CCR_BACKEND": "floorline", "HEADROOM_REDIS_URL": "", "HEADROOM_CCR_TENANT_PREFIX": "proxy-1", "FLOORLINE_URL": server.base,
          # Headroom's entry point passes no timeout: the variable is how an operator sets it (and a
          # loaded CI machine has taken over the 3 s default to answer).
          "FLOORLINE_CCR_TIMEOUT": "30"})
    assert got == {"backend": "FloorlineCCRBackend", "tenant": "proxy-1", "original": "kept in Floorline by a Headroom proxy ke", "extensions": ["FloorlineExtension"], "timeout": 30.0}
