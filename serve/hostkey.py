"""The SSH host key: made on first use, kept in the user data folder (0600), shown by fingerprint.

Friends check the fingerprint the host prints against what their `ssh` shows on
first connection; keeping the key means the second game does not look like a
man in the middle.
"""

from __future__ import annotations

import os
from pathlib import Path

import asyncssh

KEY_NAME = "ssh_host_ed25519_key"


class HostKeyError(Exception):
    """The key file exists but cannot be used; the message names it."""


def load_or_create(folder: Path) -> asyncssh.SSHKey:
    path = folder / KEY_NAME
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        key = asyncssh.generate_private_key("ssh-ed25519", comment="cthulhu host key")
        tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(key.export_private_key())
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)  # never replaces a key another host process made meanwhile
        except FileExistsError:
            pass
        finally:
            os.unlink(tmp)
    if path.stat().st_mode & 0o077:
        path.chmod(0o600)  # a private key readable by others is tightened, as OpenSSH would insist
    try:
        return asyncssh.read_private_key(path)
    except (OSError, ValueError, asyncssh.KeyImportError) as exc:
        raise HostKeyError(f"cannot use the SSH host key {path}: {exc}") from None


def fingerprint(key: asyncssh.SSHKey) -> str:
    """`SHA256:...`, as `ssh` shows it."""
    return key.get_fingerprint("sha256")
