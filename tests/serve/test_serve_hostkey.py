"""The SSH host key: made once in the user data folder (0600), the same key (and fingerprint) after,
tightened if someone loosened it, and a clear error when the file is not a key."""

from __future__ import annotations

import stat
import subprocess
import sys

import pytest

from cthulhu.serve import hostkey


def test_made_once_and_kept(tmp_path) -> None:
    key = hostkey.load_or_create(tmp_path / "cthulhu")
    path = tmp_path / "cthulhu" / hostkey.KEY_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert hostkey.fingerprint(key).startswith("SHA256:")
    path.chmod(0o644)
    again = hostkey.load_or_create(tmp_path / "cthulhu")
    assert hostkey.fingerprint(again) == hostkey.fingerprint(key)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_broken_key_file_is_one_clear_line(tmp_path) -> None:
    folder = tmp_path / "data" / "cthulhu"
    folder.mkdir(parents=True)
    (folder / hostkey.KEY_NAME).write_text("not a key")
    (folder / hostkey.KEY_NAME).chmod(0o600)
    with pytest.raises(hostkey.HostKeyError, match="cannot use the SSH host key"):
        hostkey.load_or_create(folder)
    done = subprocess.run([sys.executable, "-m", "cthulhu.cli", "host", "--headless", "--port", "0", "--ssh", "0", "--no-save"],
                          capture_output=True, text=True, timeout=60, env={"XDG_DATA_HOME": str(tmp_path / "data"), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().startswith("cthulhu host: cannot use the SSH host key") and len(done.stderr.strip().splitlines()) == 1


def test_a_broken_installation_without_a_door_library_says_so_in_one_line(tmp_path) -> None:
    """asyncssh and textual-serve come with `pip install .`; an installation without them is broken:
    `--ssh`/`--web` say so in one line (and send nobody to a package of another name)."""
    for option, module in (("--ssh", "asyncssh"), ("--web", "textual_serve")):
        code = f"import sys; sys.modules[{module!r}] = None; from cthulhu.cli import main; sys.exit(main(sys.argv[1:]))"
        done = subprocess.run([sys.executable, "-c", code, "host", "--headless", "--port", "0", "--no-save", option, "0"],
                              capture_output=True, text=True, timeout=60, env={"XDG_DATA_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.strip() == (f"cthulhu host: {option} cannot start: this installation of cthulhu is incomplete "
                                       f"(import of {module} halted; None in sys.modules); install it again")
