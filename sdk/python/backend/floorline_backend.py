"""Floorline's build backend (PEP 517 and PEP 660), in the standard library only.

pip builds the SDK with this file and nothing else: no setuptools, no wheel, nothing to fetch,
so `pip install path/to/sdk/python` works offline, with or without build isolation, on any
pip that speaks PEP 517. What it builds comes from pyproject.toml's [project] table: the
package under src/floorline, its metadata, its entry points (Headroom finds the SDK by them).
"""

from __future__ import annotations

import base64
import hashlib
import io
import tarfile
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "floorline"
# Wheels and sdists carry one fixed time, so a build of the same files is the same bytes.
EPOCH = (1980, 1, 1, 0, 0, 0)


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _base() -> str:
    project = _project()
    return f"{project['name']}-{project['version']}"


def _metadata() -> str:
    p = _project()
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {p['name']}",
        f"Version: {p['version']}",
        f"Summary: {p['description']}",
        f"Requires-Python: {p['requires-python']}",
        f"License: {p['license']['text']}",
        *(f"Classifier: {c}" for c in p.get("classifiers", [])),
        *(f"Requires-Dist: {d}" for d in p.get("dependencies", [])),
        "Description-Content-Type: text/markdown",
    ]
    return "\n".join(lines) + "\n\n" + (ROOT / p["readme"]).read_text(encoding="utf-8")


def _entry_points() -> str:
    groups = _project().get("entry-points", {})
    return "".join(f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()) + "\n" for group, entries in groups.items())


def _dist_info() -> list[tuple[str, bytes]]:
    folder = f"{_base()}.dist-info"
    wheel = "Wheel-Version: 1.0\nGenerator: floorline_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    return [
        (f"{folder}/METADATA", _metadata().encode()),
        (f"{folder}/WHEEL", wheel.encode()),
        (f"{folder}/entry_points.txt", _entry_points().encode()),
    ]


def _sources(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")


def _write_wheel(directory: str, files: list[tuple[str, bytes]]) -> str:
    name = f"{_base()}-py3-none-any.whl"
    record = f"{_base()}.dist-info/RECORD"
    lines = []
    with zipfile.ZipFile(Path(directory) / name, "w", zipfile.ZIP_DEFLATED) as wheel:
        for arcname, data in files:
            wheel.writestr(zipfile.ZipInfo(arcname, EPOCH), data, zipfile.ZIP_DEFLATED)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            lines.append(f"{arcname},sha256={digest},{len(data)}")
        lines.append(f"{record},,")
        wheel.writestr(zipfile.ZipInfo(record, EPOCH), "\n".join(lines) + "\n", zipfile.ZIP_DEFLATED)
    return name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    package = [(f"floorline/{p.relative_to(PACKAGE).as_posix()}", p.read_bytes()) for p in _sources(PACKAGE)]
    return _write_wheel(wheel_directory, package + _dist_info())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # A path file: the checkout's src/ on sys.path, so edits take effect without a reinstall.
    return _write_wheel(wheel_directory, [("_floorline_editable.pth", f"{ROOT / 'src'}\n".encode())] + _dist_info())


def build_sdist(sdist_directory, config_settings=None):
    name = f"{_base()}.tar.gz"
    files = [ROOT / "pyproject.toml", ROOT / "README.md", *_sources(ROOT / "backend"), *_sources(ROOT / "src")]
    with tarfile.open(Path(sdist_directory) / name, "w:gz", format=tarfile.PAX_FORMAT) as sdist:
        for path, data in [(p.relative_to(ROOT).as_posix(), p.read_bytes()) for p in files] + [("PKG-INFO", _metadata().encode())]:
            info = tarfile.TarInfo(f"{_base()}/{path}")
            info.size, info.mode, info.mtime = len(data), 0o644, 315532800
            sdist.addfile(info, io.BytesIO(data))
    return name


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    for arcname, data in _dist_info():
        target = Path(metadata_directory) / arcname
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return f"{_base()}.dist-info"


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def get_requires_for_build_wheel(config_settings=None):
    return []


get_requires_for_build_sdist = get_requires_for_build_wheel
get_requires_for_build_editable = get_requires_for_build_wheel
