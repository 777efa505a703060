"""Which certificate authorities an https request trusts, and what to say when
a server's certificate is not trusted.

- The system's CAs as OpenSSL finds them; ``SSL_CERT_FILE`` / ``SSL_CERT_DIR``
  replace them, as for curl and every OpenSSL program.
- ``tls.ca_file`` from config adds a private CA to those (so one private
  endpoint does not cut conv off the public ones).
- Where the system has no CA store (python.org's macOS builds until their
  "Install Certificates" step: OpenSSL's default paths point at nothing),
  certifi's bundle when it is installed, as requests, httpx and pip do;
  otherwise the error says how to get one.
"""

import os
import ssl
import sys

from ..errors import ProviderError

# OpenSSL's verify codes that a private CA does not explain
EXPIRED, NOT_YET_VALID, HOSTNAME_MISMATCH, IP_MISMATCH = 10, 9, 62, 64


def context(ca_file: str | None) -> ssl.SSLContext:
    ctx = ssl.create_default_context()
    extra = [] if has_store() else [certifi_bundle()]
    for path in filter(None, [*extra, ca_file]):
        try:
            ctx.load_verify_locations(path)
        except (OSError, ssl.SSLError) as exc:
            raise ProviderError(f"cannot read CA certificates from {path} ({getattr(exc, 'reason', None) or exc})",
                                "Point tls.ca_file at a PEM file: conv config set tls.ca_file PATH") from None
    return ctx


def has_store(paths=None) -> bool:
    """Whether OpenSSL's default verify paths (or SSL_CERT_FILE / SSL_CERT_DIR)
    hold any CA. Python reads Windows' store itself."""
    if sys.platform == "win32":
        return True
    paths = paths or ssl.get_default_verify_paths()
    return bool(paths.cafile or paths.capath and os.listdir(paths.capath))


def certifi_bundle() -> str | None:
    try:
        import certifi
    except ImportError:
        return None
    return certifi.where()


def untrusted(exc: ssl.SSLCertVerificationError, server: str) -> tuple[str, str]:
    """(what, what to do) for a certificate that failed verification."""
    reason = exc.verify_message or exc.reason or str(exc)
    what = f"the certificate of {server} is not trusted ({reason})"
    if exc.verify_code in (HOSTNAME_MISMATCH, IP_MISMATCH):
        return what, "It was made for another name: check the host in the base URL"
    if exc.verify_code in (EXPIRED, NOT_YET_VALID):
        return what, "Check the server's certificate dates and this machine's clock"
    if not has_store() and not certifi_bundle():
        return what, ("This Python finds no CA certificates: pip install certifi where conv is installed "
                      "(pipx inject conv-git certifi), or on macOS run Python's Install Certificates command, "
                      "or set SSL_CERT_FILE to a CA bundle")
    named = os.environ.get("SSL_CERT_FILE")
    if named and not os.path.isfile(named):
        return what, f"SSL_CERT_FILE names no file ({named}): point it at a CA bundle, or unset it"
    return what, ("If a private CA signed it, set SSL_CERT_FILE to that CA's PEM file, "
                  "or run: conv config set tls.ca_file PATH")
