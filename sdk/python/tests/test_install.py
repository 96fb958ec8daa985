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

# Debian's pip has setuptools and wheel; the pyenv python3 on PATH has no wheel: pip cannot build a wheel with it.
PIP_PYTHON = next((p for p in ("/usr/bin/python3", shutil.which("python3")) if p and subprocess.run([p, "-m", "pip", "--version"], capture_output=True).returncode == 0), None)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    if PIP_PYTHON is None:
        pytest.skip("no python with pip here")
    work = tmp_path_factory.mktemp("install")
    # Built from a copy, so the checkout gains no build/ or egg-info.
    source = shutil.copytree(SDK, work / "src", ignore=shutil.ignore_patterns("tests", "bench", "build", "*.egg-info", "__pycache__"))
    target = work / "site"
    subprocess.run([PIP_PYTHON, "-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-deps", "--no-index", "--target", str(target), str(source)], check=True, capture_output=True)
    return target


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
        }))
    """, {"HEADROOM_CCR_BACKEND": "floorline", "HEADROOM_REDIS_URL": "", "HEADROOM_CCR_TENANT_PREFIX": "proxy-1", "FLOORLINE_URL": server.base})
    assert got == {"backend": "FloorlineCCRBackend", "tenant": "proxy-1", "original": "kept in Floorline by a Headroom proxy ke", "extensions": ["FloorlineExtension"]}
